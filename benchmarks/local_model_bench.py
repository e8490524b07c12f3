"""Informational: start-up, first-answer latency and tokens/s of the embedded SmolLM2-135M on this machine."""

from __future__ import annotations

import statistics
import time

import requests

from agent.llm.local_model import LocalModelServer
from tools.model_tool import AddModelTool

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": AddModelTool.name,
            "description": AddModelTool.description,
            "parameters": AddModelTool.parameters,
        },
    }
]
ASK = [
    {"role": "system", "content": "You are a helpful AI assistant."},
    {"role": "user", "content": "Please add device model CPH2411 to the database"},
]
STORY = [{"role": "user", "content": "Write a short story about a phone that learns to talk."}]


def timed(url: str, body: dict) -> tuple[float, dict]:
    start = time.perf_counter()
    answer = requests.post(f"{url}/chat/completions", json={"temperature": 0, **body}, timeout=300).json()
    return time.perf_counter() - start, answer


def main() -> None:
    start = time.perf_counter()
    with LocalModelServer() as server:
        print(f"server start-up                 {time.perf_counter() - start:6.2f} s")
        first, answer = timed(server.base_url, {"messages": ASK, "tools": TOOLS, "tool_choice": "auto"})
        call = answer["choices"][0]["message"].get("tool_calls", [{}])[0].get("function")
        print(f"first answer (a tool call)      {first:6.2f} s   -> {call}")
        rates = []
        for _ in range(3):
            elapsed, answer = timed(server.base_url, {"messages": STORY, "max_tokens": 200})
            rates.append(answer["usage"]["completion_tokens"] / elapsed)
        print(
            f"generation                      {statistics.median(rates):6.1f} tokens/s (median of 3, 200 max)"
        )


if __name__ == "__main__":
    main()
