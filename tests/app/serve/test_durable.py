"""Durable turns (app/serve/durable.py): after `kill -9` of the whole server — every process of it —
a restart finishes each turn it cut off, with no request from anyone. A finished step is not run again;
a tool call cut off in the middle runs again only when that is safe (the device service deduplicates its
Idempotency-Key), and a write that is not safe to repeat waits for the person: it may or may not have
run. Each write makes one row and runs once, as the audit's decisions say. On SQLite and on Postgres."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import openai
import pytest

from agent.guards import envelope_of
from tests.app.serve.test_crash import SlowDeviceService, agent_database, client, holding, written_once
from tests.support.fake_llm import Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices
from tests.support.zygote import helper_server


def decisions(agent: ServedAgent, call_id: str) -> list[str]:
    """The audit's decisions about one call, in order."""
    audit = agent.cwd / "audit.jsonl"
    lines = [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
    return [line["decision"] for line in lines if line["call_id"] == call_id]


def settled(agent: ServedAgent, state: str = "done") -> tuple[str, str]:
    """(id, answer) of the one conversation, once its turn has ended in `state`."""
    give_up_at = time.monotonic() + 60
    while (found := agent.query("SELECT id, state, answer FROM conversations")) == [] or found[0][1] != state:
        assert found == [] or found[0][1] in ("running", state), found
        assert time.monotonic() < give_up_at, f"the turn did not end {state}: {found}\n{agent.log()}"
        time.sleep(0.1)
    return found[0][0], found[0][2]


def stored(agent: ServedAgent, conversation: str) -> list[dict]:
    found = agent.query(
        "SELECT message FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation,)
    )
    return [json.loads(message)["data"] for (message,) in found]


def cut_off(agent: ServedAgent, words: str, reached, idempotency_key: str | None = None) -> None:
    """Send `words` as alice; once `reached()` says the turn is where the test wants it, kill the server."""
    alice = client(agent, agent.keys["alice"])
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    with ThreadPoolExecutor(1) as pool:
        messages = [{"role": "user", "content": words}]
        turn = pool.submit(alice.chat.completions.create, model="m", messages=messages, extra_headers=headers)
        give_up_at = time.monotonic() + 60
        while not reached():
            assert time.monotonic() < give_up_at and not turn.done(), agent.log()
            time.sleep(0.05)
        agent.kill()
        with pytest.raises(openai.APIConnectionError):
            turn.result(timeout=60)


@pytest.mark.parametrize("workers", [1, 4])
def test_a_turn_cut_off_in_a_model_request_is_finished_by_the_restart(fake_llm, tmp_path, database, workers):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2223"}, "c1")
    fake_llm.add(tool_calls(add), holding(reached, release), text("CPH2223 is in."))
    with ServedAgent(fake_llm.url, tmp_path, agent_database(database), workers=workers) as agent:
        agent.keys = {"alice": agent.key("alice")}
        cut_off(agent, "add CPH2223", reached.is_set)
        release.set()  # the request the dead server made gets its answer, which nobody reads
        agent.start()
        conversation, answer = settled(agent)
        assert answer == "CPH2223 is in."
        assert [m["type"] for m in stored(agent, conversation)] == ["human", "ai", "tool", "ai"]
        assert len(fake_llm.requests) == 3  # the one the kill cut off, asked again; the first one not
        assert fake_llm.requests[2]["messages"] == fake_llm.requests[1]["messages"]
        assert devices(agent.database) == [("CPH2223", "alice")]
        assert decisions(agent, "c1") == ["ran"]  # the finished call was not run again
        assert "dbos" not in agent.log().lower()  # its start, migrations and recovery: not in the output


def test_a_restart_finishes_its_earlier_starts_turn_at_once_not_after_the_timeout(fake_llm, tmp_path):
    """A timeout of 600 s: the restarted server takes its own dead start's turn up within a minute."""
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(holding(reached, release), text("Done."))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), SERVE_PEER_SECONDS="600") as agent:
        agent.keys = {"alice": agent.key("alice")}
        cut_off(agent, "hello", reached.is_set)
        release.set()
        killed_at = time.monotonic()
        agent.start()
        assert settled(agent)[1] == "Done."
        assert time.monotonic() - killed_at < 60  # far within the 600 s timeout


def test_a_write_cut_off_in_the_middle_runs_again_with_its_key_and_acts_once(
    fake_llm, tmp_path, database, device_service
):
    proxy = SlowDeviceService(f"{device_service.url}/api/models")
    fake_llm.add(tool_calls(call("add_device_model", {"model": "RMX1901"}, "c1")), text("Added RMX1901."))
    try:
        with ServedAgent(fake_llm.url, tmp_path, agent_database(database), ADD_MODEL_URL=proxy.url) as agent:
            agent.keys = {"alice": agent.key("alice")}
            cut_off(agent, "add RMX1901", proxy.reached.is_set)  # the service wrote; its answer is held
            proxy.release.set()
            agent.start()
            conversation, answer = settled(agent)
            assert answer == "Added RMX1901."
            tool = stored(agent, conversation)[2]
            assert envelope_of(tool["content"])["data"]["model"] == "RMX1901"
            assert decisions(agent, "c1") == ["ran"]
    finally:
        proxy.close()
    written_once(proxy, device_service, fake_llm)


