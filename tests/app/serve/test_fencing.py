"""A served turn runs once, whoever recovers it (app/serve/fence.py, leases.py, recovery.py): two
servers under one name, a server paused past the lease's term, a peer with a shorter term, a forged
lease, and the official `openai` SDK's own retries against a cancel and against a model error after a
write. Each counts the runs of a write that must not repeat as the tool counts them — the lines of the
ledger MCP server's file — not as the stored conversation tells them. On SQLite and on Postgres."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import openai
import pytest
import requests

from agent.types import AgentError, ConfigError, DeadlineError, LimitError, LLMError, McpUnavailable
from app.serve import errors
from app.serve.errors import Cancelled, KeyRevoked, LeaseLost, TooManyRequests
from plumbing.sql import DatabaseUnavailable
from tests.app.serve.test_crash import agent_database, holding
from tests.app.serve.test_durable import cut_off, ledger
from tests.app.serve.test_follow import held
from tests.conftest import run_main
from tests.support.fake_llm import FakeLLM, Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent

APPEND = 'append_entry {"text": "pay 5"}'
# servers a and b, each dead to the other after 2 s of silence
QUICK = {"a_SERVE_NAME": "a", "b_SERVE_NAME": "b", "a_SERVE_PEER_SECONDS": "2", "b_SERVE_PEER_SECONDS": "2"}


def entry(call_id: str) -> dict:
    """A model reply that appends to the ledger, with a call id of its own (each reply brings new ones)."""
    return tool_calls(call("ledger__append_entry", {"text": "pay 5"}, call_id))


def pay(request: dict) -> Reply:
    """The model of a turn that pays once, as each of its executions asks it: a call to append, with a new
    id, until the call has a result; then the answer."""
    if request["messages"][-1]["role"] == "tool":
        return Reply(text("Paid."))
    return Reply(entry(f"w{uuid.uuid4().hex[:6]}"))


def paying(reached: threading.Event, release: threading.Event) -> list:
    """The script of a turn that pays: its first request held until the test lets it answer."""
    return [held(reached, release, entry("w1")), *[pay] * 8]


def runs(tmp_path: Path) -> int:
    """How many times the ledger's write ran, as the ledger itself counts."""
    written = tmp_path / "ledger.txt"
    return len(written.read_text().splitlines()) if written.exists() else 0


@pytest.fixture(autouse=True)
def counted(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[None]:
    """Each test says how often the write ran, passed or not (`pytest -s` shows it)."""
    yield
    print(f"\n{request.node.name}: the write ran {runs(tmp_path)} time(s)")


@contextlib.contextmanager
def servers(tmp_path: Path, llm: FakeLLM, database: str, *names: str, **env: str) -> Iterator[list]:
    """Started one after the other on one database and one ledger: the first with `env`, the others with
    theirs given as NAME_VAR=value (e.g. b_SERVE_PEER_SECONDS)."""
    settings = ledger(tmp_path)
    (tmp_path / "hold").touch()  # the ledger writes at once
    with contextlib.ExitStack() as stack:
        started = []
        for i, name in enumerate(names):
            (tmp_path / f"s{i}").mkdir()
            own = {k.split("_", 1)[1]: v for k, v in env.items() if k.startswith(f"{name}_")}
            agent = ServedAgent(llm.url, tmp_path / f"s{i}", agent_database(database), **settings, **own)
            started.append(stack.enter_context(agent))
        yield started


def ask(agent: ServedAgent, key: str, words: str = APPEND, retries: int = 0, **headers: str) -> Future:
    """Send `words` through the official SDK (with `retries`, as its default is 2) in the background."""
    sdk = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=key, max_retries=retries, timeout=90)
    pool = ThreadPoolExecutor(1)
    messages = [{"role": "user", "content": words}]
    turn = pool.submit(sdk.chat.completions.create, model="m", messages=messages, extra_headers=headers)
    pool.shutdown(wait=False)
    return turn


def until(done: Callable[[], bool], agent: ServedAgent, seconds: float = 60) -> None:
    give_up_at = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < give_up_at, agent.log()
        time.sleep(0.05)


def state(agent: ServedAgent) -> list[tuple]:
    return agent.query("SELECT state FROM conversations")


