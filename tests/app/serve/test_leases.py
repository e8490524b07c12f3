"""Who runs a turn, and whether it still does (app/serve/leases.py, recovery.py), by the database's clock
and the one term kept in it: a lease not renewed in time, stamped past the term, or held by a process of
this machine that is gone is cut; a lease a live worker holds is not adopted, and a served turn's lease is
renewed while it runs; a turn whose worker died between admitting it and starting it runs on its re-send
in seconds, whether that worker's end was seen or only its silence. On SQLite and on Postgres."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from app.serve.conversations import Conversation, ConversationStore, Where
from app.serve.database import open_agent_database
from app.serve.durable import VERSION, take_up
from app.serve.fence import Lease
from app.serve.keys import KeyStore
from app.serve.leases import adopt, holder, machine, process, term
from app.serve.limits import ServeLimits
from app.serve.recovery import Recovery
from app.serve.settings import ServeSettings
from tests.app.serve.test_crash import agent_database
from tests.app.serve.test_follow import held
from tests.support.fake_llm import FakeLLM, call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices


def opened(where: str):
    settings = (
        ServeSettings(database_url=where)
        if where.startswith("postgresql://")
        else ServeSettings(agent_db=where)
    )
    return open_agent_database(settings)


@pytest.fixture
def db(database):
    found = opened(agent_database(database))
    KeyStore(found).add("alice")
    yield found
    found.close()


def begun(db, owner: str = "a-0-1", key: str | None = None, seconds: float = 30) -> Conversation:
    """A turn of alice's admitted, its lease held by this process for `owner`."""
    return ConversationStore(db).begin(
        "alice", Where(run_key=key), owner, ServeLimits(runs_per_user=9, lease_seconds=seconds)
    )


def forge(db, conversation: Conversation, until: float, held_by: str) -> None:
    """The lease stamped `until` seconds from the database's clock, held by process `held_by`."""
    db.write(
        f"UPDATE conversations SET lease_until = {db.now} + ?, lease_process = ? WHERE id = ?",
        (until, held_by, conversation.id),
    )