def ledger(tmp_path: Path) -> dict[str, str]:
    """A served agent's settings with the ledger MCP server, whose writes hold until `tmp_path/hold`."""
    server = {
        **helper_server("mcp_ledger_server"),
        "env": {"LEDGER_FILE": str(tmp_path / "ledger.txt"), "HOLD_FILE": str(tmp_path / "hold")},
        "trusted": True,
        "allow": ["append_entry"],  # strike_entry is approved first
        "users": "shared",
    }
    (tmp_path / "mcp_servers.json").write_text(json.dumps({"mcpServers": {"ledger": server}}))
    (tmp_path / "permissions.json").write_text(json.dumps({"default": ["mcp:ledger"]}))
    return {
        "MCP_CONFIG": str(tmp_path / "mcp_servers.json"),
        "PERMISSIONS_FILE": str(tmp_path / "permissions.json"),
    }


@pytest.mark.parametrize("again", [False, True], ids=["no", "yes"])
def test_a_write_that_may_not_repeat_waits_for_the_person_after_the_restart(fake_llm, tmp_path, again):
    entry = call("ledger__append_entry", {"text": "pay 5"}, "w1")
    fake_llm.add(tool_calls(entry))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), **ledger(tmp_path)) as agent:
        agent.keys = {"alice": agent.key("alice")}
        cut_off(agent, 'append_entry {"text": "pay 5"}', (tmp_path / "hold.reached").exists)
        (tmp_path / "hold").touch()  # from now on the ledger answers at once
        agent.start()
        conversation, question = settled(agent, "awaiting")
        assert "may or may not have run" in question and "ledger__append_entry" in question
        [(pending,)] = agent.query("SELECT pending FROM conversations")
        assert json.loads(pending)["kind"] == "rerun"
        assert (tmp_path / "ledger.txt").read_text() == "pay 5\n"  # not run again by itself
        assert len(fake_llm.requests) == 1

        fake_llm.add(text("Done." if again else "Left it."))
        alice = client(agent, agent.keys["alice"])
        answer = alice.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "yes" if again else "no"}],
            extra_body={"conversation_id": conversation},
        )
        assert answer.choices[0].message.content == ("Done." if again else "Left it.")
        result = envelope_of(fake_llm.requests[-1]["messages"][-1]["content"])
        written = (tmp_path / "ledger.txt").read_text()
        if again:  # the person chose to run it again: a second entry, by their word
            assert result["ok"] and written == "pay 5\npay 5\n"
            assert decisions(agent, "w1") == ["outcome_unknown", "ran"]
        else:
            assert "chose not to run this call again" in result["error"] and written == "pay 5\n"
            assert decisions(agent, "w1") == ["outcome_unknown", "not_run_again"]


def test_a_server_killed_has_its_turns_finished_by_another_on_the_same_postgres(fake_llm, tmp_path, postgres):
    name = f"two_{uuid.uuid4().hex[:10]}"
    database = postgres.create_database(name)
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2223"}, "c1")
    fake_llm.add(tool_calls(add), holding(reached, release), text("CPH2223 is in."))
    for server in ("a", "b"):
        (tmp_path / server).mkdir()
    quick = {"SERVE_PEER_SECONDS": "2"}  # a server not heard from for 2 s has died
    try:
        with (
            ServedAgent(fake_llm.url, tmp_path / "a", database, SERVE_NAME="a", **quick) as a,
            ServedAgent(fake_llm.url, tmp_path / "b", database, SERVE_NAME="b", **quick) as b,
        ):
            a.keys = {"alice": a.key("alice")}
            cut_off(a, "add CPH2223", reached.is_set)  # server a, every process of it, in a model request
            release.set()
            conversation, answer = settled(b)  # server b finished it, with nobody asking
            assert answer == "CPH2223 is in."
            assert re.search(r"executors a-0-[0-9a-f]{8} silent: 1 turn\(s\) recovered", b.log()), b.log()
            assert [m["type"] for m in stored(b, conversation)] == ["human", "ai", "tool", "ai"]
            assert len(fake_llm.requests) == 3
            assert devices(database) == [("CPH2223", "alice")]
            assert decisions(a, "c1") == ["ran"] and decisions(b, "c1") == []
    finally:
        postgres.drop_database(name)


