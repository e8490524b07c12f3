"""Informational: start-up, one grammar-constrained decision, and tokens/s of the embedded SmolLM2-135M."""

from __future__ import annotations

import statistics
import time

import requests
from langchain_core.messages import HumanMessage, SystemMessage

from agent.llm_wrapper import CustomLLMWrapper
from agent.models.embedded.grammar import GrammarChatModel
from agent.models.embedded.runtime import LocalModelServer, cores
from agent.tools import ToolRegistry
from tools import default_tools

STORY = [{"role": "user", "content": "Write a short story about a phone that learns to talk."}]


def main() -> None:
    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        registry.register(tool)
    start = time.perf_counter()
    with LocalModelServer() as server:
        print(f"server start-up ({cores()} threads)      {time.perf_counter() - start:6.2f} s")
        model = GrammarChatModel(
            inner=CustomLLMWrapper(base_url=server.base_url, temperature=0), registry=registry
        )
        ask = [SystemMessage("You are a helpful assistant."), HumanMessage("把机型 CPH2223 添加到数据库")]
        tools = [t for t in registry.langchain_tools() if t["function"]["name"] == "add_device_model"]
        start = time.perf_counter()
        call = model.bind_tools(tools).invoke(ask).tool_calls
        print(f"first decision (a tool call)    {time.perf_counter() - start:6.2f} s   -> {call[0]['args']}")
        rates = []
        for _ in range(3):
            began = time.perf_counter()
            body = {"messages": STORY, "max_tokens": 200, "temperature": 0}
            answer = requests.post(f"{server.base_url}/chat/completions", json=body, timeout=300).json()
            rates.append(answer["usage"]["completion_tokens"] / (time.perf_counter() - began))
        print(
            f"generation                      {statistics.median(rates):6.1f} tokens/s (median of 3, 200 max)"
        )


if __name__ == "__main__":
    main()
