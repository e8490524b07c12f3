"""Limits of the served agent: turns per minute and turns at once per user (429 with Retry-After), the
request's size (413) and the time its body may take (408), a client that leaves mid-turn (it holds
nothing: the turn, a durable workflow, goes on to its end without it), and a database that is down: a 503
within a few seconds, for the served agent and for the device service alike."""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest
import requests

from tests.support.fake_llm import Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices

CHAT = "/v1/chat/completions"


def turn(agent: ServedAgent, key: str, words: str = "hi", **kwargs) -> requests.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": words}], **kwargs}
    return requests.post(
        f"{agent.url}{CHAT}", json=body, headers={"Authorization": f"Bearer {key}"}, timeout=60
    )


@pytest.fixture
def agent(fake_llm, tmp_path):
    limits = {"SERVE_REQUESTS_PER_MINUTE": "3", "SERVE_RUNS_PER_USER": "1"}
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), **limits) as agent:
        agent.keys = {user: agent.key(user) for user in ("alice", "bob")}
        yield agent


def test_more_turns_a_minute_than_allowed_is_a_429_with_retry_after(agent, fake_llm):
    fake_llm.default = text("ok")
    if (left := 60 - time.time() % 60) < 30:  # the limit counts a clock minute: the four in one
        time.sleep(left + 0.5)
    statuses = [turn(agent, agent.keys["alice"]) for _ in range(4)]
    refused = statuses[-1]
    said = [(s.status_code, s.text[:200]) for s in statuses]
    assert [s.status_code for s in statuses] == [200, 200, 200, 429], said
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.json()["error"]["type"] == "rate_limit_error"
    assert turn(agent, agent.keys["bob"]).status_code == 200  # per user


def test_a_second_turn_at_once_is_a_429_and_other_users_are_not_held(agent, fake_llm):
    reached, release = threading.Event(), threading.Event()
    fake_llm.add(lambda request: (reached.set(), release.wait(60), Reply(text("slow")))[-1], text("bob's"))
    with ThreadPoolExecutor(1) as pool:
        slow = pool.submit(turn, agent, agent.keys["alice"])
        assert reached.wait(60)
        refused = turn(agent, agent.keys["alice"], "another conversation")
        assert (refused.status_code, refused.headers["Retry-After"]) == (429, "1")
        assert turn(agent, agent.keys["bob"]).json()["choices"][0]["message"]["content"] == "bob's"
        release.set()
        assert slow.result(timeout=60).status_code == 200


def padded(size: int) -> bytes:
    """A turn's JSON body of exactly `size` bytes (whitespace after the JSON, which JSON allows)."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    return body + b" " * (size - len(body))


def test_a_body_too_large_is_a_413_and_one_too_slow_a_408_while_others_are_served(agent, fake_llm):
    """A body of 1 MiB exactly is served, one byte more is a 413, whether its length is declared or it
    comes in chunks; a body not all there 10 s after its headers is a 408 (between 9 and 15 s), and
    another request is served meanwhile; none of them reaches the model."""
    headers = {"Authorization": f"Bearer {agent.keys['alice']}", "Content-Type": "application/json"}
    fake_llm.default = text("ok")
    at_the_cap = requests.post(f"{agent.url}{CHAT}", data=padded(1 << 20), headers=headers, timeout=60)
    assert at_the_cap.status_code == 200, at_the_cap.text
    fake_llm.default = None
    fake_llm.requests.clear()
    over = padded((1 << 20) + 1)
    declared = requests.post(f"{agent.url}{CHAT}", data=over, headers=headers, timeout=60)
    chunked = requests.post(
        f"{agent.url}{CHAT}", data=iter([over[:1000], over[1000:]]), headers=headers, timeout=60
    )
    assert "Content-Length" not in chunked.request.headers
    for refused in (declared, chunked):
        assert (refused.status_code, refused.json()["error"]["code"]) == (413, "request_too_large")
    with socket.create_connection(("127.0.0.1", agent.port), timeout=60) as slow:
        head = f"POST {CHAT} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n"
        slow.sendall(f"{head}\r\n{{".encode())  # a tenth of the body, and then nothing
        started = time.monotonic()
        assert requests.get(f"{agent.url}/v1/models", timeout=30).status_code == 401  # still served
        answer = ""
        while "}}" not in answer and (chunk := slow.recv(4096).decode()):  # headers, then the JSON body
            answer += chunk
        waited = time.monotonic() - started
    assert answer.startswith("HTTP/1.1 408") and '"request_timeout"' in answer
    assert 9 < waited < 15, waited
    assert fake_llm.requests == []


def test_a_client_that_leaves_mid_turn_does_not_stop_it(agent, fake_llm):
    reached, release = threading.Event(), threading.Event()
    add = tool_calls(call("add_device_model", {"model": "CPH2223"}, "c1"))
    fake_llm.add(lambda request: (reached.set(), release.wait(60), Reply(add))[-1], text("Added CPH2223."))
    body = {"model": "m", "messages": [{"role": "user", "content": "add CPH2223"}], "stream": True}
    headers = {"Authorization": f"Bearer {agent.keys['alice']}"}
    with requests.post(f"{agent.url}{CHAT}", json=body, headers=headers, stream=True, timeout=60) as stream:
        assert next(stream.iter_lines()).startswith(b"data: ")
        assert reached.wait(60)
    release.set()  # the model answers after the client left
    give_up_at = time.monotonic() + 60
    while agent.query("SELECT state, answer FROM conversations") != [("done", "Added CPH2223.")]:
        assert time.monotonic() < give_up_at, "the turn did not finish"
        time.sleep(0.1)
    assert devices(agent.database) == [("CPH2223", "alice")]  # its call ran, once
    [(stored,)] = agent.query("SELECT COUNT(*) FROM messages")
    assert stored == 4 and agent.query("SELECT lease_owner FROM conversations") == [(None,)]


@pytest.fixture
def fragile(postgres):
    """A Postgres database that the test can take down: it stops accepting connections, and loses its own."""
    name = f"fragile_{uuid.uuid4().hex[:10]}"
    url = postgres.create_database(name)

    def take_down() -> None:
        with psycopg.connect(postgres.url(), autocommit=True) as conn:
            conn.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,))

    yield url, take_down
    postgres.drop_database(name)
