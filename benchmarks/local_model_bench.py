"""Informational: start-up, a planned tool turn, a chat reply, and tokens/s of the embedded SmolLM2-135M."""

from __future__ import annotations

import statistics
import time

import requests
from langchain_core.messages import SystemMessage

from agent.llm_wrapper import CustomLLMWrapper
from agent.memory import person_message
from agent.models.embedded.plugin import demo_plugin
from agent.models.embedded.runtime import LocalModelServer, cores
from agent.tools import ToolRegistry
from tools import default_tools

STORY = [{"role": "user", "content": "Write a short story about a phone that learns to talk."}]


def main() -> None:
    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        if tool.effect != "destructive":
            registry.register(tool)
    start = time.perf_counter()
    with LocalModelServer() as server:
        print(f"server start-up ({cores()} threads)      {time.perf_counter() - start:6.2f} s")
        parts = demo_plugin(CustomLLMWrapper(base_url=server.base_url, temperature=0))(registry)
        model = parts.llm.bind_tools(registry.langchain_tools())
        for said in ("把机型 CPH2223 添加到数据库", "Hello there!"):
            start = time.perf_counter()
            reply = model.invoke([SystemMessage("You are a helpful assistant."), person_message(said)])
            shown = reply.tool_calls[0]["args"] if reply.tool_calls else reply.text[:60]
            print(f"{said[:24]:24}        {time.perf_counter() - start:6.2f} s   -> {shown}")
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
