"""`python -m tools.mcp_server`: this project's own tools as an MCP server (stdio; `--http PORT` for HTTP).

The tutorial's `weather_server.py` idea, done with our tools: the tool list of `tools/__init__.py`,
checked by the same ToolRegistry (validation, permissions, identity from the host, audit), published
with MCP annotations derived from each tool's `effect`, so a client can tell which tools only read.
A tool that needs the person's confirmation is not offered: this server cannot ask the person.
Without ADD_MODEL_URL it starts the embedded device service, as `main.py` does.
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from contextlib import ExitStack

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from agent.audit import AuditLog
from agent.config import Settings, load_permissions
from agent.tools import FunctionTool, ToolRegistry
from agent.types import ConfigError, ToolContext
from tools import default_tools
from tools.device_service import device_service_url


def build_registry(models_url: str, audit: AuditLog | None = None) -> ToolRegistry:
    registry = ToolRegistry(audit=audit)
    for tool in default_tools(models_url):
        if not tool.needs_confirmation:
            registry.register(tool)
    return registry


def tool_annotations(tool: FunctionTool) -> types.ToolAnnotations:
    """MCP's hints, from the tool's class; every tool here acts on this project's own services."""
    return types.ToolAnnotations(
        read_only_hint=tool.effect == "read",
        destructive_hint=tool.effect == "destructive",
        idempotent_hint=tool.effect == "read" or tool.idempotent,
        open_world_hint=False,
    )


def build_server(registry: ToolRegistry, host: ToolContext) -> Server:
    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=registry.model_schema(tool),
                    annotations=tool_annotations(tool),
                )
                for tool in registry.tools()
            ]
        )

    async def call_tool(ctx: object, params: types.CallToolRequestParams) -> types.CallToolResult:
        call = {"name": params.name, "args": params.arguments or {}, "id": f"mcp_{uuid.uuid4().hex[:12]}"}
        envelope = json.loads(await anyio.to_thread.run_sync(registry.execute_tool_call, host, call))
        payload = envelope["data"] if envelope["ok"] else envelope["error"]
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        structured = payload if envelope["ok"] and isinstance(payload, dict) else None
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=structured,
            is_error=not envelope["ok"],
        )

    return Server("tool-use-agent", version="0.1", on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server) -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp"
    )
    args = parser.parse_args()
    settings = Settings()
    try:
        with ExitStack() as stack:
            registry = build_registry(device_service_url(settings, stack), AuditLog(settings.audit_log))
            serve(build_server(registry, host_context(settings)), args.http)
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

    uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=http_port, log_level="warning")


if __name__ == "__main__":
    sys.exit(main())
