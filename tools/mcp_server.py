"""`python -m tools.mcp_server`: this project's own tools as an MCP server (stdio; `--http PORT` for HTTP).

The tutorial's `weather_server.py` idea, done with our tools: the same FunctionTool classes, checked by
the same ToolRegistry (validation, permissions, identity from the host, audit), published with MCP
annotations so a client can tell which tools only read. Without ADD_MODEL_URL it starts the embedded
device service, as `main.py` does.
"""

from __future__ import annotations

import argparse
import json
import uuid
from contextlib import ExitStack

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from agent.audit import AuditLog
from agent.config import Settings, load_permissions
from agent.tools import ToolRegistry
from agent.types import ToolContext
from tools.calculator import CalculatorTool
from tools.current_time import CurrentTimeTool
from tools.model_tool import AddModelTool, QueryModelTool

READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
ANNOTATIONS = {
    "add_device_model": types.ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    "query_device_model": READ_ONLY,
    "calculator": READ_ONLY,
    "current_time": READ_ONLY,
}


def build_registry(models_url: str, audit: AuditLog | None = None) -> ToolRegistry:
    registry = ToolRegistry(audit=audit)
    for tool in (AddModelTool(models_url), QueryModelTool(models_url), CalculatorTool(), CurrentTimeTool()):
        registry.register(tool)
    return registry


def build_server(registry: ToolRegistry, host: ToolContext) -> Server:
    async def list_tools(ctx: object, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=t["function"]["name"],
                    description=t["function"]["description"],
                    input_schema=t["function"]["parameters"],
                    annotations=ANNOTATIONS[t["function"]["name"]],
                )
                for t in registry.langchain_tools()
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


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp"
    )
    args = parser.parse_args()
    settings = Settings()
    with ExitStack() as stack:
        from devicedb.server import models_url

        registry = build_registry(
            models_url(settings.add_model_url, settings.device_db, stack), AuditLog(settings.audit_log)
        )
        host = ToolContext(
            user_id=settings.agent_user,
            run_id=f"mcp-{uuid.uuid4().hex[:8]}",
            permissions=load_permissions(settings.permissions_file, settings.agent_user),
        )
        server = build_server(registry, host)
        if args.http is None:
            anyio.run(serve_stdio, server)
        else:
            import uvicorn

            uvicorn.run(server.streamable_http_app(), host="127.0.0.1", port=args.http, log_level="warning")


if __name__ == "__main__":
    main()