def test_an_approval_waits_across_a_restart_and_runs_once_after_yes(fake_llm, tmp_path):
    fake_llm.add(tool_calls(call("add_device_model", {"model": "A5010"}, "a1")), text("Added A5010."))
    fake_llm.add(tool_calls(call("delete_device_model", {"model": "A5010"}, "d1")))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db")) as agent:
        alice = client(agent, agent.key("alice"))
        said = alice.chat.completions.create(model="m", messages=[{"role": "user", "content": "add A5010"}])
        conversation = said.model_extra["conversation_id"]
        more = {"conversation_id": conversation}
        ask = [{"role": "user", "content": "delete A5010"}]
        asked = alice.chat.completions.create(model="m", messages=ask, extra_body=more)
        assert asked.model_extra["pending_approval"]["name"] == "delete_device_model"
        agent.kill()  # every process of the server, while the approval waits
        agent.start()
        assert devices(agent.database) == [("A5010", "alice")]
        fake_llm.add(text("Deleted A5010."))
        yes = [{"role": "user", "content": "yes"}]
        done = alice.chat.completions.create(model="m", messages=yes, extra_body=more)
        assert done.choices[0].message.content == "Deleted A5010."
        assert devices(agent.database) == []
        assert decisions(agent, "d1") == ["awaiting_approval", "ran"]
        assert decisions(agent, "a1") == ["ran"]
        assert len(fake_llm.requests) == 4


def test_an_approved_write_cut_off_in_the_middle_is_asked_about_again_and_runs_on_the_persons_word(
    fake_llm, tmp_path
):
    strike = call("ledger__strike_entry", {"text": "pay 5"}, "s1")
    fake_llm.add(tool_calls(strike))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), **ledger(tmp_path)) as agent:
        alice = client(agent, agent.keys.setdefault("alice", agent.key("alice")))
        ask = [{"role": "user", "content": 'strike_entry {"text": "pay 5"}'}]
        asked = alice.chat.completions.create(model="m", messages=ask)
        conversation = asked.model_extra["conversation_id"]
        assert asked.model_extra["pending_approval"]["name"] == "ledger__strike_entry"
        more = {"conversation_id": conversation}
        with ThreadPoolExecutor(1) as pool:  # approved, it runs, and the server is killed in the middle
            yes = [{"role": "user", "content": "yes"}]
            turn = pool.submit(alice.chat.completions.create, model="m", messages=yes, extra_body=more)
            give_up_at = time.monotonic() + 60
            while not (tmp_path / "hold.reached").exists():
                assert time.monotonic() < give_up_at and not turn.done(), agent.log()
                time.sleep(0.05)
            agent.kill()
            with pytest.raises(openai.APIConnectionError):
                turn.result(timeout=60)
        (tmp_path / "hold").touch()
        agent.start()
        _, question = settled(agent, "awaiting")  # the restart finished the turn: with a question
        assert "may or may not have run" in question
        fake_llm.add(text("Struck."))
        done = alice.chat.completions.create(model="m", messages=yes, extra_body=more)
        assert done.choices[0].message.content == "Struck."
        assert (tmp_path / "ledger.txt").read_text() == "struck: pay 5\nstruck: pay 5\n"  # by their word
        assert decisions(agent, "s1") == ["awaiting_approval", "outcome_unknown", "ran"]
        assert len(fake_llm.requests) == 2


def test_a_stop_lets_a_turn_whose_client_left_finish_and_leaves_nothing_to_recover(
    fake_llm, tmp_path, database
):
    """The client gives up while the turn waits on the model, then the server gets SIGTERM: the turn
    still ends, with its answer kept, before the server stops, and nothing is left for the next start
    to recover."""
    fake_llm.add(Reply(text("CPH2223 is in."), delay=3.0))
    with ServedAgent(fake_llm.url, tmp_path, agent_database(database)) as agent:
        impatient = client(agent, agent.key("alice")).with_options(timeout=1.0)
        with pytest.raises(openai.APITimeoutError):
            impatient.chat.completions.create(model="m", messages=[{"role": "user", "content": "CPH2223?"}])
        give_up_at = time.monotonic() + 60
        while not fake_llm.requests:  # the turn waits on the model
            assert time.monotonic() < give_up_at, agent.log()
            time.sleep(0.05)
        assert agent.process is not None
        agent.process.terminate()
        assert agent.process.wait(60) == 0, agent.log()
        assert settled(agent)[1] == "CPH2223 is in."
        table = "dbos.workflow_status" if database.startswith("postgresql://") else "workflow_status"
        assert agent.query(f"SELECT status FROM {table}") == [("SUCCESS",)], agent.log()


def test_a_turns_workflow_input_carries_ids_not_the_clients_history(fake_llm, tmp_path):
    """A new conversation's history from the client is stored before its turn runs; DBOS keeps the turn's
    ids and new message, not a second copy of the history."""
    fake_llm.add(text("Noted."))
    history = [{"role": "user" if i % 2 == 0 else "assistant", "content": "x" * 1000} for i in range(200)]
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db")) as agent:
        alice = client(agent, agent.key("alice"))
        messages = [*history, {"role": "user", "content": "and now?"}]
        answer = alice.chat.completions.create(model="m", messages=messages)
        assert answer.choices[0].message.content == "Noted."
        [(size,)] = agent.query(
            "SELECT LENGTH(COALESCE(s.inputs, i.inputs)) FROM workflow_status s "
            "LEFT JOIN workflow_input i ON i.workflow_uuid = s.workflow_uuid"
        )
        assert size < 5000, size
        assert len(stored(agent, settled(agent)[0])) == 202  # the history, the question, the answer
