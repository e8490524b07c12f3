"""A notes server (MCP, stdio) that keeps each person's notes: the person is AGENT_USER, as the host
tells a server it starts. The notes of everyone are in one JSON file (NOTES_FILE), so a server started
for one person would hand out another's if the host let it act for both.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES = Path(os.environ["NOTES_FILE"])
WHO = os.environ.get("AGENT_USER", "")


def everyone() -> dict[str, list[str]]:
    return json.loads(NOTES.read_text(encoding="utf-8")) if NOTES.exists() else {}


@server.tool(description="Write a note for the person.")
def write_note(text: str) -> str:
    notes = everyone()
    notes.setdefault(WHO, []).append(text)
    NOTES.write_text(json.dumps(notes), encoding="utf-8")
    return f"noted for {WHO}"


@server.tool(description="Read the person's notes.")
def read_notes() -> list[str]:
    return everyone().get(WHO, [])


if __name__ == "__main__":
    server.run()
