"""One framework, one process: `python worker.py FRAMEWORK URL`, then lines "N" on stdin; for each, it
runs N conversations and prints one JSON list of their durations in seconds. Runs in this project's venv
(`ours`, `bare`) or in the peers' venv (`langchain`, `openai-agents`, `pydantic-ai`)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable

# What a run of each framework imports (its function below): timed as whole processes by import_cost.py.
RUN_IMPORTS = {
    "ours": "agent.agent, agent.llm_wrapper, agent.tools",
    "langchain": "langchain.agents, langchain_core.tools, langchain_openai",
    "openai-agents": "agents, openai",
    "pydantic-ai": "pydantic_ai, pydantic_ai.models.openai, pydantic_ai.providers.openai",
}


def noop() -> str:
    """Do nothing."""
    return "ok"


def ours(url: str) -> Callable[[], object]:
    from agent.agent import ChatAgent
    from agent.llm_wrapper import CustomLLMWrapper
    from agent.tools import FunctionTool, ToolRegistry

    class Noop(FunctionTool):
        name, description, parameters = "noop", "Do nothing.", {"type": "object", "properties": {}}

        def call(self, ctx: object, input: str) -> str:
            return "ok"

    registry = ToolRegistry()
    registry.register(Noop())
    llm = CustomLLMWrapper(base_url=url, api_key="x", model="bench")
    return lambda: ChatAgent(llm, registry, user_id="bench").send_message("go")


def bare(url: str) -> Callable[[], object]:
    """The engineering article's loop, with requests and nothing else."""
    import requests

    session = requests.Session()
    tools = [
        {
            "type": "function",
            "function": {
                "name": "noop",
                "description": "Do nothing.",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]

    def run() -> str:
        messages: list[dict] = [{"role": "user", "content": "go"}]
        for _ in range(8):
            message = session.post(
                f"{url}/chat/completions", json={"model": "bench", "messages": messages, "tools": tools}
            ).json()["choices"][0]["message"]
            if not message.get("tool_calls"):
                return message["content"]
            messages.append(message)
            for call in message["tool_calls"]:
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": noop()})
        raise RuntimeError("too many rounds")

    return run


def langchain(url: str) -> Callable[[], object]:
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    agent = create_agent(ChatOpenAI(base_url=url, api_key="x", model="bench"), tools=[tool(noop)])
    return lambda: agent.invoke({"messages": [{"role": "user", "content": "go"}]})


def openai_agents(url: str) -> Callable[[], object]:
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI

    set_tracing_disabled(True)
    model = OpenAIChatCompletionsModel(model="bench", openai_client=AsyncOpenAI(base_url=url, api_key="x"))
    agent = Agent(name="bench", instructions="", model=model, tools=[function_tool(noop)])
    return lambda: Runner.run_sync(agent, "go")


def pydantic_ai(url: str) -> Callable[[], object]:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    agent = Agent(OpenAIChatModel("bench", provider=OpenAIProvider(base_url=url, api_key="x")), tools=[noop])
    return lambda: agent.run_sync("go")


FRAMEWORKS = {
    "ours": ours,
    "bare": bare,
    "langchain": langchain,
    "openai-agents": openai_agents,
    "pydantic-ai": pydantic_ai,
}


def main() -> None:
    framework, url = sys.argv[1], sys.argv[2]
    conversation = FRAMEWORKS[framework](url)
    print("ready", flush=True)
    for line in sys.stdin:
        durations = []
        for _ in range(int(line)):
            start = time.perf_counter()
            conversation()
            durations.append(time.perf_counter() - start)
        print(json.dumps(durations), flush=True)


if __name__ == "__main__":
    main()
