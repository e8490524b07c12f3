"""McpToolset: the tools of every configured MCP server in the same registry as local tools, each in a
definition the person approved; and the servers' resources and prompts, for the chat's commands.

At start-up and whenever a server announces a change, its tools are listed. A tool reaches the model
only in a definition the person approved (`approvals.py`); a trusted server's tools are approved as
first seen at start-up; anything new or changed later waits, from a trusted server as from any other,
and the person is shown what changed. A name another server already holds is reported and skipped.
Resources and prompt texts come back capped: they are data for the person to read, never words the
person typed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import mcp_types as types
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate

from agent.guards import TRUNCATION_MARK
from agent.tools import ToolRegistry
from agent.types import McpUnavailable, UsageError
from app.mcp.approvals import Approvals, Definition, what_changed
from app.mcp.client import McpConnection, Person, ServerConfig
from app.mcp.people import PER_PERSON, PerPerson, Reach, Shared, check_several_people
from app.mcp.tool import McpTool, describe

Approve = Callable[[str, list[str]], bool]  # (server, what it offers: new or changed tools) -> use them?
MAX_READ = 16 * 1024  # characters of a resource or a prompt brought into the conversation


class McpToolset:
    """All configured servers, their tools registered in `registry`; use as a context manager."""

    def __init__(
        self,
        servers: list[ServerConfig],
        registry: ToolRegistry,
        log_dir: Path,
        report: Callable[[str], None],
        person: Person | None = None,
        identity: dict[str, str] | None = None,
        several_people: bool = False,
    ) -> None:
        if several_people:
            check_several_people(servers, "the MCP configuration")
        self.registry, self.report, self._log_dir = registry, report, log_dir
        self.person = person or Person()
        self.identity = identity or {}  # what a command server is told of the person it runs for
        self.several_people = several_people  # `serve`: each call as its person, with mcp:<server>
        self.approvals = Approvals(log_dir / "mcp-approved.json")
        self._servers = servers
        self._stack = ExitStack()
        self.connections: dict[str, McpConnection] = {}  # the operator's: it lists the tools
        self.reach: dict[str, Reach] = {}  # server -> the connection each person's call goes on
        self.tools: dict[str, McpTool] = {}
        self._waiting: dict[str, list[McpTool]] = {}  # server -> tools not approved yet
        self._syncing = threading.Lock()

    def __enter__(self) -> McpToolset:
        portal = self._stack.enter_context(start_blocking_portal())
        self._stack.callback(self._close_all)
        self.connections = {
            s.name: McpConnection(s, portal, self._log_dir, self.person, self.identity) for s in self._servers
        }
        self.reach = {name: self._reach(c, portal) for name, c in self.connections.items()}
        try:
            with ThreadPoolExecutor(max(1, len(self.connections))) as pool:  # slow servers start side by side
                listed = list(pool.map(self._listed, self.connections.values()))
        except BaseException:  # Ctrl-C while servers start: stop them and the portal, then go on stopping
            self._stack.close()
            raise
        for connection, tools in zip(self.connections.values(), listed, strict=True):
            self._offer(connection, tools or [], at_start=True)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _reach(self, connection: McpConnection, portal: BlockingPortal) -> Reach:
        if not (self.several_people and connection.config.users == PER_PERSON):
            return Shared(connection)

        def connect(user: str) -> McpConnection:
            identity = {**self.identity, "AGENT_USER": user}
            return McpConnection(connection.config, portal, self._log_dir, self.person, identity)

        return PerPerson(connection, self.identity.get("AGENT_USER", ""), connect)

    def _close_all(self) -> None:
        for reach in self.reach.values():
            reach.close()

    def _listed(self, connection: McpConnection) -> list[McpTool] | None:
        """The server's tools now (None when it cannot be asked); one that cannot be used is reported."""
        try:
            listed = list(connection.request(lambda c: c.list_tools(cache_mode="refresh")).tools)
        except (McpUnavailable, MCPError) as e:
            self.report(f"MCP server {connection.config.name!r} skipped: {e}")
            return None
        tools = []
        for remote in listed:
            try:
                tool = McpTool(connection, remote, self.reach.get(connection.config.name))
                if self.several_people:  # whoever may use this server, as the permissions file says
                    tool.permission = f"mcp:{connection.config.name}"  # type: ignore[misc]
                tools.append(tool)
            except ValueError as e:
                self.report(f"MCP tool {remote.name!r} of {connection.config.name!r} skipped: {e}")
        return tools

    def _offer(self, connection: McpConnection, tools: list[McpTool], at_start: bool = False) -> None:
        """Register what the person approved (and a trusted server's tools first seen at start-up); the
        rest waits."""
        server, waiting = connection.config.name, []
        for tool in tools:
            seen = self.approvals.seen(server, tool.name)
            if seen == definition(tool) or (seen is None and at_start and connection.config.trusted):
                self.approvals.approve(server, {tool.name: definition(tool)})
                self._add(tool)
            else:
                waiting.append(tool)
        self._waiting[server] = waiting

    def _add(self, tool: McpTool) -> None:
        existing = self.registry.get(tool.name)
        if existing is not None and not isinstance(existing, McpTool):
            self.report(f"MCP tool {tool.name!r} skipped: a local tool has that name")
            return
        if isinstance(existing, McpTool) and existing.connection is not tool.connection:
            holder, server = existing.connection.config.name, tool.connection.config.name
            self.report(f"MCP tool {tool.name!r} of {server!r} skipped: {holder!r} has it")
            return
        try:
            self.registry.unregister(tool.name)
            self.registry.register(tool)
            self.tools[tool.name] = tool
        except Exception as e:
            self.report(f"MCP tool {tool.name!r} skipped: {str(e).splitlines()[0][:120]}")

    def sync(self, approve: Approve) -> None:
        """Before a turn: apply announced changes (removed tools go, changed ones are withdrawn) and ask
        the person about what waits for approval, showing what is new and what changed."""
        with self._syncing:  # turns of several people may start at once (`serve`)
            for connection in self.connections.values():
                self._sync(connection, approve)

    def _sync(self, connection: McpConnection, approve: Approve) -> None:
        if connection.tools_changed:
            connection.tools_changed = False
            self._relist(connection)
        self._ask_about(connection, approve)

    def _relist(self, connection: McpConnection) -> None:
        listed = self._listed(connection)
        if listed is None:  # could not list now: keep what we have, try again before the next turn
            connection.tools_changed = True
            return
        for name in [n for n, t in self.tools.items() if t.connection is connection]:
            self.registry.unregister(name)
            del self.tools[name]
        self._offer(connection, listed)

    def _ask_about(self, connection: McpConnection, approve: Approve) -> None:
        server = connection.config.name
        waiting = self._waiting.pop(server, [])
        if not waiting:
            return
        lines = [what_changed(t.name, self.approvals.seen(server, t.name), definition(t)) for t in waiting]
        if approve(server, lines):
            self.approvals.approve(server, {t.name: definition(t) for t in waiting})
            for tool in waiting:
                self._add(tool)

    # --- resources and prompts: for the person, through chat commands ----------------------------

    def resources(self) -> list[tuple[str, types.Resource]]:
        return [(name, r) for name, c in self.connections.items() for r in self._page(c, "list_resources")]

    def templates(self) -> list[tuple[str, types.ResourceTemplate]]:
        return [
            (name, t)
            for name, c in self.connections.items()
            for t in self._page(c, "list_resource_templates", "resource_templates")
        ]

    def prompts(self) -> list[tuple[str, types.Prompt]]:
        return [(name, p) for name, c in self.connections.items() for p in self._page(c, "list_prompts")]

    def read(self, uri: str) -> str:
        """The text of the resource at `uri`, from the one server that lists it or whose template fits it."""
        servers = [name for name, r in self.resources() if str(r.uri) == uri] or [
            name for name, t in self.templates() if UriTemplate.parse(t.uri_template).match(uri) is not None
        ]
        if len(set(servers)) != 1:
            found = f"servers {', '.join(sorted(set(servers)))} all fit it" if servers else "none lists it"
            raise UsageError(f"cannot tell which MCP server has the resource {uri!r}: {found}")
        result = self._ask(servers[0], lambda c: c.read_resource(uri))
        text = "\n".join(
            getattr(part, "text", None) or f"[{part.mime_type or 'binary'}, not shown]"
            for part in result.contents
        )
        return capped(text)

    def prompt(self, name: str, arguments: dict[str, str]) -> list[tuple[str, str]]:
        """The prompt's messages, (role, text) each, from the one server that offers it."""
        servers = [s for s, p in self.prompts() if p.name == name]
        if len(servers) != 1:
            raise UsageError(f"{len(servers) or 'no'} MCP servers offer the prompt {name!r}")
        result = self._ask(servers[0], lambda c: c.get_prompt(name, arguments))
        return [(str(m.role), capped(describe(m.content))) for m in result.messages]

    def _page(self, connection: McpConnection, method: str, field: str = "") -> list[Any]:
        try:
            page = connection.request(lambda c: getattr(c, method)())
        except (McpUnavailable, MCPError):
            return []  # servers without resources or prompts answer "method not found"
        return list(getattr(page, field or method.removeprefix("list_")))

    def _ask(self, server: str, fn: Callable[[Any], Any]) -> Any:
        """What the person asked of `server`; a refusal of the server is told to the person as such."""
        try:
            return self.connections[server].request(fn)
        except MCPError as e:
            raise UsageError(f"MCP server {server!r} refused: {e}") from None


def definition(tool: McpTool) -> Definition:
    """What the person approves of a tool: what the model is told, and what a call may do."""
    return {
        "description": tool.description,
        "parameters": tool.parameters,
        "effect": tool.effect,
        "confirmed": tool.needs_confirmation,
    }


def capped(text: str) -> str:
    if len(text) <= MAX_READ:
        return text
    return text[:MAX_READ] + TRUNCATION_MARK.format(n=len(text) - MAX_READ)
