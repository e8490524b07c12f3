"""A ledger server (MCP, stdio) whose one tool appends an entry to a file: a write neither idempotent nor
deduplicated — run twice, it writes twice. With HOLD_FILE set, a call that has written waits until that
file exists (and says so in HOLD_FILE.reached), so that a test can kill its host in the middle of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("ledger")
LEDGER = Path(os.environ["LEDGER_FILE"])
HOLD = os.environ.get("HOLD_FILE")


@server.tool(description="Append an entry to the ledger.")
def append_entry(text: str) -> str:
    with LEDGER.open("a", encoding="utf-8") as ledger:
        ledger.write(text + "\n")
    if HOLD:
        Path(HOLD + ".reached").touch()
        while not Path(HOLD).exists():
            time.sleep(0.05)
    return "appended"


if __name__ == "__main__":
    server.run()
