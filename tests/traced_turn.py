"""A turn inside a caller's trace, the way a served agent runs a request that carries a W3C `traceparent`:
`python -m tests.traced_turn LLM_URL TRACEPARENT DEVICE_DB` prints the answer. Tracing starts as in
`main.py` (OTEL_* variables); the device service runs embedded, on DEVICE_DB."""

from __future__ import annotations

import sys
from contextlib import ExitStack

from agent import tracing
from agent.agent import ChatAgent
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import ToolRegistry
from devicedb.server import BackgroundService
from tools.model_tool import AddModelTool


def main(llm_url: str, traceparent: str, device_db: str) -> None:
    with ExitStack() as stack:
        tracing.start(stack)
        service = stack.enter_context(BackgroundService(device_db))
        registry = ToolRegistry()
        registry.register(AddModelTool(f"{service.url}/api/models"))
        llm = CustomLLMWrapper(base_url=llm_url, api_key="k", model="fake-model")
        agent = stack.enter_context(ChatAgent(llm, registry, permissions=frozenset({"add_model"})))
        with tracing.continue_trace({"Traceparent": traceparent}):  # header names in any case
            print(agent.send_message("Add model CPH2411 to the database"))


if __name__ == "__main__":
    main(*sys.argv[1:4])
