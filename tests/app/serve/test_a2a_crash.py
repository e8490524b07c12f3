"""A durable A2A task: `kill -9` of the whole served agent in the middle of a task's turn, after its add ran
and while the model is asked what next; after a restart the turn is finished with nobody asking, and the
client's tasks/get sees the task completed with the answer, the add run once; a client that never got its
answer sends the same message again, with no context, and finds the same task. SQLite and Postgres."""

from __future__ import annotations

import threading
import time
import uuid

from a2a.types.a2a_pb2 import TaskState

from tests.app.serve.test_a2a_promises import on_task
from tests.app.serve.test_crash import agent_database, holding
from tests.support.a2a_support import A2A, text_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices


def test_a_task_cut_by_kill_9_is_completed_after_the_restart_and_its_add_ran_once(
    fake_llm, tmp_path, database
):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2423"}, "crash_c1")
    fake_llm.add(tool_calls(add), holding(reached, release), text("CPH2423 is in."))
    agent = ServedAgent(fake_llm.url, tmp_path, agent_database(database), workers=2)
    with agent:
        agent.keys = {"alice": agent.key("alice")}
        task = A2A(agent, "alice", polling=True).task("add CPH2423")
        assert reached.wait(60)
        agent.kill()
        release.set()
        agent.start()
        give_up_at = time.monotonic() + 90
        while (seen := A2A(agent, "alice").get(task.id)).status.state != TaskState.TASK_STATE_COMPLETED:
            assert time.monotonic() < give_up_at, f"the cut task never completed: {seen.status}"
            time.sleep(0.5)
        assert text_of(seen.artifacts[0].parts) == "CPH2423 is in."
        assert devices(agent.database) == [("CPH2423", "alice")]
        audit = (tmp_path / "audit.jsonl").read_text().splitlines()
        assert sum('"crash_c1"' in line and '"decision": "ran"' in line for line in audit) == 1
        assert len(fake_llm.requests) == 3  # the request the kill cut off, asked again; none other


def test_a_message_sent_again_without_a_context_after_kill_9_finds_its_task_and_adds_once(
    fake_llm, tmp_path, database
):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2424"}, "crash_c2")
    fake_llm.add(tool_calls(add), holding(reached, release), text("CPH2424 is in."))
    agent = ServedAgent(fake_llm.url, tmp_path, agent_database(database), workers=2)
    sent = on_task("add CPH2424", "", message_id="resend-" + uuid.uuid4().hex)
    with agent:
        agent.keys = {"alice": agent.key("alice")}
        first = A2A(agent, "alice", polling=True).send_message(sent)
        assert reached.wait(60)
        agent.kill()
        release.set()
        agent.start()
        again = A2A(agent, "alice").send_message(sent)  # the client never got its answer: it sends again
        assert (again.id, again.context_id) == (first.id, first.context_id)
        give_up_at = time.monotonic() + 90
        while (seen := A2A(agent, "alice").get(first.id)).status.state != TaskState.TASK_STATE_COMPLETED:
            assert time.monotonic() < give_up_at, f"the cut task never completed: {seen.status}"
            time.sleep(0.5)
        assert text_of(seen.artifacts[0].parts) == "CPH2424 is in."
        assert devices(agent.database) == [("CPH2424", "alice")]
        audit = (tmp_path / "audit.jsonl").read_text().splitlines()
        assert sum('"crash_c2"' in line and '"decision": "ran"' in line for line in audit) == 1
