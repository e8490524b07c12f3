"""AnnouncedServer: uvicorn's server that says one line on stderr once it serves (`python -m app.mcp_server
--http PORT` says its URL: until then a person cannot tell it is up, nor where)."""

from __future__ import annotations

import socket
import sys
from typing import Any

import uvicorn


class AnnouncedServer(uvicorn.Server):
    """`AnnouncedServer(app, line).run(sockets=[sock])`: `app` served quietly (warnings only), `line` said
    once it accepts connections; a start that fails says uvicorn's error instead."""

    def __init__(self, app: Any, line: str) -> None:
        super().__init__(uvicorn.Config(app, log_level="warning"))
        self.line = line

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            print(self.line, file=sys.stderr, flush=True)