def test_two_servers_under_one_name_run_a_turn_once(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(*paying(reached, release))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        turn = ask(a, a.key("alice"))
        assert reached.wait(60), a.log()
        with ServedAgent(fake_llm.url, tmp_path / "s0", a.database, **ledger(tmp_path), SERVE_NAME="") as b:
            with contextlib.suppress(AssertionError):  # a second run of the turn asks the model
                until(lambda: len(fake_llm.requests) > 1, b, seconds=5)
            release.set()
            assert turn.result(90).choices[0].message.content == "Paid."
            assert "recovered" not in b.log() and state(a) == [("done",)]
    assert runs(tmp_path) == 1


def taken_over(tmp_path: Path, llm: FakeLLM, database: str, take: Callable[[ServedAgent, ServedAgent], None]):
    """Server a runs a turn that writes once its model answers; meanwhile `take(a, b)` makes server b take
    the turn up. The write runs once, and a's client gets b's answer. a's log."""
    reached, release = threading.Event(), threading.Event()
    llm.add(*paying(reached, release))
    with servers(tmp_path, llm, database, "a", "b", **QUICK) as [a, b]:
        turn = ask(a, a.key("alice"))
        assert reached.wait(60), a.log()
        try:
            take(a, b)
        finally:
            release.set()  # a's model answers: a goes on, if nothing stops it
        assert turn.result(90).choices[0].message.content == "Paid."
        assert runs(tmp_path) == 1
        return a.log()


def test_a_paused_server_loses_its_turn_and_writes_nothing_more(fake_llm, tmp_path, database):
    def pause(a: ServedAgent, b: ServedAgent) -> None:
        assert a.process is not None
        os.kill(a.pid, signal.SIGSTOP)  # a freeze past the timeout: a GC pause, a stopped VM
        try:
            until(lambda: state(b) == [("done",)], b)  # b took the turn up and finished it
        finally:
            os.kill(a.pid, signal.SIGCONT)

    assert "taken up elsewhere" in taken_over(tmp_path, fake_llm, database, pause)


def test_a_forged_lease_takes_a_turn_over_and_the_live_server_writes_nothing_more(
    fake_llm, tmp_path, database
):
    def forge(a: ServedAgent, b: ServedAgent) -> None:
        give_up_at = time.monotonic() + 60
        while state(b) != [("done",)]:  # a's lease says it lapsed, again and again, until b takes its turn
            a.query_execute("UPDATE conversations SET lease_until = 0 WHERE lease_owner LIKE ?", ("a-%",))
            assert time.monotonic() < give_up_at, b.log()
            time.sleep(0.05)

    assert "taken up elsewhere" in taken_over(tmp_path, fake_llm, database, forge)


def test_a_peer_with_a_shorter_timeout_reads_the_one_in_the_database(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(*paying(reached, release))
    peers = {**QUICK, "a_SERVE_PEER_SECONDS": "6", "b_SERVE_PEER_SECONDS": "1"}  # a started first
    with servers(tmp_path, fake_llm, database, "a", "b", **peers) as [a, b]:
        turn = ask(a, a.key("alice"))
        assert reached.wait(60), a.log()
        time.sleep(4)  # a beats every 2 s: past b's own timeout, now and then
        release.set()
        assert turn.result(90).choices[0].message.content == "Paid."
        assert "SERVE_PEER_SECONDS is 6 in the database" in b.log()
    assert runs(tmp_path) == 1


def cancel_when_asked(agent: ServedAgent, key: str, reached: threading.Event, release: threading.Event):
    """Once the model is asked, cancel the running turn, then let the model answer."""
    assert reached.wait(60), agent.log()
    [(conversation,)] = agent.query("SELECT id FROM conversations WHERE state = 'running'")
    headers = {"Authorization": f"Bearer {key}"}
    cancelled = requests.post(f"{agent.url}/conversations/{conversation}/cancel", headers=headers, timeout=30)
    assert cancelled.json()["cancelled"] is True, cancelled.text
    release.set()


def test_the_sdks_retries_do_not_undo_a_cancel(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(held(reached, release, entry("w1")), entry("w2"), text("Paid."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        key = a.key("alice")
        turn = ask(a, key, retries=2)  # the SDK's default retries, no Idempotency-Key
        cancel_when_asked(a, key, reached, release)
        assert "cancelled" in turn.result(90).choices[0].message.content
        assert state(a) == [("cancelled",)], "the SDK sent the cancelled turn again"
    assert runs(tmp_path) == 0


def test_a_cancelled_run_sent_again_is_not_resumed(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(held(reached, release, entry("w1")), text("Paid."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        key, run = a.key("alice"), {"Idempotency-Key": "pay-once"}
        turn = ask(a, key, retries=2, **run)
        cancel_when_asked(a, key, reached, release)
        assert "cancelled" in turn.result(90).choices[0].message.content
        again = ask(a, key, retries=2, **run).result(90)  # the same run, sent again by the person
        assert "cancelled" in again.choices[0].message.content
        assert state(a) == [("cancelled",)]
    assert runs(tmp_path) == 0


# after the write, the model keeps calling a tool nobody serves until the rounds run out (9 more: 10 in all)
ROUNDS = [tool_calls(call("ledger__no_such_tool", {}, f"n{i}")) for i in range(9)]


@pytest.mark.parametrize(
    ("failure", "status", "env"),
    [
        ([Reply({"error": {"message": "the model is down"}}, status=400)], 502, {}),
        ([Reply(text("Too late."), delay=4)], 504, {"a_TURN_SECONDS": "2"}),
        (ROUNDS, 500, {}),
    ],
    ids=["model error", "deadline", "turn limit"],
)
def test_the_sdks_retries_do_not_repeat_a_write_after_a_failure(
    fake_llm, tmp_path, database, failure, status, env
):
    """A turn that wrote, then failed (the model's error, the turn's deadline, its limit of rounds), is
    answered with its error status and `x-should-retry: false`: the official SDK, with its default two
    retries, does not send it again, and the write ran once."""
    fake_llm.add(entry("w1"), *failure, entry("w3"), *failure, entry("w4"), *failure)
    with servers(tmp_path, fake_llm, database, "a", **env) as [a]:
        turn = ask(a, a.key("alice"), retries=2)  # the SDK's default retries
        with pytest.raises(openai.APIStatusError) as failed:
            turn.result(90)
        assert failed.value.status_code == status
        assert failed.value.response.headers["x-should-retry"] == "false"
        assert len(fake_llm.requests) == 1 + len(failure), "the SDK sent the turn again"
    assert runs(tmp_path) == 1


def test_revoking_a_key_stops_its_running_turn_before_its_next_step(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(held(reached, release, entry("w1")), text("Paid."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        turn = ask(a, a.key("alice"))
        assert reached.wait(60), a.log()
        revoked = run_main("keys", "revoke", "alice", env=a.env, cwd=a.cwd)
        assert revoked.returncode == 0, revoked.stderr
        release.set()
        with pytest.raises(openai.AuthenticationError) as stopped:
            turn.result(90)
        assert stopped.value.code == "key_revoked"
        assert state(a) == [("failed",)]
    assert runs(tmp_path) == 0


def test_a_key_revoked_after_it_signed_a_turn_starts_no_other(fake_llm, tmp_path, database):
    """The worker remembers the keys that signed its turns; the next turn's admission looks the key up
    again, and a revoked one starts nothing."""
    fake_llm.add(text("First."), text("Second."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        key = a.key("alice")
        assert ask(a, key, "hello").result(90).choices[0].message.content == "First."
        assert run_main("keys", "revoke", "alice", env=a.env, cwd=a.cwd).returncode == 0
        with pytest.raises(openai.AuthenticationError) as refused:
            ask(a, key, "again").result(90)
        assert refused.value.code == "invalid_api_key"
        assert len(fake_llm.requests) == 1
        assert state(a) == [("done",)], "the second turn was admitted"


def test_a_name_with_a_new_key_never_meets_its_old_keys_conversations(fake_llm, tmp_path, database):
    fake_llm.add(text("First."), text("Second."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        run = {"Idempotency-Key": "same-words"}
        assert ask(a, a.key("alice"), "hello", **run).result(90).choices[0].message.content == "First."
        assert run_main("keys", "revoke", "alice", env=a.env, cwd=a.cwd).returncode == 0
        answer = ask(a, a.key("alice"), "hello", **run).result(90)  # was a 500: the same conversation id
        assert answer.choices[0].message.content == "Second."
        assert len(a.query("SELECT id FROM conversations")) == 2


def test_a_turn_cut_off_by_a_crash_is_not_finished_for_a_key_revoked_since(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(holding(reached, release), entry("w1"), text("Paid."))
    with servers(tmp_path, fake_llm, database, "a") as [a]:
        a.keys = {"alice": a.key("alice")}
        cut_off(a, APPEND, reached.is_set)  # kill -9 of the whole server while the model is asked
        release.set()
        assert run_main("keys", "revoke", "alice", env=a.env, cwd=a.cwd).returncode == 0
        a.start()
        until(lambda: state(a) == [("failed",)], a)  # recovered, and stopped before its first step
        assert len(fake_llm.requests) == 1
    assert runs(tmp_path) == 0


AFTER_CALLS = [
    (DatabaseUnavailable("down"), 503),
    (RuntimeError("a bug"), 500),
    (AgentError("the model said nothing"), 502),
    (LLMError("HTTP 500"), 502),
    (McpUnavailable("the ledger is gone"), 502),
    (DeadlineError("past 120 s"), 504),
    (LimitError("12 tool calls"), 500),
    (ConfigError("no model"), 500),
    (Cancelled("cancelled"), 409),
    (KeyRevoked("revoked"), 401),
    (LeaseLost("taken over"), 409),
    (TooManyRequests("slow down", 3), 429),
]


@pytest.mark.parametrize(("error", "status"), AFTER_CALLS, ids=[type(e).__name__ for e, _ in AFTER_CALLS])
def test_every_error_answer_of_a_turn_that_made_a_call_says_do_not_retry_and_no_other_does(error, status):
    after = errors.answer(errors.AfterCalls(error))
    assert after.status_code == status
    assert after.headers["x-should-retry"] == "false"
    assert "x-should-retry" not in errors.answer(error).headers
