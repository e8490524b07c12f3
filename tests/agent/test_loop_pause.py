"""The loop's pause for an approval: a Confirm that cannot ask now raises AwaitingApproval; the turn
stops with that call unanswered once the other calls of the reply have their results, and `resume()`
runs it (asking the Confirm again) and goes on, under the turn's run id."""

from __future__ import annotations

import pytest

from agent.memory import unanswered
from agent.types import AwaitingApproval
from tests.agent.test_host_rules import Other, Risky, audit_lines, make_agent, tool_messages
from tests.support.fake_llm import call, text, tool_calls


def test_a_turn_pauses_on_the_call_awaiting_approval_and_resume_runs_exactly_it(fake_llm, tmp_path):
    answers: list[bool] = []

    def confirm(name: str, args: dict, ctx) -> bool:
        if not answers:
            raise AwaitingApproval(name, args)
        return answers.pop()

    risky, other = Risky(), Other()
    agent = make_agent(fake_llm, tmp_path, risky, other, confirm=confirm)
    fake_llm.add(tool_calls(call("risky", {"x": 1}, "c1"), call("other", {"x": 2}, "c2")), text("done"))
    with pytest.raises(AwaitingApproval) as paused:
        agent.send_message("go", run_id="run42")
    waiting = paused.value
    assert (waiting.name, waiting.arguments, waiting.call_id, waiting.run_id) == (
        "risky",
        {"x": 1},
        "c1",
        "run42",
    )
    assert risky.seen == [] and other.seen == [{"x": 2, "user_id": "alice"}]
    assert [c["id"] for c in unanswered(agent.memory.history())] == ["c1"]
    assert len(fake_llm.requests) == 1  # the turn stopped: the model was not asked again
    answers.append(True)
    assert agent.resume(waiting.run_id) == "done"
    assert risky.seen == [{"x": 1}]
    assert set(tool_messages(fake_llm.requests[1])) == {"c1", "c2"}
    decisions = [
        (line["call_id"], line["decision"], line["idempotency_key"]) for line in audit_lines(tmp_path)
    ]
    assert sorted(decisions[:2]) == [("c1", "awaiting_approval", "run42:c1"), ("c2", "ran", "run42:c2")]
    assert decisions[2:] == [("c1", "ran", "run42:c1")]  # the same idempotency key as when it was asked


def test_a_refusal_on_resume_answers_the_call_refused_and_the_model_goes_on(fake_llm, tmp_path):
    answers: list[bool] = []

    def confirm(name: str, args: dict, ctx) -> bool:
        if not answers:
            raise AwaitingApproval(name, args)
        return answers.pop()

    risky = Risky()
    agent = make_agent(fake_llm, tmp_path, risky, confirm=confirm)
    fake_llm.add(tool_calls(call("risky", {"x": 1}, "c1")), text("not done"))
    with pytest.raises(AwaitingApproval):
        agent.send_message("go")
    answers.append(False)
    assert agent.resume() == "not done" and risky.seen == []
    assert tool_messages(fake_llm.requests[1])["c1"]["error"].startswith("the person refused")
