"""The loop's Steps hook (agent/steps.py): every tool call goes through it, over real loopback HTTP; the
hook's result is what the loop uses; its last word on a call comes after the person approved it, with
the final arguments, and may stop it (audited); calls of one reply run side by side still, each in a copy
of the loop thread's context (where a host keeps what the person answered)."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Mapping
from typing import Any

from agent.agent import ChatAgent, TurnPolicy
from agent.audit import AuditLog
from agent.guards import envelope_of
from agent.llm_wrapper import CustomLLMWrapper
from agent.steps import Steps
from agent.tools import Executed, FunctionTool, Starting, ToolRegistry
from agent.types import ToolContext
from tests.agent.test_agent_loop import Add
from tests.support.fake_llm import call, text, tool_calls

HOSTS = contextvars.ContextVar[str]("hosts", default="none")


class Kept(Steps):
    """Keeps each call, as a host would, with what the loop thread's context said; replays a result when
    told to."""

    def __init__(self, replay: dict[str, Executed] | None = None, stop: str | None = None) -> None:
        self.replay, self.stop = replay or {}, stop
        self.steps: list[tuple[str, str]] = []
        self.last_words: list[tuple[str, dict]] = []

    def tool(
        self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[Starting | None], Executed]
    ) -> Executed:
        self.steps.append((call["id"], HOSTS.get()))
        return self.replay.get(call["id"]) or run(self.starting)

    def starting(self, name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
        self.last_words.append((name, arguments))
        return ("stopped_by_host", self.stop) if self.stop else None


def agent(fake_llm, steps: Steps, *tools, confirm=None, audit=None) -> ChatAgent:
    asks = frozenset({"read"}) if confirm else frozenset()  # confirm even what only reads
    registry = ToolRegistry(confirm=confirm, audit=AuditLog(audit) if audit else None, confirm_effects=asks)
    for tool in tools:
        registry.register(tool)
    return ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, policy=TurnPolicy(steps=steps))


def test_each_tool_call_goes_through_the_hook_and_its_result_is_the_loops(fake_llm):
    kept = Kept(replay={"c2": Executed('{"ok": true, "data": 99}', True)})
    fake_llm.add(
        tool_calls(call("add", {"a": 1, "b": 2}, "c1"), call("add", {"a": 3, "b": 4}, "c2")),
        text("3 and 99"),
    )
    assert agent(fake_llm, kept, Add()).send_message("add") == "3 and 99"
    assert sorted(call_id for call_id, _ in kept.steps) == ["c1", "c2"]
    results = [envelope_of(m["content"]) for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert [result["data"] for result in results] == [3, 99]  # c2's as the hook said


class Together(FunctionTool):
    """Each call waits until all three have started: run one after another, the first waits in vain and
    fails (side by side is proven by the calls meeting, not by a clock a loaded machine can stretch)."""

    name, effect, description = "together", "read", "Wait for the other two calls."
    parameters = {"type": "object", "properties": {"i": {"type": "integer"}}}

    def __init__(self) -> None:
        self.met = threading.Barrier(3, timeout=30)

    def call(self, ctx: ToolContext, input: str) -> str:
        self.met.wait()  # BrokenBarrierError, a failed call, unless the three run at once
        return input


def test_calls_side_by_side_see_the_loop_threads_context(fake_llm):
    kept = Kept()
    fake_llm.add(tool_calls(*[call("together", {"i": i}, f"c{i}") for i in range(3)]), text("done"))
    HOSTS.set("the host's")
    assert agent(fake_llm, kept, Together()).send_message("three") == "done"
    assert sorted(kept.steps) == [("c0", "the host's"), ("c1", "the host's"), ("c2", "the host's")]
    results = [envelope_of(m["content"]) for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert [result["ok"] for result in results] == [True, True, True]  # they met: side by side


def test_the_hosts_last_word_comes_after_the_approval_and_may_stop_the_call(fake_llm, tmp_path):
    asked: list[str] = []

    def confirm(name: str, arguments: dict, ctx: ToolContext) -> bool:
        asked.append(name)
        assert kept.last_words == []  # asked first
        return True

    kept = Kept(stop="not now")
    fake_llm.add(tool_calls(call("add", {"a": 1, "b": 2}, "c1")), text("stopped"))
    audit = tmp_path / "audit.jsonl"
    assert agent(fake_llm, kept, Add(), confirm=confirm, audit=audit).send_message("add") == "stopped"
    assert asked == ["add"] and kept.last_words == [("add", {"a": 1, "b": 2})]
    answered = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert envelope_of(answered[0]["content"]) == {"ok": False, "error": "not now", "retryable": False}
    assert '"decision": "stopped_by_host"' in audit.read_text()
