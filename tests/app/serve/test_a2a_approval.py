"""Approvals on the A2A face: a destructive call leaves the task `input-required`, asking about that exact
call; the person's "yes" on the task runs it, once, and completes the task; a "no" refuses it, saying so
in the task's history, and the task ends as its turn does: nothing is deleted. Through the official
`a2a-sdk` client, 4 workers."""

from __future__ import annotations

import json

import pytest
from a2a.types.a2a_pb2 import TaskState
from a2a.utils.errors import TaskNotFoundError

from agent.guards import envelope_of
from tests.support.a2a_support import A2A, data_of, text_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import devices


def asked_to_delete(agent, code: str, call_id: str, user: str = "alice"):
    """`user`'s task that added `code`, then was asked to delete it: the task waiting for them."""
    alice = A2A(agent, user)
    agent.llm.add(tool_calls(call("add_device_model", {"model": code}, f"add_{code}")), text("added"))
    added = alice.task(f"add {code}")
    assert (code, user) in devices(agent.database)
    agent.llm.add(tool_calls(call("delete_device_model", {"model": code}, call_id)))
    return alice.task(f"delete {code}", context_id=added.context_id)


def ran(agent, call_id: str) -> list[str]:
    audit = [json.loads(line) for line in (agent.cwd / "audit.jsonl").read_text().splitlines()]
    return [line["decision"] for line in audit if line["call_id"] == call_id]


def test_a_delete_leaves_the_task_input_required_and_yes_runs_it_once_and_completes(agent):
    asked = asked_to_delete(agent, "A6010", "a2a_del1")
    assert asked.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    question = asked.status.message
    assert 'Approval needed to run delete_device_model({"model": "A6010"})' in text_of(question.parts)
    [pending] = data_of(question.parts)
    assert (pending["pending_approval"]["name"], pending["pending_approval"]["arguments"]) == (
        "delete_device_model",
        {"model": "A6010"},
    )
    assert ("A6010", "alice") in devices(agent.database)  # not run
    agent.llm.add(text("Deleted A6010."))
    done = A2A(agent, "alice").task("yes", asked)
    assert (done.id, done.status.state) == (asked.id, TaskState.TASK_STATE_COMPLETED)
    assert text_of(done.artifacts[0].parts) == "Deleted A6010."
    assert "A6010" not in [model for model, _ in devices(agent.database)]
    result = agent.llm.requests[-1]["messages"][-1]
    assert (result["tool_call_id"], envelope_of(result["content"])["data"]) == (
        "a2a_del1",
        {"model": "A6010", "deleted": True},
    )
    assert ran(agent, "a2a_del1") == ["awaiting_approval", "ran"]
    assert A2A(agent, "alice").get(asked.id).status.state == TaskState.TASK_STATE_COMPLETED


def test_no_refuses_the_call_says_so_in_the_history_and_the_task_ends_as_its_turn_did(agent):
    asked = asked_to_delete(agent, "V2245", "a2a_del2")
    agent.llm.add(text("Kept V2245."))
    done = A2A(agent, "alice").task("no", asked)
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert any("refused" in text_of(message.parts) for message in done.history)
    assert text_of(done.artifacts[0].parts) == "Kept V2245."
    told = envelope_of(agent.llm.requests[-1]["messages"][-1]["content"])["error"]
    assert told.startswith("the person refused")
    assert ("V2245", "alice") in devices(agent.database)
    assert "ran" not in ran(agent, "a2a_del2")
    assert A2A(agent, "alice").get(asked.id).status.state == TaskState.TASK_STATE_COMPLETED


def test_a_streamed_task_stops_at_input_required_and_another_person_cannot_answer_it(agent):
    asked = asked_to_delete(agent, "CPH2319", "a2a_del3")
    with pytest.raises(TaskNotFoundError):
        A2A(agent, "bob").task("yes", asked)
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "CPH2319"}, "a2a_del4")))
    events = A2A(agent, "alice", streaming=True).send("delete it, please", context_id=asked.context_id)
    assert events[-1].status_update.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert ("CPH2319", "alice") in devices(agent.database)
    assert "ran" not in ran(agent, "a2a_del3") + ran(agent, "a2a_del4")
