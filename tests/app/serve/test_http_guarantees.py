"""The served agent's HTTP-level guarantees, timed and counted over loopback against `python main.py serve`:
a database that is down is a 503 with Retry-After within seconds (for the agent and the device service); a
worker answers 503 past SERVE_MAX_CONNECTIONS connections and serves again once one closes; an idle
keep-alive connection closes after 5 s, and a request within that time is served on it; a streamed answer
its client stops reading is dropped after SERVE_SEND_SECONDS while its turn goes on to its end, stored, and
the worker serves others."""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import requests

from app.serve.settings import ServeSettings
from devicedb.server import BackgroundService
from tests.app.serve import test_limits
from tests.support.fake_llm import FakeLLM, Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent

CHAT = "/v1/chat/completions"
DOWN_SECONDS = 10.0  # "within seconds": a pool's 30 s wait would be far past it
CAP = 3  # SERVE_MAX_CONNECTIONS of the served agent below
SEND_SECONDS = 3.0  # SERVE_SEND_SECONDS of the served agent below
KEEP_ALIVE_SECONDS = 5.0
WRITE_BUFFER = Path("/proc/sys/net/ipv4/tcp_wmem")  # its last number: the most a send buffer grows to
# bytes of one streamed piece: more than the sockets between the worker and a client reading nothing hold
BIG = 2 * int(WRITE_BUFFER.read_text().split()[-1]) + (1 << 20) if WRITE_BUFFER.exists() else 16 << 20
MODELS = b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

fragile = test_limits.fragile  # a Postgres database the test can take down


def timed(request: Callable[[], requests.Response]) -> tuple[float, requests.Response]:
    started = time.monotonic()
    answer = request()
    return time.monotonic() - started, answer


def chat(agent: ServedAgent, key: str) -> requests.Response:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    headers = {"Authorization": f"Bearer {key}"}
    return requests.post(f"{agent.url}{CHAT}", json=body, headers=headers, timeout=60)


def test_a_database_that_is_down_is_a_503_with_retry_after_within_seconds_for_the_agent(
    fake_llm, tmp_path, fragile
):
    url, take_down = fragile
    fake_llm.default = text("ok")
    with ServedAgent(fake_llm.url, tmp_path, url) as agent:
        key = agent.key("alice")
        assert chat(agent, key).status_code == 200  # the twin: served while the database is up
        take_down()
        refused = [timed(lambda: chat(agent, key)) for _ in range(2)]  # a lost connection, then an empty pool
    for took, answer in refused:
        assert (answer.status_code, answer.headers["Retry-After"]) == (503, "5"), answer.text
        assert answer.json()["error"]["code"] == "database_unavailable"
        assert took < DOWN_SECONDS, f"the 503 took {took:.1f}s"


def test_a_database_that_is_down_is_a_503_with_retry_after_within_seconds_for_the_device_service(fragile):
    url, take_down = fragile
    with BackgroundService(url) as service:
        models = f"{service.url}/api/models"
        assert requests.get(models, timeout=60).status_code == 200
        take_down()
        refused = [timed(lambda: requests.get(models, timeout=60)) for _ in range(2)]
    for took, answer in refused:
        assert (answer.status_code, answer.headers["Retry-After"]) == (503, "5"), answer.text
        assert took < DOWN_SECONDS, f"the 503 took {took:.1f}s"


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    """One worker that holds CAP connections and gives a client SEND_SECONDS to take a streamed piece."""
    tmp = tmp_path_factory.mktemp("guarantees")
    limits = {"SERVE_MAX_CONNECTIONS": str(CAP), "SERVE_SEND_SECONDS": str(SEND_SECONDS)}
    with FakeLLM() as llm, ServedAgent(llm.url, tmp, str(tmp / "agent.db"), **limits) as agent:
        agent.llm = llm
        agent.keys = {user: agent.key(user) for user in ("alice", "bob")}
        yield agent


def connect(agent: ServedAgent, receive_buffer: int | None = None) -> socket.socket:
    conn = socket.socket()
    conn.settimeout(30)
    if receive_buffer:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    conn.connect(("127.0.0.1", agent.port))
    return conn


def status_on(conn: socket.socket) -> int:
    """The status of a GET /v1/models sent on `conn` (401: served: it has no key), read whole."""
    conn.sendall(MODELS)
    data = b""
    while b"\r\n\r\n" not in data:
        data += (piece := conn.recv(4096))
        assert piece, "the connection was closed instead of answered"
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?im)^content-length: *(\d+)", head)[1])
    while len(body) < length:
        body += (piece := conn.recv(4096))
        assert piece, "the connection was closed mid-answer"
    return int(head.split(b" ")[1])


def test_a_worker_answers_503_past_its_connection_cap_and_serves_again_once_one_closes(agent):
    with contextlib.ExitStack() as stack:
        held, statuses = [], []
        for _ in range(CAP + 1):  # one more connection at a time, each kept open
            held.append(stack.enter_context(connect(agent)))
            statuses.append(status_on(held[-1]))
        assert statuses == [401] * CAP + [503]  # CAP served at once, the one past it refused
        assert held[-1].recv(1024) == b""  # the refused one is closed
        assert status_on(held[0]) == 401  # those held are still served
        held[0].close()
        give_up_at, again = time.monotonic() + 3, 503
        while again == 503 and time.monotonic() < give_up_at:  # until the worker has seen it close
            with connect(agent) as fresh:
                again = status_on(fresh)
                if again == 401:
                    assert status_on(held[1]) == 401  # beside the other one still held
        assert again == 401


