"""The served agent's peer in `make bench`: PydanticAI's AG-UI app (`AGUIAdapter.dispatch_request`, what
`Agent.to_ag_ui()` became in pydantic-ai 2.x) on the scripted LLM with the same no-op tool. Runs in the
peers' venv: `python benchmarks/serve_peer.py LLM_URL PORT WORKERS`."""

from __future__ import annotations

import os
import sys

from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def noop() -> str:
    """Do nothing."""
    return "ok"


provider = OpenAIProvider(base_url=os.environ.get("PEER_LLM_URL", "http://127.0.0.1:1/v1"), api_key="x")
agent = Agent(OpenAIChatModel("bench", provider=provider), tools=[noop])


async def run(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


app = Starlette(routes=[Route("/agui", run, methods=["POST"])])

if __name__ == "__main__":
    import uvicorn

    url, port, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.environ["PEER_LLM_URL"] = url
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    uvicorn.run("serve_peer:app", host="127.0.0.1", port=port, workers=workers, log_level="warning")
