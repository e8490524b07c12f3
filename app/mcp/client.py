"""MCP client: the servers of MCP_CONFIG, reachable from the synchronous agent loop.

The right-hand box of the tutorial's hybrid architecture ("MCP Client → 连接外部 MCP Servers"), on the
official `mcp` SDK (major version 2). One background event loop (an anyio blocking portal) owns every
connection; each request has a timeout (stopped while a question of the server waits for the person);
a server that crashes or hangs is reported as unavailable and started again on its next use. A call is
never replayed: it may have had side effects. HTTP servers get OAuth (`app/mcp/auth.py`), questions
from servers reach the person (`app/mcp/elicitation.py`). Both eras of the protocol are spoken: the
2026-07-28 revision where the server speaks it (questions come in results, list changes on a
subscriptions/listen stream), the 2025 handshake where it only speaks that (or `"protocol": "legacy"`).
"""

from __future__ import annotations

import contextlib
import json
import math
import threading
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx2
import mcp_types as types
from anyio.from_thread import BlockingPortal
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent.types import ConfigError, McpUnavailable, NeedsAuthorization, clamp
from app.mcp.auth import OpenUrl, oauth_provider
from app.mcp.elicitation import AskPerson, elicitation_callback, unattended
from app.mcp.failures import reason, start_failure
from app.mcp.listen import listen_for_changes

T = TypeVar("T")
_BROKEN = {types.CONNECTION_CLOSED, types.REQUEST_TIMEOUT}  # errors that mean the server is gone or stuck


@dataclass(frozen=True)
class ServerConfig:
    """One entry of `{"mcpServers": {...}}`: a command (stdio) or a url (streamable HTTP), plus our keys."""

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    trusted: bool = False  # annotations of a trusted server are believed
    allow: list[str] = field(default_factory=list)  # tools that run without confirmation
    timeout: float = 30.0  # seconds for any one request
    protocol: str = "auto"  # "auto": 2026-07-28 where the server speaks it; "legacy": the 2025 handshake
    users: str = ""  # under `serve`: "per-person" or "shared" (app/mcp/people.py); unmarked is refused
    oauth: dict[str, Any] = field(default_factory=dict)  # see app/mcp/auth.py


def load_servers(path: Path) -> list[ServerConfig]:
    """Read the common `{"mcpServers": {"<name>": {...}}}` file; keys other clients use are ignored."""
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))["mcpServers"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"cannot read MCP servers from {path}: {e}") from None
    known = set(ServerConfig.__dataclass_fields__) - {"name"}
    servers = []
    for name, spec in entries.items():
        if not isinstance(spec, dict) or not (spec.get("command") or spec.get("url")):
            raise ConfigError(f'MCP server {name!r} in {path} needs a "command" or a "url"')
        if spec.get("protocol", "auto") not in ("auto", "legacy"):
            raise ConfigError(f'MCP server {name!r} in {path}: "protocol" is "auto" or "legacy"')
        if spec.get("users", "") not in ("", "per-person", "shared"):
            raise ConfigError(f'MCP server {name!r} in {path}: "users" is "per-person" or "shared"')
        servers.append(ServerConfig(name=name, **{k: v for k, v in spec.items() if k in known}))
    return servers


@dataclass(frozen=True)
class Person:
    """How a connection reaches the person: questions of servers, and the authorization page to open."""

    ask: AskPerson = unattended
    open_url: OpenUrl | None = None  # None: nobody can sign in here (`-m`, pipes)


