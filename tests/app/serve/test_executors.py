"""Which executors are alive (app/serve/executors.py, recovery.py), by the database's clock and the one
timeout kept in it: silent past the timeout, stamped in the future, or a process of this machine that is
gone — each is dead; and a lease held by a live executor is not adopted. On SQLite and on Postgres."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from app.serve.conversations import ConversationStore, Where
from app.serve.database import open_agent_database
from app.serve.durable import VERSION
from app.serve.executors import machine, peer_seconds, process
from app.serve.fence import Lease, adopt
from app.serve.keys import KeyStore
from app.serve.limits import ServeLimits
from app.serve.recovery import Heartbeat
from app.serve.settings import ServeSettings
from tests.app.serve.test_crash import agent_database
from tests.support.fake_llm import FakeLLM, call, text, tool_calls
from tests.support.serve_support import ServedAgent


@pytest.fixture
def db(database):
    where = agent_database(database)
    settings = (
        ServeSettings(database_url=where)
        if where.startswith("postgresql://")
        else ServeSettings(agent_db=where)
    )
    opened = open_agent_database(settings)
    yield opened
    opened.close()


def stamp(db, executor: str, seconds_ago: float, host: str = "elsewhere", pid: str = "") -> None:
    db.write(
        f"INSERT INTO executors (id, seen_at, machine, process) VALUES (?, {db.now} - ?, ?, ?)",
        (executor, seconds_ago, host, pid),
    )


def finished_process() -> str:
    """A process of this machine that has ended, as an executor's row names it."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    known = process(child.pid)
    child.wait()
    return known


def test_the_first_servers_timeout_is_the_one_every_server_reads(db, caplog):
    assert peer_seconds(db, 30) == 30
    assert peer_seconds(db, 1) == 30
    assert "SERVE_PEER_SECONDS is 30 in the database" in caplog.text


def test_silent_future_and_gone_executors_are_dead(db):
    peer_seconds(db, 30)
    me = Heartbeat(db, "me-0-1", 30, VERSION)
    me.beat()
    stamp(db, "quiet-0-1", 5)  # heard from 5 s ago: alive
    stamp(db, "silent-0-1", 31)  # past the timeout
    stamp(db, "ahead-0-1", -3600)  # in the future: no live executor writes that
    stamp(db, "gone-0-1", 0, machine(), finished_process())  # this machine's, its process ended
    stamp(db, "running-0-1", 0, machine(), process())  # this machine's, its process runs
    assert me.live() == {"me-0-1", "quiet-0-1", "running-0-1"}


def test_a_stamp_half_a_second_ahead_lives_and_one_two_seconds_ahead_is_dead(db):
    peer_seconds(db, 30)
    me = Heartbeat(db, "me-0-1", 30, VERSION)
    me.beat()
    stamp(db, "early-0-1", -0.5)  # within the docs' 1 s of slack
    stamp(db, "ahead-0-1", -2)  # more than 1 s in the future: invalid
    assert me.live() == {"me-0-1", "early-0-1"}


def test_a_leases_deadline_is_the_admitting_clock_plus_the_turns_deadline_and_a_minute(db):
    peer_seconds(db, 30)
    KeyStore(db).add("alice")
    limits = ServeLimits(turn_seconds=45.0)
    before = time.time()
    turn = ConversationStore(db).begin("alice", Where(), "a-0-1", limits)
    after = time.time()
    with db.reading() as read:
        until = read.execute("SELECT lease_until FROM conversations WHERE id = ?", (turn.id,)).fetchone()[
            "lease_until"
        ]
    assert before + 45 + 60 - 1 <= until <= after + 45 + 60 + 1


