"""A durable A2A task: `kill -9` of the whole served agent in the middle of a task's turn, after its add ran
and while the model is asked what next; after a restart the turn is finished with nobody asking, and the
client's tasks/get sees the task completed with the answer, the add run once. SQLite and Postgres."""

from __future__ import annotations

import threading
import time

from a2a.types.a2a_pb2 import TaskState

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