class McpConnection:
    """One server. `request(fn)` runs `await fn(client)` on the portal's loop, within the timeout."""

    def __init__(
        self,
        config: ServerConfig,
        portal: BlockingPortal,
        log_dir: Path,
        person: Person,
        identity: dict[str, str] | None = None,
    ) -> None:
        self.config = config
        self.person = person
        self.identity = identity or {}  # told to a command server: the person it runs for, nothing secret
        self._portal = portal
        self._log_dir = log_dir
        self._context: Any = None
        self._client: Client | None = None
        self.tools_changed = False  # set by notifications/tools/list_changed
        self.resources_changed = False  # set by notifications/resources/list_changed
        self._listening: Any = None  # the subscriptions/listen task of a 2026-07-28 connection
        self._lock = threading.Lock()
        self._waiting: set[anyio.CancelScope] = set()  # requests under way, whose clocks the person stops
        self._refused: int | None = None  # HTTP 401/403 seen from the server

    def request(self, fn: Callable[[Client], Awaitable[T]], timeout: float | None = None) -> T:
        with self._lock:  # parallel tool calls share one connection: start it once
            client = self._client or self._connect()
        limit = clamp(timeout, self.config.timeout)

        async def bounded() -> T:
            with anyio.CancelScope(deadline=anyio.current_time() + limit) as scope:
                self._waiting.add(scope)
                try:
                    return await fn(client)
                finally:
                    self._waiting.discard(scope)
            raise TimeoutError

        try:
            return self._portal.call(bounded)
        except MCPError as e:
            if e.code not in _BROKEN:
                raise  # the server answered with an error: the connection is fine
            self.close(client)
            raise McpUnavailable(f"MCP server {self.config.name!r} failed: {e}") from None
        except Exception as e:
            self.close(client)  # crashed or hung: start it again on next use
            why = f"no answer within {limit:g}s" if isinstance(e, TimeoutError) else reason(e)
            raise McpUnavailable(f"MCP server {self.config.name!r} failed: {why}") from None

    @property
    def revision(self) -> str | None:
        """The protocol revision the server speaks with us; None until connected."""
        client = self._client
        return client.protocol_version if client is not None else None

    def _connect(self) -> Client:
        # mode="auto": server/discover first, and the initialize handshake where the server answers it
        # with "method not found" (a server of the 2025 revisions)
        client = Client(
            self._transport(),
            read_timeout_seconds=self.config.timeout,
            mode=self.config.protocol,
            message_handler=self._on_message,
            elicitation_callback=elicitation_callback(self.config.name, self.person.ask, self.person_time),
            client_info=types.Implementation(name="tool-use-agent", version="0.1"),
        )
        context = self._portal.wrap_async_context_manager(client)
        try:
            context.__enter__()  # spawn or connect, then the handshake, bounded by read_timeout_seconds
        except Exception as e:
            failure = start_failure(e, self._refused)
            raise McpUnavailable(f"MCP server {self.config.name!r} {failure}") from None
        self._context, self._client = context, client
        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            self._listening = self._portal.start_task_soon(listen_for_changes, client, self._changed)
        return client

    def _changed(self, tools: bool, resources: bool) -> None:
        self.tools_changed = self.tools_changed or tools
        self.resources_changed = self.resources_changed or resources

    @contextlib.contextmanager
    def person_time(self) -> Iterator[None]:
        """While the person answers a server's question, the requests waiting on it do not time out."""
        paused = {scope: scope.deadline - anyio.current_time() for scope in self._waiting}
        for scope in paused:
            scope.deadline = math.inf
        try:
            yield
        finally:
            for scope, left in paused.items():
                scope.deadline = anyio.current_time() + left

    async def _on_message(self, message: Any) -> None:
        """The 2025 revisions' change notifications, on the session."""
        self._changed(
            isinstance(message, types.ToolListChangedNotification),
            isinstance(message, types.ResourceListChangedNotification),
        )

    def _transport(self) -> Any:
        if self.config.url:
            auth = None
            if not any(k.lower() == "authorization" for k in self.config.headers):
                tokens = self._log_dir / "mcp-tokens.json"
                auth = oauth_provider(self.config.url, self.config.oauth, tokens, self._open_url)
            headers = dict(self.config.headers)
            if self.config.users == "per-person" and "AGENT_USER" in self.identity:
                headers["X-On-Behalf-Of"] = self.identity["AGENT_USER"]  # whom this connection acts for
            http = httpx2.AsyncClient(
                headers=headers,
                timeout=self.config.timeout,
                auth=auth,
                event_hooks={"response": [self._note_refusal]},
            )
            return streamable_http_client(self.config.url, http_client=http)
        self._log_dir.mkdir(parents=True, exist_ok=True)
        errlog = (self._log_dir / f"mcp-{self.config.name}.log").open("a", encoding="utf-8")
        # never this process's environment (keys, database passwords): the SDK's safe defaults, what the
        # entry itself sets, and who the person is (which the entry cannot change)
        env = {**(self.config.env or {}), **self.identity}
        params = StdioServerParameters(
            command=self.config.command or "", args=list(self.config.args), env=env, cwd=self.config.cwd
        )
        return stdio_client(params, errlog=errlog)

    def close(self, failed: Client | None = None) -> None:
        """Close the connection (only if it is still `failed`'s, when given: another thread may have
        opened a fresh one meanwhile)."""
        with self._lock:
            if failed is not None and self._client is not failed:
                return
            context, self._context, self._client = self._context, None, None
            listening, self._listening = self._listening, None
        if listening is not None:
            listening.cancel()
        if context is not None:
            with contextlib.suppress(Exception):  # a dead server's transport may fail to close: it is gone
                context.__exit__(None, None, None)

    async def _note_refusal(self, response: httpx2.Response) -> None:
        """The SDK turns a 401 into "error response": keep the status, to say what went wrong."""
        if response.status_code in (401, 403):
            self._refused = response.status_code

    async def _open_url(self, url: str) -> None:
        if self.person.open_url is None:
            raise NeedsAuthorization(url)
        with self.person_time():
            await self.person.open_url(url)
