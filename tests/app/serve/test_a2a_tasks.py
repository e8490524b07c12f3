"""A2A tasks on `main.py serve --workers 4`, through the official `a2a-sdk` client: a cancelled task's turn
stops before its next call and keeps what it did; tasks/list shows a person's own tasks, page by page; a
subscription follows a running task to its end, from any worker."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from a2a.types.a2a_pb2 import TaskState
from a2a.utils.errors import TaskNotFoundError, UnsupportedOperationError

from tests.app.serve.test_follow import held
from tests.support.a2a_support import A2A, metadata, text_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import devices


def test_cancel_stops_the_turn_before_its_next_call_and_keeps_what_it_did(agent):
    reached, release = threading.Event(), threading.Event()
    second = tool_calls(call("calculator", {"expression": "1+1"}, "cancel_c2"))
    first = tool_calls(call("add_device_model", {"model": "RMX4001"}, "cancel_c1"))
    agent.llm.add(first, held(reached, release, second))
    alice = A2A(agent, "alice", polling=True)
    task = alice.task("add RMX4001, then work out 1+1")
    assert reached.wait(30)
    cancelled = alice.cancel(task.id)
    release.set()
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    conversation = metadata(alice.get(task.id))["conversation_id"]
    assert _ended(agent, conversation) == "cancelled"
    assert ("RMX4001", "alice") in devices(agent.database)  # what it did is kept
    assert (_audited(agent, "cancel_c1"), _audited(agent, "cancel_c2")) == (["ran"], [])  # the next never ran
    assert alice.get(task.id).status.state == TaskState.TASK_STATE_CANCELED
    with pytest.raises(Exception, match="(?i)cancel"):
        alice.cancel(task.id)  # an ended task is not cancelable


def _audited(agent, call_id: str) -> list[str]:
    audit = [json.loads(line) for line in (agent.cwd / "audit.jsonl").read_text().splitlines()]
    return [line["decision"] for line in audit if line["call_id"] == call_id]


def _ended(agent, conversation: str) -> str:
    for _ in range(300):
        [(state,)] = agent.query("SELECT state FROM conversations WHERE id = ?", (conversation,))
        if state != "running":
            return state
        threading.Event().wait(0.1)
    raise AssertionError("the cancelled turn never ended")


def test_list_shows_a_persons_own_tasks_page_by_page_and_by_context(agent):
    agent.llm.add(text("one"), text("two"), text("three"))
    bob = A2A(agent, "bob")
    first = bob.task("first")
    second = bob.task("second", context_id=first.context_id)
    other = bob.task("elsewhere")
    agent.llm.add(text("alice's"))
    A2A(agent, "alice").task("mine")
    everything = bob.list(page_size=100)
    ids = [task.id for task in everything.tasks]
    assert {first.id, second.id, other.id} <= set(ids)
    assert all(task.id in ids for task in (first, second, other))
    assert len(ids) == everything.total_size  # alice's task is not bob's
    in_context = bob.list(context_id=first.context_id)
    assert [task.id for task in in_context.tasks] == [second.id, first.id]  # the latest first
    page = bob.list(page_size=1, context_id=first.context_id)
    assert [task.id for task in page.tasks] == [second.id] and page.next_page_token
    rest = bob.list(page_size=1, context_id=first.context_id, page_token=page.next_page_token)
    assert [task.id for task in rest.tasks] == [first.id] and not rest.next_page_token


def test_a_subscription_follows_a_running_task_to_its_end(agent):
    reached, release = threading.Event(), threading.Event()
    agent.llm.add(held(reached, release, text("Done at last.")))
    carol = A2A(agent, "carol", polling=True)
    task = carol.task("take your time")
    assert reached.wait(30)
    with ThreadPoolExecutor(1) as pool:
        following = pool.submit(A2A(agent, "carol", streaming=True).subscribe, task.id)
        threading.Event().wait(1.0)
        release.set()
        events = following.result(60)
    assert events[0].task.id == task.id
    last = events[-1].task if events[-1].HasField("task") else None
    last = last or carol.get(task.id)
    assert last.status.state == TaskState.TASK_STATE_COMPLETED
    assert text_of(carol.get(task.id).artifacts[0].parts) == "Done at last."
    with pytest.raises(UnsupportedOperationError):
        A2A(agent, "carol", streaming=True).subscribe(task.id)  # it has ended
    with pytest.raises(TaskNotFoundError):
        A2A(agent, "bob", streaming=True).subscribe(task.id)