def test_a_lease_of_a_live_executor_is_not_adopted_and_one_of_a_dead_one_is_at_a_new_generation(db):
    peer_seconds(db, 30)
    KeyStore(db).add("alice")
    store, limits = ConversationStore(db), ServeLimits()
    Heartbeat(db, "a-0-1", 30, VERSION).beat()
    turn = store.begin("alice", Where(), "a-0-1", limits)
    assert adopt(db, turn.lease, turn.run_id, "b-0-1", time.time(), 60) is None  # a lives
    db.write("UPDATE executors SET seen_at = seen_at + 3600 WHERE id = 'a-0-1'")  # forged into the future
    Heartbeat(db, "b-0-1", 30, VERSION).beat()
    adopted = adopt(db, turn.lease, turn.run_id, "b-0-1", time.time(), 60)
    assert adopted == Lease(turn.id, "b-0-1", turn.gen + 1)
    assert adopt(db, adopted, turn.run_id, "c-0-1", time.time(), 60) is None  # b lives


def test_a_served_executor_says_it_lives_every_third_of_the_timeout(tmp_path):
    """A timeout of 3 s: a beat about every second; 4.5 s see between 2 and 6 (a noisy machine)."""
    with (
        FakeLLM(default=text("Fine.")) as llm,
        ServedAgent(llm.url, tmp_path, str(tmp_path / "agent.db"), SERVE_PEER_SECONDS="3") as agent,
    ):
        seen: dict[str, set[float]] = {}
        give_up_at = time.monotonic() + 4.5
        while time.monotonic() < give_up_at:
            for executor, seen_at in agent.query("SELECT id, seen_at FROM executors"):
                seen.setdefault(executor, set()).add(seen_at)
            time.sleep(0.05)
    assert len(seen) == 1
    (stamps,) = seen.values()
    assert 3 <= len(stamps) <= 7  # the first stamp seen, then 2 to 6 beats


def test_the_embedded_demo_model_runs_in_one_worker(tmp_path):
    """No LLM configured and two workers asked for: it says so, and one worker starts."""
    with ServedAgent("", tmp_path, str(tmp_path / "agent.db"), workers=2) as agent:
        give_up_at = time.monotonic() + 15
        while time.monotonic() < give_up_at and len(agent.query("SELECT id FROM executors")) < 2:
            time.sleep(0.2)
        executors = agent.query("SELECT id FROM executors")
        said = agent.log()
    assert "--workers 2: the embedded demo model runs one worker (its llama.cpp server" in said
    assert len(executors) == 1


def test_a_turn_a_dead_executor_admitted_but_never_started_is_run_by_its_re_send_in_seconds(
    tmp_path, database
):
    """The executor died between admitting a turn (the lease taken) and starting its workflow: nothing
    for DBOS to resume. Recovery releases the lease, and the client following the turn runs it itself,
    once, in seconds, instead of waiting the lease (the turn's deadline and a minute) out."""
    import openai

    from tests.support.serve_support import devices

    with FakeLLM() as llm, ServedAgent(llm.url, tmp_path, agent_database(database)) as agent:
        key = agent.key("alice")
        db = open_agent_database(
            ServeSettings(database_url=agent.database)
            if agent.database.startswith("postgresql://")
            else ServeSettings(agent_db=agent.database)
        )
        try:
            stamp(db, "dead-0-1", 0, machine(), finished_process())  # this machine's: its process is gone
            limits = ServeLimits(turn_seconds=120.0)
            cut = ConversationStore(db).begin("alice", Where(run_key="cut-1"), "dead-0-1", limits)
        finally:
            db.close()
        add = {"model": "CPH2601"}
        llm.add(tool_calls(call("add_device_model", add, "cut_c1")), text("CPH2601 is in."))
        client = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=key, max_retries=0, timeout=60)
        started = time.monotonic()
        answer = client.chat.completions.create(
            model="tool-use-agent",
            messages=[{"role": "user", "content": "add CPH2601"}],
            extra_headers={"Idempotency-Key": "cut-1"},
        )
        seconds = time.monotonic() - started
        print(f"\nthe cut turn answered {seconds:.1f} s after its re-send")
        assert answer.model_extra["conversation_id"] == cut.id
        assert answer.choices[0].message.content == "CPH2601 is in."
        assert seconds < 15
        assert devices(agent.database) == [("CPH2601", "alice")]