def test_an_idle_keep_alive_connection_closes_after_5_seconds_and_is_served_within_them(agent):
    with connect(agent) as kept:
        assert status_on(kept) == 401
        time.sleep(KEEP_ALIVE_SECONDS / 2)
        assert status_on(kept) == 401  # a request within the idle time: served on the same connection
        idle_from = time.monotonic()
        assert kept.recv(1024) == b""  # then closed by the server, with nothing sent
        idle = time.monotonic() - idle_from
    assert KEEP_ALIVE_SECONDS - 1 < idle < KEEP_ALIVE_SECONDS + 3, f"closed after {idle:.1f}s idle"


def stalling_model(release: threading.Event, big_at: list[float]) -> Callable[[dict], Reply]:
    """A model whose first reply of a turn is BIG characters of text beside a calculator call (the moment
    it gives one is added to `big_at`), and whose answer after the call waits for `release`."""

    def reply(request: dict) -> Reply:
        if request["messages"][-1]["role"] != "tool":
            big_at.append(time.monotonic())
            return Reply(tool_calls(call("calculator", {"expression": "6*7"}, "c1"), content="x" * BIG))
        release.wait(60)
        return Reply(text("It is 42."))

    return reply


def open_stream(agent: ServedAgent, user: str) -> socket.socket:
    """A streamed turn on a connection whose client reads only the answer's status line, and keeps
    as little of it as the system lets it."""
    conn = connect(agent, receive_buffer=4096)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True})
    head = (
        f"POST {CHAT} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {agent.keys[user]}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    conn.sendall(head.encode() + body.encode())
    assert conn.recv(17) == b"HTTP/1.1 200 OK\r\n"
    return conn


def read_to_the_end(conn: socket.socket) -> bytes:
    """All that `conn` still gives, up to the server closing (or resetting) it, or to the end of a finished
    stream."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while b"data: [DONE]" not in data[-100:] and (piece := conn.recv(1 << 20)):
            data += piece
    return data


def given_both(big_at: list[float], timeout: float = 60) -> float:
    """When the model gave the second of the two turns its big first reply."""
    give_up_at = time.monotonic() + timeout
    while len(big_at) < 2:
        assert time.monotonic() < give_up_at, "the model was not asked for both turns"
        time.sleep(0.05)
    return max(big_at)


def answers_of(agent: ServedAgent, users: tuple[str, str], timeout: float = 60) -> list[tuple]:
    """(state, answer) of the two users' conversations, once both have one and neither runs any more."""
    sql = "SELECT state, answer FROM conversations WHERE user_id IN (?, ?) ORDER BY user_id"
    give_up_at = time.monotonic() + timeout
    while len(found := agent.query(sql, users)) < 2 or {"new", "running"} & {state for state, _ in found}:
        assert time.monotonic() < give_up_at, f"the turns did not finish: {found}"
        time.sleep(0.1)
    return found


def test_a_stream_not_read_for_send_seconds_is_dropped_its_turn_goes_on_and_others_are_served(agent):
    assert ServeSettings.model_fields["serve_send_seconds"].default == 30  # the documented 30 s
    users = ("carol", "dave")
    agent.keys |= {user: agent.key(user) for user in users}
    release, big_at = threading.Event(), []
    agent.llm.default = stalling_model(release, big_at)
    with open_stream(agent, "carol") as stalled, open_stream(agent, "dave") as slow:
        time.sleep(SEND_SECONDS / 3)  # the twin: a client that is slow, not gone, keeps its stream
        followed = []
        reading = threading.Thread(target=lambda: followed.append(read_to_the_end(slow)))
        reading.start()
        sent_from = given_both(big_at)  # a loaded machine may take seconds to ask the model
        time.sleep(max(0.0, sent_from + SEND_SECONDS + 4 - time.monotonic()))  # 4 s to pass the piece on
        release.set()  # the turns answer after the stalled client was dropped
        assert answers_of(agent, users) == [("done", "It is 42.")] * 2
        reading.join(30)
        # a turn's last piece is sent by the time it is stored, so its client is dropped SEND_SECONDS later
        # at the latest: reading sooner could take a stalled piece in time
        time.sleep(SEND_SECONDS + 2)
        cut = read_to_the_end(stalled)  # what was already on its way, and then the end of the connection
    assert b"It is 42." not in cut and b"[DONE]" not in cut, f"not dropped: it ends {cut[-200:]!r}"
    assert followed and b"It is 42." in followed[0] and b"data: [DONE]" in followed[0], "the slow one was cut"
    stored = (
        "SELECT COUNT(*) FROM messages JOIN conversations ON id = conversation_id WHERE user_id IN (?, ?)"
    )
    assert agent.query(stored, users) == [(8,)]  # each turn's 4: question, call, result, answer
    agent.llm.default = text("Served.")
    assert "Served." in chat(agent, agent.keys["alice"]).text  # the worker serves others


@pytest.mark.xfail(
    strict=True,
    reason="a dropped stream's connection stays open, and counted, until its client reads or closes it",
)
def test_a_dropped_stream_holds_no_connection(agent):
    agent.llm.default = text("x" * BIG)
    with open_stream(agent, "alice"):
        time.sleep(SEND_SECONDS + 2)  # the stream is dropped meanwhile
        with contextlib.ExitStack() as stack:
            statuses = [status_on(stack.enter_context(connect(agent))) for _ in range(CAP)]
    assert statuses == [401] * CAP
