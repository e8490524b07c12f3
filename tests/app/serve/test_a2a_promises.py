"""The A2A face keeps the promises the OpenAI face keeps about approvals and retries, counted at the tool
(the device service's rows and the audit's "ran" lines), on SQLite and Postgres, 4 workers:

- a follow-up that names only its task runs in that task's conversation: a "yes" runs the call the task
  showed, once; a "no" refuses it for good; a contextId other than the task's is the SDK's error;
- a task's last state is its turn's outcome: after a "no", a call that waits for approval again is shown
  (`input-required` with its `pending_approval`), and a refusal is said in the task's history;
- a yes or no answers only the approval its own task showed: a bare "ok" in a new task answers nothing;
- a message sent again with the same messageId and no taskId nor contextId finds the same task and
  conversation and never runs twice.
"""

from __future__ import annotations

import uuid

import pytest
from a2a.types.a2a_pb2 import Message, Part, Role, TaskState
from a2a.utils.errors import InvalidParamsError

from tests.app.serve.test_a2a_approval import asked_to_delete, ran
from tests.support.a2a_support import A2A, data_of, text_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import devices


def on_task(words: str, task_id: str, context_id: str = "", message_id: str = "") -> Message:
    """A message that names its task, and its context only if given (A2A allows either)."""
    return Message(
        message_id=message_id or uuid.uuid4().hex,
        role=Role.ROLE_USER,
        parts=[Part(text=words)],
        task_id=task_id,
        context_id=context_id,
    )


def codes(agent) -> list[str]:
    return [model for model, _ in devices(agent.database)]


def history_says(task, words: str) -> bool:
    return any(words in text_of(message.parts) for message in task.history)


def test_a_yes_that_names_only_its_task_runs_the_call_it_showed_once(agent):
    asked = asked_to_delete(agent, "A7010", "prom_del1", "dana")
    agent.llm.add(text("Deleted A7010."))
    done = A2A(agent, "dana").send_message(on_task("yes", asked.id))
    assert (done.id, done.context_id, done.status.state) == (
        asked.id,
        asked.context_id,
        TaskState.TASK_STATE_COMPLETED,
    )
    assert text_of(done.artifacts[0].parts) == "Deleted A7010."
    assert "A7010" not in codes(agent)
    assert ran(agent, "prom_del1").count("ran") == 1


def test_a_no_that_names_only_its_task_refuses_for_good_and_a_later_ok_runs_nothing(agent):
    asked = asked_to_delete(agent, "A7020", "prom_del2", "dana")
    agent.llm.add(text("Kept A7020."))
    kept = A2A(agent, "dana").send_message(on_task("no", asked.id))
    assert (kept.context_id, kept.status.state) == (asked.context_id, TaskState.TASK_STATE_COMPLETED)
    assert history_says(kept, "refused")
    agent.llm.add(text("ok then"))
    A2A(agent, "dana").task("ok", context_id=asked.context_id)
    assert "A7020" in codes(agent)
    assert "ran" not in ran(agent, "prom_del2")


def test_a_context_id_other_than_the_tasks_is_the_sdks_error_and_runs_nothing(agent):
    asked = asked_to_delete(agent, "A7030", "prom_del3", "dana")
    with pytest.raises(InvalidParamsError):
        A2A(agent, "dana").send_message(on_task("yes", asked.id, context_id="ctx-" + uuid.uuid4().hex))
    assert "A7030" in codes(agent)
    assert "ran" not in ran(agent, "prom_del3")


def test_after_a_no_the_next_approval_the_turn_waits_for_is_shown_not_hidden_by_rejected(agent):
    asked = asked_to_delete(agent, "A7040", "prom_del4", "dana")
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "A7040"}, "prom_del5")))
    again = A2A(agent, "dana").send_message(on_task("no", asked.id))
    assert again.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
    assert history_says(again, "refused")
    [pending] = data_of(again.status.message.parts)
    assert pending["pending_approval"]["tool_call_id"] == "prom_del5"
    agent.llm.add(text("ok then"))
    A2A(agent, "dana").task("ok", context_id=asked.context_id)  # a new task: it answers nothing
    assert "A7040" in codes(agent)
    assert "ran" not in ran(agent, "prom_del4") + ran(agent, "prom_del5")


def test_a_bare_ok_in_a_new_task_never_answers_the_approval_another_task_showed(agent):
    asked = asked_to_delete(agent, "A7050", "prom_del6", "dana")
    agent.llm.add(text("Nothing to do."))
    other = A2A(agent, "dana").task("ok", context_id=asked.context_id)
    assert other.id != asked.id
    assert "A7050" in codes(agent)
    answered = A2A(agent, "dana").send_message(on_task("yes", asked.id))  # the approval is gone now
    assert answered.status.state == TaskState.TASK_STATE_FAILED
    assert "A7050" in codes(agent)
    assert "ran" not in ran(agent, "prom_del6")


def test_the_same_message_sent_again_without_a_context_finds_its_task_and_runs_once(agent):
    dana = A2A(agent, "dana")
    agent.llm.add(tool_calls(call("add_device_model", {"model": "A7060"}, "prom_add1")), text("added A7060"))
    sent = on_task("add A7060", "", message_id="msg-" + uuid.uuid4().hex)
    first = dana.send_message(sent)
    asked = len(agent.llm.requests)
    again = dana.send_message(sent)
    assert (again.id, again.context_id, again.status.state) == (
        first.id,
        first.context_id,
        TaskState.TASK_STATE_COMPLETED,
    )
    assert text_of(again.artifacts[0].parts) == "added A7060"
    assert len(agent.llm.requests) == asked  # answered again from what is stored
    assert codes(agent).count("A7060") == 1
    assert ran(agent, "prom_add1").count("ran") == 1
    agent.llm.add(text("bob's own turn"))
    bobs = A2A(agent, "bob").send_message(sent)  # the same id from another person: their own task
    assert bobs.id != first.id