def finished_process() -> str:
    """A process of this machine that has ended, as a lease names its holder."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    known = process(child.pid)
    child.wait()
    return f"{known}@{machine()}"


def test_the_first_servers_term_is_the_one_every_server_reads(db, caplog):
    assert term(db, 30) == 30
    assert term(db, 1) == 30
    assert "SERVE_PEER_SECONDS is 30 in the database" in caplog.text


def test_lapsed_future_and_gone_leases_are_cut_and_renewed_live_ones_are_not(db):
    term(db, 30)
    turns = {name: begun(db, f"{name}-0-1") for name in ("fresh", "lapsed", "ahead", "gone", "elsewhere")}
    forge(db, turns["fresh"], 25, holder())  # renewed 5 s ago, by this process
    forge(db, turns["lapsed"], -1, "1:1@elsewhere")  # not renewed in time
    forge(db, turns["ahead"], 3600, "1:1@elsewhere")  # past the term: no live worker stamps that
    forge(db, turns["gone"], 25, finished_process())  # this machine's, its process ended
    forge(db, turns["elsewhere"], 25, "1:1@elsewhere")  # another machine's: only its silence would tell
    cut = {row["id"] for row in Recovery(db, 30, VERSION, take_up).leases()}
    assert cut == {turns[name].id for name in ("lapsed", "ahead", "gone")}


def test_a_stamp_half_a_second_past_the_term_lives_and_one_two_seconds_past_is_cut(db):
    term(db, 30)
    early, ahead = begun(db, "early-0-1"), begun(db, "ahead-0-1")
    forge(db, early, 30.5, holder())  # within the docs' 1 s of slack
    forge(db, ahead, 32, holder())
    assert [row["id"] for row in Recovery(db, 30, VERSION, take_up).leases()] == [ahead.id]


def test_a_leases_deadline_is_the_databases_clock_plus_the_term(db):
    turn = begun(db, seconds=7)
    with db.reading() as read:
        row = read.execute(
            f"SELECT lease_until - {db.now} AS left, lease_process FROM conversations"
        ).fetchone()
    assert 6 <= row["left"] <= 7 and row["lease_process"] == holder()
    assert turn.owner == "a-0-1" and turn.gen == 1


def test_a_live_lease_is_not_adopted_and_a_cut_or_handed_back_one_is_at_a_new_generation(db):
    turn = begun(db)
    assert adopt(db, turn.lease, turn.run_id, "b-0-1", 30) is None  # a holds it, and renews it
    forge(db, turn, 3600, holder())  # forged past the term
    adopted = adopt(db, turn.lease, turn.run_id, "b-0-1", 30)
    assert adopted == Lease(turn.id, "b-0-1", turn.gen + 1)
    assert adopt(db, adopted, turn.run_id, "c-0-1", 30) is None  # b holds it
    db.write("UPDATE conversations SET lease_owner = NULL, lease_gen = lease_gen + 1")  # handed back to DBOS
    assert adopt(db, adopted, turn.run_id, "c-0-1", 30) == Lease(turn.id, "c-0-1", turn.gen + 3)


def test_a_served_turns_lease_is_renewed_every_third_of_the_term(tmp_path):
    """A term of 3 s: a renewal about every second while the turn runs; 4.5 s see 2 to 6 (a noisy
    machine), each lease ending about 3 s after its renewal."""
    reached, release = threading.Event(), threading.Event()
    with (
        FakeLLM(default=held(reached, release, text("Fine."))) as llm,
        ServedAgent(llm.url, tmp_path, str(tmp_path / "agent.db"), SERVE_PEER_SECONDS="3") as agent,
    ):
        turn = threading.Thread(target=ask, args=(agent, agent.key("alice"), "hello"))
        turn.start()
        assert reached.wait(60), agent.log()
        stamps, left = set(), []
        give_up_at = time.monotonic() + 4.5
        while time.monotonic() < give_up_at:
            [(until,)] = agent.query("SELECT lease_until FROM conversations")
            stamps.add(until)
            left.append(until - time.time())
            time.sleep(0.05)
        release.set()
        turn.join(60)
    assert 3 <= len(stamps) <= 7  # the stamp seen first, then 2 to 6 renewals
    assert min(left) > 0 and max(left) <= 3.5


def ask(agent: ServedAgent, key: str, words: str, run_key: str | None = None):
    import openai

    client = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=key, max_retries=0, timeout=60)
    headers = {"Idempotency-Key": run_key} if run_key else {}
    messages = [{"role": "user", "content": words}]
    return client.chat.completions.create(model="tool-use-agent", messages=messages, extra_headers=headers)


def test_the_embedded_demo_model_runs_in_one_worker(tmp_path):
    """No LLM configured and two workers asked for: it says so, and one worker starts."""
    with ServedAgent("", tmp_path, str(tmp_path / "agent.db"), workers=2) as agent:
        said = agent.log()
    assert "--workers 2: the embedded demo model runs one worker (its llama.cpp server" in said
    assert "(1 worker(s))" in said


@pytest.mark.parametrize("end", ["seen gone", "only silent"])
def test_a_turn_a_dead_worker_admitted_but_never_started_is_run_by_its_re_send_in_seconds(
    tmp_path, database, end
):
    """The worker died between admitting a turn (the lease taken) and starting its workflow: nothing for
    DBOS to resume. Recovery releases the lease — at once when its process is seen gone from this machine,
    one term after its last renewal when it was elsewhere and only fell silent (never to come back) — and
    the client following the turn runs it itself, once, in seconds."""
    with (
        FakeLLM() as llm,
        ServedAgent(llm.url, tmp_path, agent_database(database), SERVE_PEER_SECONDS="3") as agent,
    ):
        key = agent.key("alice")
        db = opened(agent.database)
        try:
            cut = begun(db, "dead-0-1", key="cut-1", seconds=3)
            forge(db, cut, 3, finished_process() if end == "seen gone" else "1:1@elsewhere")
        finally:
            db.close()
        llm.add(tool_calls(call("add_device_model", {"model": "CPH2601"}, "cut_c1")), text("CPH2601 is in."))
        started = time.monotonic()
        answer = ask(agent, key, "add CPH2601", run_key="cut-1")
        seconds = time.monotonic() - started
        print(f"\nthe cut turn ({end}) answered {seconds:.1f} s after its re-send")
        assert answer.model_extra["conversation_id"] == cut.id
        assert answer.choices[0].message.content == "CPH2601 is in."
        assert seconds < 15
        assert devices(agent.database) == [("CPH2601", "alice")]
        assert "admitted by dead-0-1 and never started: released" in agent.log()
