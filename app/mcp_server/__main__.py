"""`python -m app.mcp_server`: this project's tools, device models and tasks as an MCP server (stdio;
`--http PORT` for streamable HTTP on 127.0.0.1, resumable).

The tutorial's `weather_server.py` idea, done with our tools on the generic server of `app/mcp_server/`:
Tools (the registry the composition root builds, as for the chat), Resources (the device models,
`app/mcp_server/device_models.py`) and Prompts (the tutorial's tasks, `app/mcp_server/tasks.py`). Without
ADD_MODEL_URL it starts the embedded device service, as `main.py` does. `--with-fixtures MODULE` also
serves the tools, prompts and resources of MODULE's `EXTRAS` (`app/mcp_server/extras.py`; the
conformance suite's fixtures are `conformance.fixtures`).
"""

from __future__ import annotations

import argparse
import sys
import uuid
from contextlib import ExitStack
from dataclasses import replace

from agent import tracing
from agent.config import Settings
from agent.guards import safe
from agent.types import ConfigError
from app.host import Front, build_host
from app.mcp_server.device_models import CHANGES, DeviceModels
from app.mcp_server.extras import load_extras
from app.mcp_server.prompts import Prompts
from app.mcp_server.resources import Resources
from app.mcp_server.serve import build_server, serve
from app.mcp_server.settings import mcp_server_settings
from app.mcp_server.tasks import TASKS
from app.mcp_server.tools import confirm_through_elicitation
from tools import default_tools
from tools.device_service import device_service_url

INSTRUCTIONS = "The tutorial's device-model database (codes such as CPH2223) and tools to change it."


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m app.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp"
    )
    parser.add_argument(
        "--with-fixtures", metavar="MODULE", help="also serve MODULE's EXTRAS (e.g. conformance.fixtures)"
    )
    args = parser.parse_args()
    settings = Settings()
    try:
        bounds = mcp_server_settings()
        extras = load_extras(args.with_fixtures)
        with ExitStack() as stack:
            tracing.start(stack)  # when OTEL_EXPORTER_OTLP_ENDPOINT is set: a caller's trace goes on here
            service = device_service_url(stack)
            tools = [*default_tools(service), *extras.tools]
            host = build_host(settings, stack, tools, Front(confirm_through_elicitation), model=False)
            # who calls through this server: the signed-in user (AGENT_USER, as the chat tells a server it
            # starts), whose model's reading is unknown here: every write is confirmed by the person
            caller = replace(host.context(settings.agent_user, f"mcp-{uuid.uuid4().hex[:8]}"), untrusted=None)
            resources = Resources(DeviceModels(service), extras.resources)
            prompts = Prompts({**TASKS, **extras.prompts})
            server = build_server(
                "tool-use-agent", INSTRUCTIONS, host.registry, caller, resources, prompts, CHANGES, bounds
            )
            serve(server, args.http, bounds.session_idle_seconds)
    except ConfigError as e:
        print(f"error: {safe(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: uvicorn has shut down, and passes the signal on
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
