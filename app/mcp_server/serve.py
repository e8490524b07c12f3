"""An MCP server for a ToolRegistry, with the prompts and resources given, on stdio or streamable HTTP.

The tutorial's `weather_server.py` idea, for any registry: `build_server` puts together the handlers of
the three capabilities (Tools, Resources with subscriptions, Prompts) plus logging, completion and progress
on the official `mcp` SDK's low-level Server; `serve` runs it on stdio, or on 127.0.0.1:PORT/mcp over
streamable HTTP, resumable (an event store, and a retry interval clients wait before reconnecting). Both
eras are served, as the SDK does it: the 2025 revisions (the initialize handshake, a session) and
2026-07-28 (each request on its own; list changes and resource updates on subscriptions/listen, questions
in results whose sealed state the SDK checks, lists with cache hints).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.caching import CacheHint
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler
from mcp.shared.exceptions import MCPDeprecationWarning

from agent.tools import ToolRegistry
from agent.types import ToolContext
from app.mcp_server.events import MemoryEventStore
from app.mcp_server.prompts import Prompts
from app.mcp_server.resources import Resources
from app.mcp_server.settings import McpServerSettings
from app.mcp_server.subscribers import Subscribers
from app.mcp_server.subscriptions import Subscriptions
from app.mcp_server.tools import ToolHandlers
from plumbing.sockets import listening_socket

RETRY_MS = 1000  # how long a client waits before reconnecting to a dropped stream
# the spec of 2026-07-28 deprecates logging; this server still serves the clients of the versions before
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
STABLE_MS = 10 * 60 * 1000  # lists that change only with the server's code: tools, templates, prompts
# How long a client may keep a list (2026-07-28). The device models change on every write: never kept.
# The tools offered depend on what the client can do (ask its person): kept by that client only.
CACHE_HINTS: dict[Any, CacheHint] = {
    "tools/list": CacheHint(ttl_ms=STABLE_MS, scope="private"),
    "resources/list": CacheHint(ttl_ms=0, scope="private"),
    "resources/read": CacheHint(ttl_ms=0, scope="private"),
    "resources/templates/list": CacheHint(ttl_ms=STABLE_MS, scope="public"),
    "prompts/list": CacheHint(ttl_ms=STABLE_MS, scope="public"),
}


def build_server(
    name: str,
    instructions: str,
    registry: ToolRegistry,
    host: ToolContext,
    resources: Resources | None = None,
    prompts: Prompts | None = None,
    changes: Mapping[str, tuple[str, ...]] | None = None,
    settings: McpServerSettings | None = None,
) -> Server:
    """The server of `registry`'s tools, run for `host` (whose identity and permissions every call gets);
    `changes`: the resources (URIs, URI templates) each tool's successful runs change; `settings`: its
    bounds (the defaults when None)."""
    settings = settings or McpServerSettings()
    bus = InMemorySubscriptionBus()
    resources = resources or Resources()
    holders = Subscribers(settings.subscriptions_per_session, settings.subscriptions)
    subscriptions = Subscriptions(resources, bus, holders)
    tools = ToolHandlers(registry, host, changes or {}, bus, subscriptions.check_soon)
    prompts = prompts or Prompts({})
    server = ResourcefulServer(
        name,
        version="0.1",
        instructions=instructions,
        cache_hints=CACHE_HINTS,
        lifespan=subscriptions.watching,
        on_subscriptions_listen=subscriptions.listen(ListenHandler(bus)),
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        on_set_logging_level=tools.set_level,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.read,
        on_subscribe_resource=subscriptions.subscribe,
        on_unsubscribe_resource=subscriptions.unsubscribe,
        on_completion=resources.complete,
        on_list_prompts=prompts.list_prompts,
        on_get_prompt=prompts.get_prompt,
    )
    # the answers of earlier rounds come back from the client: sealed, and bound to the call they answer
    server.middleware.append(RequestStateBoundary(RequestStateSecurity.ephemeral(), default_audience=name))
    return server


class ResourcefulServer(Server):
    """Announces `resources.listChanged` on every transport (the HTTP session manager asks for defaults)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        announced = notification_options or NotificationOptions(resources_changed=True)
        return super().create_initialization_options(announced, experimental_capabilities, extensions)


def serve(server: Server, http_port: int | None, idle_seconds: float | None = None) -> None:
    """Run `server` until its client leaves (stdio) or the process is stopped (HTTP on `http_port`, 0: any
    free port, where a session idle for `idle_seconds` ends: the default setting's when None). Over HTTP it
    says its URL in one line on stderr once it serves."""
    if http_port is None:
        anyio.run(_serve_stdio, server)
        return
    from app.mcp_server.announced import AnnouncedServer  # uvicorn: only over HTTP

    idle = idle_seconds or McpServerSettings().session_idle_seconds
    app = server.streamable_http_app(
        event_store=MemoryEventStore(), retry_interval=RETRY_MS, session_idle_timeout=idle
    )
    sock = listening_socket("127.0.0.1", http_port)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/mcp"
    AnnouncedServer(app, f"MCP server (streamable HTTP) at {url} — Ctrl-C stops it").run(sockets=[sock])


async def _serve_stdio(server: Server) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
