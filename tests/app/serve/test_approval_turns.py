"""An approval's answer runs with no DBOS workflow of its own (app/serve/admitted.py): its conversation
keeps the turn with its lease, a yes runs the approved write once, and when the server running it dies
mid-way, a live server starts the turn's workflow from what was kept and finishes it within seconds —
the write still made once, as the device service and the audit count."""

from __future__ import annotations

import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import openai
import pytest

from tests.app.serve.test_crash import client, holding
from tests.app.serve.test_durable import decisions, settled
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices


def workflows(agent: ServedAgent, database: str) -> list[tuple]:
    table = "dbos.workflow_status" if database.startswith("postgresql://") else "workflow_status"
    return agent.query(f"SELECT workflow_uuid, status FROM {table}")


def asked_to_delete(agent: ServedAgent, fake_llm) -> tuple[openai.OpenAI, dict]:
    """alice's conversation where A5010 is stored and its delete waits for her answer."""
    fake_llm.add(tool_calls(call("add_device_model", {"model": "A5010"}, "a1")), text("Added A5010."))
    fake_llm.add(tool_calls(call("delete_device_model", {"model": "A5010"}, "d1")))
    alice = client(agent, agent.keys.setdefault("alice", agent.key("alice")))
    said = alice.chat.completions.create(model="m", messages=[{"role": "user", "content": "add A5010"}])
    more = {"conversation_id": said.model_extra["conversation_id"]}
    ask = [{"role": "user", "content": "delete A5010"}]
    asked = alice.chat.completions.create(model="m", messages=ask, extra_body=more)
    assert asked.model_extra["pending_approval"]["name"] == "delete_device_model"
    return alice, more


def test_a_yes_runs_the_approved_write_once_with_no_workflow_of_its_own(fake_llm, tmp_path):
    database = str(tmp_path / "agent.db")
    with ServedAgent(fake_llm.url, tmp_path, database) as agent:
        alice, more = asked_to_delete(agent, fake_llm)
        assert len(workflows(agent, database)) == 2  # the two new messages' turns
        fake_llm.add(text("Deleted A5010."))
        yes = [{"role": "user", "content": "yes"}]
        done = alice.chat.completions.create(model="m", messages=yes, extra_body=more)
        assert done.choices[0].message.content == "Deleted A5010."
        assert len(workflows(agent, database)) == 2  # none for the yes
        assert agent.query("SELECT state, turn, lease_owner FROM conversations") == [("done", None, None)]
        assert devices(agent.database) == []
        assert decisions(agent, "d1") == ["awaiting_approval", "ran"]


def test_a_server_killed_mid_approval_has_it_finished_by_another_within_seconds(fake_llm, tmp_path, postgres):
    name = f"appr_{uuid.uuid4().hex[:10]}"
    database = postgres.create_database(name)
    for server in ("a", "b"):
        (tmp_path / server).mkdir()
    quick = {"SERVE_PEER_SECONDS": "2"}  # a server not heard from for 2 s has died
    try:
        with (
            ServedAgent(fake_llm.url, tmp_path / "a", database, SERVE_NAME="a", **quick) as a,
            ServedAgent(fake_llm.url, tmp_path / "b", database, SERVE_NAME="b", **quick) as b,
        ):
            alice, more = asked_to_delete(a, fake_llm)
            reached, release = threading.Event(), threading.Event()
            fake_llm.add(holding(reached, release), text("Deleted A5010."))
            with ThreadPoolExecutor(
                1
            ) as pool:  # yes: the delete runs, then server a dies in the model request
                yes = [{"role": "user", "content": "yes"}]
                turn = pool.submit(alice.chat.completions.create, model="m", messages=yes, extra_body=more)
                assert reached.wait(60), a.log()
                [(kept,)] = a.query("SELECT turn FROM conversations")
                assert kept is not None and len(workflows(a, database)) == 2  # kept, with no workflow
                a.kill()
                killed_at = time.monotonic()
                with pytest.raises(openai.APIConnectionError):
                    turn.result(timeout=60)
            release.set()
            _, answer = settled(b)  # server b finished it, with nobody asking
            assert time.monotonic() - killed_at < 15
            assert answer == "Deleted A5010."
            assert re.search(r"executors a-\d-[0-9a-f]{8} silent: 1 turn\(s\) recovered", b.log()), b.log()
            assert devices(database) == []
            assert decisions(a, "d1") == ["awaiting_approval", "ran"] and decisions(b, "d1") == []
            assert len(workflows(b, database)) == 3  # the recovery's
    finally:
        postgres.drop_database(name)
