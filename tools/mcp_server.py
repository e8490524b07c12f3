"""`python -m tools.mcp_server`: this project's own tools, device models and tasks as an MCP server
(stdio; `--http PORT` for streamable HTTP on 127.0.0.1, resumable: an event store and a retry interval).

The tutorial's `weather_server.py` idea, done with our tools: the three capabilities of its MCP section,
Tools (`tools/mcp_tools.py`), Resources (`tools/mcp_resources.py`) and Prompts (`tools/mcp_prompts.py`),
plus logging, completion and progress, on the official `mcp` SDK's low-level Server.
Without ADD_MODEL_URL it starts the embedded device service, as `main.py` does.
`--with-fixtures MODULE` also serves the tools, prompts and resources of MODULE's `EXTRAS`
(`tools/mcp_extras.py`; the conformance suite's fixtures are `conformance.fixtures`).
"""

from __future__ import annotations

import argparse
import sys
import uuid
import warnings
from contextlib import ExitStack
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning

from agent.audit import AuditLog
from agent.config import Settings, load_permissions
from agent.tools import FunctionTool, ToolRegistry
from agent.types import ConfigError, ToolContext
from tools import default_tools
from tools.device_service import device_service_url
from tools.mcp_events import MemoryEventStore
from tools.mcp_extras import Extras, load_extras
from tools.mcp_prompts import TASKS, Prompts
from tools.mcp_resources import DeviceCatalog, DeviceResources
from tools.mcp_tools import ToolHandlers, confirm_through_elicitation, tool_annotations

__all__ = ["build_registry", "build_server", "main", "tool_annotations"]
RETRY_MS = 1000  # how long a client waits before reconnecting to a dropped stream
# the spec of 2026-07-28 deprecates logging; this server still serves the clients of the versions before
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


def build_registry(
    models_url: str, audit: AuditLog | None = None, extra_tools: tuple[FunctionTool, ...] = ()
) -> ToolRegistry:
    """Every tool of `tools/__init__.py` (and `extra_tools`); those that need confirmation ask the
    client's person."""
    registry = ToolRegistry(confirm=confirm_through_elicitation, audit=audit)
    for tool in [*default_tools(models_url), *extra_tools]:
        registry.register(tool)
    return registry


def build_server(
    registry: ToolRegistry, host: ToolContext, models_url: str, extras: Extras | None = None
) -> Server:
    extras = extras or Extras()
    tools = ToolHandlers(registry, host)
    resources = DeviceResources(DeviceCatalog(models_url), extras.resources)
    prompts = Prompts({**TASKS, **extras.prompts})
    return DeviceServer(
        "tool-use-agent",
        version="0.1",
        instructions="The tutorial's device-model database (codes such as CPH2223) and tools to change it.",
        on_list_tools=tools.list_tools,
        on_call_tool=tools.call_tool,
        on_set_logging_level=tools.set_level,
        on_list_resources=resources.list_resources,
        on_list_resource_templates=resources.list_templates,
        on_read_resource=resources.read,
        on_completion=resources.complete,
        on_list_prompts=prompts.list_prompts,
        on_get_prompt=prompts.get_prompt,
    )


class DeviceServer(Server):
    """Announces `resources.listChanged` on every transport (the HTTP session manager asks for defaults)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        announced = notification_options or NotificationOptions(resources_changed=True)
        return super().create_initialization_options(announced, experimental_capabilities, extensions)


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp"
    )
    parser.add_argument(
        "--with-fixtures", metavar="MODULE", help="also serve MODULE's EXTRAS (e.g. conformance.fixtures)"
    )
    args = parser.parse_args()
    settings = Settings()
    try:
        extras = load_extras(args.with_fixtures)
        with ExitStack() as stack:
            models_url = device_service_url(settings, stack)
            registry = build_registry(models_url, AuditLog(settings.audit_log), extras.tools)
            serve(build_server(registry, host_context(settings), models_url, extras), args.http)
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


def host_context(settings: Settings) -> ToolContext:
    """Who calls through this server: the signed-in user of this machine, as in the chat."""
    return ToolContext(
        user_id=settings.agent_user,
        run_id=f"mcp-{uuid.uuid4().hex[:8]}",
        permissions=load_permissions(settings.permissions_file, settings.agent_user),
    )


def serve(server: Server, http_port: int | None) -> None:
    if http_port is None:
        anyio.run(serve_stdio, server)
        return
    import uvicorn

    app = server.streamable_http_app(event_store=MemoryEventStore(), retry_interval=RETRY_MS)
    uvicorn.run(app, host="127.0.0.1", port=http_port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
