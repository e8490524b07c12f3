"""Following a running turn (app/serve/follow.py): a client that sends the same run again — the same
Idempotency-Key, or the same AG-UI thread and run id — while it runs is told the turn as it goes on, and
the turn runs once. So it is after `kill -9` of the whole server: the restart recovers the turn, and the
client that lost its stream sends the run again and follows it to its answer. And cancelling one: it
runs no more calls."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import requests

from tests.app.serve.test_crash import holding
from tests.app.serve.test_durable import cut_off, decisions
from tests.support.fake_llm import Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices


def held(reached: threading.Event, release: threading.Event, reply: dict):
    """A script entry that answers `reply` once the test lets it."""

    def hold(request: dict) -> Reply:
        reached.set()
        release.wait(60)
        return Reply(reply)

    return hold


def openai_stream(agent: ServedAgent, key: str, run_key: str, on_event=lambda event: None) -> list[dict]:
    """The chunks of a streamed turn sent with `run_key` as its Idempotency-Key; `on_event(chunk)` as each
    arrives."""
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "add CPH2223"}]}
    headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": run_key}
    chunks: list[dict] = []
    with requests.post(f"{agent.url}/v1/chat/completions", json=body, headers=headers, stream=True) as answer:
        assert answer.status_code == 200, answer.text
        for line in answer.iter_lines():
            if line.startswith(b"data: {"):
                chunks.append(json.loads(line[6:]))
                on_event(chunks[-1])
    return chunks


def said(chunks: list[dict]) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def results(chunks: list[dict]) -> list[Any]:
    return [c["agent_tool_result"]["result"]["ok"] for c in chunks if "agent_tool_result" in c]


def test_the_same_run_sent_again_while_it_runs_is_followed_not_run_twice(fake_llm, tmp_path):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2223"}, "c1")
    fake_llm.add(tool_calls(add), held(reached, release, text("CPH2223 is in.")))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), workers=2) as agent:
        key = agent.key("alice")
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(openai_stream, agent, key, "run-1")
            assert reached.wait(60), agent.log()

            def let_go(chunk: dict) -> None:  # the follower has been told the call's result: go on
                if "agent_tool_result" in chunk:
                    release.set()

            again = openai_stream(agent, key, "run-1", let_go)
            chunks = first.result(60)
        assert said(chunks) == said(again) == "CPH2223 is in."
        assert results(chunks) == results(again) == [True]
        assert again[-1]["choices"][0]["finish_reason"] == "stop"
        assert len(fake_llm.requests) == 2  # one turn's requests: the run was not run a second time
        assert devices(agent.database) == [("CPH2223", "alice")]
        assert decisions(agent, "c1") == ["ran"]


def test_after_the_server_was_killed_the_client_follows_the_recovered_turn(fake_llm, tmp_path):
    reached, release, recovered, answer = (threading.Event() for _ in range(4))
    add = call("add_device_model", {"model": "CPH2223"}, "c1")
    fake_llm.add(tool_calls(add), holding(reached, release), held(recovered, answer, text("CPH2223 is in.")))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db")) as agent:
        agent.keys = {"alice": agent.key("alice")}
        cut_off(agent, "add CPH2223", reached.is_set, idempotency_key="run-1")
        release.set()  # the dead server's request gets its answer, which nobody reads
        agent.start()
        assert recovered.wait(60), agent.log()  # the restart took the turn up, with nobody asking

        def let_go(chunk: dict) -> None:
            if "agent_tool_result" in chunk:
                answer.set()

        chunks = openai_stream(agent, agent.keys["alice"], "run-1", let_go)
        assert said(chunks) == "CPH2223 is in." and results(chunks) == [True]
        assert len(fake_llm.requests) == 3
        assert devices(agent.database) == [("CPH2223", "alice")]
        assert decisions(agent, "c1") == ["ran"]


def test_a_run_nobody_runs_any_more_is_said_to_have_stopped(fake_llm, tmp_path):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(holding(reached, release))
    database = str(tmp_path / "agent.db")
    with ServedAgent(fake_llm.url, tmp_path, database, SERVE_DURABLE="0") as agent:
        agent.keys = {"alice": agent.key("alice")}
        cut_off(agent, "add CPH2223", reached.is_set, idempotency_key="run-1")
        release.set()
        agent.start()
        agent.query_execute("UPDATE conversations SET lease_until = ?", (time.time() + 1,))  # soon over
        chunks = openai_stream(agent, agent.keys["alice"], "run-1")  # followed until its lease runs out
        assert chunks[-1]["error"]["code"] == "turn_stopped"
        assert "stopped before it answered" in chunks[-1]["error"]["message"]


def test_a_cancelled_turn_runs_no_more_calls(fake_llm, tmp_path):
    reached, release = threading.Event(), threading.Event()
    first = tool_calls(call("add_device_model", {"model": "CPH2223"}, "c1"))
    more = tool_calls(call("add_device_model", {"model": "RMX1901"}, "c2"))
    fake_llm.add(first, held(reached, release, more))
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), workers=2) as agent:
        key = agent.key("alice")
        with ThreadPoolExecutor(1) as pool:
            turn = pool.submit(openai_stream, agent, key, "run-1")
            assert reached.wait(60), agent.log()
            [(conversation,)] = agent.query("SELECT id FROM conversations")
            headers = {"Authorization": f"Bearer {key}"}
            cancel = f"{agent.url}/conversations/{conversation}/cancel"
            stopped = requests.post(cancel, headers=headers, timeout=30)
            release.set()
            chunks = turn.result(60)
        assert stopped.status_code == 200 and stopped.json()["cancelled"] is True, stopped.text
        assert chunks[-1]["error"]["code"] == "turn_cancelled"
        assert devices(agent.database) == [("CPH2223", "alice")]  # the call after the cancel did not run
        assert decisions(agent, "c1") == ["ran"] and decisions(agent, "c2") == []
        assert agent.query("SELECT state FROM conversations") == [("cancelled",)]
        again = requests.post(cancel, headers=headers, timeout=30).json()
        assert again["cancelled"] is False  # nothing runs there now
        bob = {"Authorization": f"Bearer {agent.key('bob')}"}
        assert requests.post(cancel, headers=bob, timeout=30).status_code == 404  # not bob's


def test_following_counts_against_the_persons_turns_at_once(fake_llm, tmp_path):
    """Each follow holds one of the worker's turn threads while the turn runs: a person may have at most
    SERVE_RUNS_PER_USER of them at once on a worker, and the next is a 429."""
    reached, release, following = threading.Event(), threading.Event(), threading.Event()
    fake_llm.add(held(reached, release, text("CPH2223 is in.")))
    database = str(tmp_path / "agent.db")
    with ServedAgent(fake_llm.url, tmp_path, database, SERVE_RUNS_PER_USER="1") as agent:
        key = agent.key("alice")
        with ThreadPoolExecutor(2) as pool:
            first = pool.submit(openai_stream, agent, key, "run-1")
            assert reached.wait(60), agent.log()
            follower = pool.submit(openai_stream, agent, key, "run-1", lambda chunk: following.set())
            assert following.wait(60), agent.log()
            body = {"model": "m", "messages": [{"role": "user", "content": "add CPH2223"}]}
            headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": "run-1"}
            more = requests.post(f"{agent.url}/v1/chat/completions", json=body, headers=headers, timeout=30)
            release.set()
            assert said(first.result(60)) == said(follower.result(60)) == "CPH2223 is in."
        assert more.status_code == 429 and more.headers["Retry-After"] == "1", more.text
        assert "follow turns here" in more.json()["error"]["message"]
