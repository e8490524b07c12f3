"""The loop's Steps hook (agent/steps.py): every request to the model and every tool call goes through it,
in order, over real loopback HTTP; a hook's result is what the loop uses; a hook that runs its steps in
order (concurrent False) gets the calls of one reply one after another, answered in call order."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage

from agent.agent import ChatAgent, TurnPolicy
from agent.guards import envelope_of
from agent.llm_wrapper import CustomLLMWrapper
from agent.steps import Steps
from agent.tools import Executed, ToolRegistry
from agent.types import ToolContext
from tests.fake_llm import call, text, tool_calls
from tests.test_agent_loop import Add, Slow


class Kept(Steps):
    """Keeps each step, as a recording host would; replays a tool's result when told to."""

    def __init__(self, concurrent: bool = True, replay: dict[str, Executed] | None = None) -> None:
        self.concurrent, self.replay = concurrent, replay or {}
        self.steps: list[str] = []

    def model(self, request: Callable[[], AIMessage]) -> AIMessage:
        self.steps.append("model")
        return request()

    def tool(self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[], Executed]) -> Executed:
        self.steps.append(f"tool {call['id']}")
        return self.replay.get(call["id"]) or run()


def agent(fake_llm, steps: Steps, *tools) -> ChatAgent:
    registry = ToolRegistry()
    for tool in tools:
        registry.register(tool)
    return ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, policy=TurnPolicy(steps=steps))


def test_each_model_request_and_tool_call_is_a_step_and_its_result_is_the_loops(fake_llm):
    kept = Kept(replay={"c2": Executed('{"ok": true, "data": 99}', True)})
    fake_llm.add(
        tool_calls(call("add", {"a": 1, "b": 2}, "c1"), call("add", {"a": 3, "b": 4}, "c2")),
        text("3 and 99"),
    )
    assert agent(fake_llm, kept, Add()).send_message("add") == "3 and 99"
    assert kept.steps == ["model", "tool c1", "tool c2", "model"]
    results = [envelope_of(m["content"]) for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert [result["data"] for result in results] == [3, 99]  # c2's as the hook said


def test_a_hook_that_runs_steps_in_order_gets_one_call_after_another(fake_llm):
    kept = Kept(concurrent=False)
    fake_llm.add(tool_calls(*[call("slow", {"i": i}, f"c{i}") for i in range(3)]), text("done"))
    Slow.spans = []
    agent(fake_llm, kept, Slow()).send_message("three")
    assert kept.steps == ["model", "tool c0", "tool c1", "tool c2", "model"]
    assert all(done <= began for (_, done), (began, _) in zip(Slow.spans, Slow.spans[1:], strict=False))
