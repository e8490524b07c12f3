"""Informational: start-up, chat turns and tool turns of the embedded default (SmolLM2-135M with the demo
model's plug-in), and tokens/s of the model itself.

A turn runs as the loop runs it (answer stated by the host first, else the chat model's reply; a tool
turn's calls run through the registry against a real device service, then the host states the results),
so the figures are the turn's own, without `main.py`'s start-up. Chat turns: greetings, who it is, thanks,
and questions it cannot answer; tool turns: an add, a query, a list, a sum, the clock.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import requests
from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage

from agent.guards import untrusted
from agent.llm_wrapper import CustomLLMWrapper
from agent.memory import person_message
from agent.tools import ToolRegistry
from agent.types import ToolContext
from app.models.embedded.plugin import demo_plugin
from app.models.embedded.runtime import LocalModelServer, cores
from devicedb.server import BackgroundService
from tools import default_tools

STORY = [{"role": "user", "content": "Write a short story about a phone that learns to talk."}]
CHAT = ["你好", "hello", "你好呀，今天辛苦了", "who are you?", "你是谁？", "thanks!", "谢谢你",
        "What is the capital of Australia?", "法国的首都是哪里？", "I like green phones"]  # fmt: skip
TOOL = ["把机型 CPH2223 添加到数据库", "Is CPH2223 in the database?", "How many models are stored?",
        "12 乘以 3 是多少？", "北京现在几点？"]  # fmt: skip
ROUNDS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="times each prompt runs")
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory() as folder, BackgroundService(Path(folder) / "d.db") as service:
        registry = ToolRegistry(confirm=lambda name, args, ctx: True)
        for tool in default_tools(f"{service.url}/api/models"):
            registry.register(tool)
        start = time.perf_counter()
        with LocalModelServer() as server:
            print(f"server start-up ({cores()} threads)      {time.perf_counter() - start:6.2f} s")
            parts = demo_plugin(
                CustomLLMWrapper(base_url=server.base_url, temperature=0, max_tokens=80, timeout=600)
            )(registry)
            chat = [turn_seconds(parts, registry, said) for _ in range(rounds) for said in CHAT]
            tools = [turn_seconds(parts, registry, said) for _ in range(rounds) for said in TOOL]
            for label, times in (("chat", chat), ("tool", tools)):
                print(
                    f"{label} turn ({len(times)})",
                    f"p50 {_p(times, 50):6.2f} s   p95 {_p(times, 95):6.2f} s".rjust(50),
                )
            print(
                f"generation                      {generation(server.base_url):6.1f} tokens/s (median of 3)"
            )


def turn_seconds(parts, registry: ToolRegistry, said: str) -> float:
    """One turn as the loop runs it; its seconds. The first answer is printed, once per prompt."""
    start = time.perf_counter()
    turn: list[BaseMessage] = [person_message(said)]
    tools = parts.selector.select(registry.langchain_tools(), turn)
    model = parts.llm.bind_tools(tools)
    reply = model.invoke([SystemMessage("You are a helpful assistant."), *turn])
    if reply.tool_calls:  # the demo model's plan: run its calls, then its chat model states the result
        turn.append(reply)
        ctx = ToolContext(user_id="bench", permissions=frozenset({"add_model"}), user_text=(said,))
        for call in reply.tool_calls:
            envelope = registry.execute_tool_call(ctx.for_call(call["id"] or ""), call)
            turn.append(ToolMessage(untrusted(call["name"], envelope), tool_call_id=call["id"]))
        reply = model.invoke([SystemMessage("You are a helpful assistant."), *turn])
    answer = reply.text
    seconds = time.perf_counter() - start
    if said not in SHOWN:
        SHOWN.add(said)
        print(f"  {seconds:5.2f} s  {said[:28]:28} -> {' '.join(str(answer).split())[:70]}")
    return seconds


SHOWN: set[str] = set()


def generation(base_url: str) -> float:
    rates = []
    for _ in range(3):
        began = time.perf_counter()
        body = {"messages": STORY, "max_tokens": 200, "temperature": 0}
        answer = requests.post(f"{base_url}/chat/completions", json=body, timeout=300).json()
        rates.append(answer["usage"]["completion_tokens"] / (time.perf_counter() - began))
    return statistics.median(rates)


def _p(times: list[float], percent: int) -> float:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, round(percent / 100 * (len(ordered) - 1)))]


if __name__ == "__main__":
    main()
