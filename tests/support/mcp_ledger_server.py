"""A ledger server (MCP, stdio) whose tools append an entry to a file: writes neither idempotent nor
deduplicated — run twice, they write twice; striking an entry is destructive, so it is approved first.
With HOLD_FILE set, a call that has written waits until that file exists (and says so in
HOLD_FILE.reached), so that a test can kill its host in the middle of it.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("ledger")
LEDGER = Path(os.environ["LEDGER_FILE"])
HOLD = os.environ.get("HOLD_FILE")


@server.tool(description="Append an entry to the ledger.")
def append_entry(text: str) -> str:
    return written(text)


@server.tool(
    description="Strike an entry from the ledger.", annotations=ToolAnnotations(destructiveHint=True)
)
def strike_entry(text: str) -> str:
    return written(f"struck: {text}")


def written(line: str) -> str:
    with LEDGER.open("a", encoding="utf-8") as ledger:
        ledger.write(line + "\n")
    if HOLD:
        Path(HOLD + ".reached").touch()
        while not Path(HOLD).exists():
            time.sleep(0.05)
    return "written"


if __name__ == "__main__":
    server.run()
