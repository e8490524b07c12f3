"""Whom an MCP server acts for, when several people use one host (`python main.py serve`).

Each entry of mcp_servers.json says it with `"users"`:

- `"per-person"`: a connection of its own for each signed-in person. A command server is started with
  that person's AGENT_USER (as the chat starts one for its person); an HTTP server is sent the person in
  `X-On-Behalf-Of`, beside the credentials of its entry's headers. What one person's server holds,
  another never reaches through it.
- `"shared"`: one connection for everyone, as the operator (AGENT_USER of the serving process): for a
  server that keeps nothing of anyone's (a clock, a calculator).

An entry without `"users"` is refused by `serve` (`check_several_people`). The chat has one person, so
there every server is that person's and one connection serves it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from agent.types import ConfigError
from app.mcp.client import McpConnection, ServerConfig

PER_PERSON, SHARED = "per-person", "shared"
MAX_OPEN = 16  # per-person connections of one server open at once; the one unused longest closes first


def check_several_people(servers: list[ServerConfig], path: object) -> None:
    """ConfigError, in one line, naming the first server not marked for several people."""
    for server in servers:
        if server.users not in (PER_PERSON, SHARED):
            raise ConfigError(
                f'MCP server {server.name!r} of {path} is not marked for several people: give it "users": '
                f'"{PER_PERSON}" (a connection of its own for each signed-in person) or "users": "{SHARED}" '
                "(it keeps nothing of anyone's), or remove it, to serve it"
            )


class Shared:
    """Everyone's calls on one connection: the chat's person's, or a `"shared"` server's."""

    def __init__(self, connection: McpConnection) -> None:
        self.connection = connection

    @contextmanager
    def lease(self, user: str) -> Iterator[McpConnection]:
        yield self.connection

    def close(self) -> None:
        self.connection.close()


class PerPerson:
    """A connection for each person, made by `connect(user)` on first use. `first` (the operator's, which
    listed the tools) serves the operator. At most MAX_OPEN stay open: opening another closes the one
    unused longest, never one a call is using."""

    def __init__(self, first: McpConnection, operator: str, connect: Callable[[str], McpConnection]) -> None:
        self.connection = first
        self._connect = connect
        self._open: OrderedDict[str, McpConnection] = OrderedDict({operator: first})
        self._busy: dict[str, int] = {}
        self._lock = threading.Lock()

    @contextmanager
    def lease(self, user: str) -> Iterator[McpConnection]:
        with self._lock:
            connection = self._open.get(user) or self._opened(user)
            self._open.move_to_end(user)
            self._busy[user] = self._busy.get(user, 0) + 1
        try:
            yield connection
        finally:
            with self._lock:
                self._busy[user] -= 1

    def _opened(self, user: str) -> McpConnection:
        idle = [u for u in self._open if not self._busy.get(u) and self._open[u] is not self.connection]
        if len(self._open) >= MAX_OPEN and idle:
            self._open.pop(idle[0]).close()
        self._open[user] = self._connect(user)
        return self._open[user]

    def close(self) -> None:
        for connection in self._open.values():
            connection.close()


Reach = Shared | PerPerson  # how a tool's call finds its connection
