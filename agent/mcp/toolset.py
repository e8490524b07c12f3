"""MCP tools as FunctionTools: `<server>__<tool>` in the same registry, under the same rules as local tools.

Policy from annotations, as the spec asks (annotations from untrusted servers are untrusted): from a
server marked `"trusted": true`, read-only tools run freely and the others need confirmation unless
they say `destructiveHint: false`; from any other server every tool needs confirmation unless the
config's `"allow"` names it. New or changed tools never reach the model before the person approves.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import mcp_types as types
from anyio.from_thread import start_blocking_portal
from mcp.shared.exceptions import MCPError

from agent.mcp.client import McpConnection, Person, ServerConfig
from agent.tools import FunctionTool, ToolRegistry
from agent.types import McpUnavailable, ToolContext, ToolError, UsageError

MAX_NAME, MAX_DESCRIPTION = 64, 1024
Approve = Callable[[str, list[str]], bool]  # (server, new tool names) -> may the model use them?


def exposed_name(server: str, tool: str) -> str:
    """`<server>__<tool>` in the characters providers accept; shortened deterministically past 64."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}__{tool}")
    if len(name) <= MAX_NAME and name == f"{server}__{tool}":
        return name
    digest = hashlib.sha256(f"{server}__{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def needs_confirmation(config: ServerConfig, tool: types.Tool) -> bool:
    if tool.name in config.allow:
        return False
    if not config.trusted:
        return True
    hints = tool.annotations
    return not (hints and (hints.read_only_hint or hints.destructive_hint is False))


def result_data(result: types.CallToolResult) -> Any:
    """Text and structured content for the model; images, audio and blobs described, not dumped."""
    parts = [_describe(block) for block in result.content]
    if result.structured_content is not None:
        return {"content": parts, "structuredContent": result.structured_content}
    return parts[0] if len(parts) == 1 else parts


def _describe(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return f"[{block.type}: {block.mime_type}, about {len(block.data) * 3 // 4} bytes, not shown]"
    if isinstance(block, types.EmbeddedResource):
        inner = block.resource
        if isinstance(inner, types.TextResourceContents):
            return inner.text
        return f"[resource {inner.uri}: {inner.mime_type or 'binary'}, not shown]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"


class McpTool(FunctionTool):
    def __init__(self, connection: McpConnection, tool: types.Tool) -> None:
        self.connection = connection
        self.remote = tool
        self.name = exposed_name(connection.config.name, tool.name)
        description = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", " ", tool.description or "")[:MAX_DESCRIPTION]
        self.description = f"[MCP server {connection.config.name}] {description}"
        self.parameters = dict(tool.input_schema or {"type": "object"})
        self._confirm = needs_confirmation(connection.config, tool)

    @property
    def needs_confirmation(self) -> bool:
        """From the server's trust, its annotations and the config's "allow" list (see the module)."""
        return self._confirm

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        if ctx.seconds_left(self.connection.config.timeout) <= 0:
            raise ToolError("the turn's deadline has passed; the tool was not called", retryable=False)
        try:
            # the connection's clock bounds the call, and stops while the person answers the server
            result = self.connection.request(
                lambda c: c.call_tool(self.remote.name, args, read_timeout_seconds=math.inf),
                timeout=ctx.seconds_left(self.connection.config.timeout),
            )
        except McpUnavailable as e:
            raise ToolError(
                f"{e}; it will be restarted on next use. The call was not repeated: it may or "
                "may not have taken effect",
                retryable=True,
            ) from None
        except MCPError as e:
            raise ToolError(
                f"MCP server {self.connection.config.name!r} refused: {e}", retryable=False
            ) from None
        if result.is_error:
            raise ToolError(str(result_data(result)), retryable=True)
        return json.dumps(result_data(result), ensure_ascii=False)


class McpToolset:
    """All configured servers, their tools registered in `registry`; use as a context manager."""

    def __init__(
        self,
        servers: list[ServerConfig],
        registry: ToolRegistry,
        log_dir: Path,
        report: Callable[[str], None],
        person: Person | None = None,
    ) -> None:
        self.registry, self.report, self._log_dir = registry, report, log_dir
        self.person = person or Person()
        self._servers = servers
        self._stack = ExitStack()
        self.connections: dict[str, McpConnection] = {}
        self.tools: dict[str, McpTool] = {}

    def __enter__(self) -> McpToolset:
        portal = self._stack.enter_context(start_blocking_portal())
        self._stack.callback(self._close_all)
        self.connections = {
            s.name: McpConnection(s, portal, self._log_dir, self.person) for s in self._servers
        }
        try:
            with ThreadPoolExecutor(max(1, len(self.connections))) as pool:  # slow servers start side by side
                listed = list(pool.map(self._list_tools, self.connections.values()))
        except BaseException:  # Ctrl-C while servers start: stop them and the portal, then go on stopping
            self._stack.close()
            raise
        for connection, tools in zip(self.connections.values(), listed, strict=True):
            for tool in tools or []:
                self._add(McpTool(connection, tool))
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _close_all(self) -> None:
        for connection in self.connections.values():
            connection.close()

    def _list_tools(self, connection: McpConnection) -> list[types.Tool] | None:
        try:
            return list(connection.request(lambda c: c.list_tools(cache_mode="refresh")).tools)
        except (McpUnavailable, MCPError) as e:
            self.report(f"MCP server {connection.config.name!r} skipped: {e}")
            return None

    def _add(self, tool: McpTool) -> None:
        existing = self.registry.get(tool.name)
        if existing is not None and not isinstance(existing, McpTool):
            self.report(f"MCP tool {tool.name!r} skipped: a local tool has that name")
            return
        try:
            self.registry.unregister(tool.name)
            self.registry.register(tool)
            self.tools[tool.name] = tool
        except Exception as e:
            self.report(f"MCP tool {tool.name!r} skipped: {str(e).splitlines()[0][:120]}")

    def sync(self, approve: Approve) -> None:
        """Apply announced tool-list changes: removed tools go; new or changed ones wait for approval."""
        for connection in self.connections.values():
            if not connection.tools_changed:
                continue
            connection.tools_changed = False
            listed = self._list_tools(connection)
            if listed is None:  # could not list now: keep what we have, try again before the next turn
                connection.tools_changed = True
                continue
            current = {t.name: t for t in self.tools.values() if t.connection is connection}
            fresh = {tool.name: tool for tool in (McpTool(connection, t) for t in listed)}
            for name in current.keys() - fresh.keys():
                self.registry.unregister(name)
                del self.tools[name]
            changed = [
                t for n, t in fresh.items() if n not in current or _definition(t) != _definition(current[n])
            ]
            for tool in changed:
                if tool.name in current:  # a changed definition is withdrawn until approved again
                    self.registry.unregister(tool.name)
                    del self.tools[tool.name]
            if changed and approve(connection.config.name, [t.name for t in changed]):
                for tool in changed:
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
        server = next((name for name, r in self.resources() if str(r.uri) == uri), None)
        server = server or next(
            (name for name, t in self.templates() if uri.startswith(t.uri_template.split("{")[0])), None
        )
        if server is None:
            raise UsageError(f"no MCP server lists the resource {uri!r} or a template it fits")
        result = self._ask(server, lambda c: c.read_resource(uri))
        return "\n".join(
            getattr(part, "text", None) or f"[{part.mime_type or 'binary'}, not shown]"
            for part in result.contents
        )

    def prompt(self, name: str, arguments: dict[str, str]) -> str:
        server = next((s for s, p in self.prompts() if p.name == name), None)
        if server is None:
            raise UsageError(f"no MCP server offers the prompt {name!r}")
        result = self._ask(server, lambda c: c.get_prompt(name, arguments))
        return "\n\n".join(_describe(m.content) for m in result.messages)

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


def _definition(tool: McpTool) -> tuple[str, str, bool]:
    return tool.description, json.dumps(tool.parameters, sort_keys=True), tool.needs_confirmation
