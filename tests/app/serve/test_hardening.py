"""The served agent at the HTTP level: a connection that trickles its headers is closed, JSON answers say
nosniff and no-store, a Host outside SERVE_ALLOWED_HOSTS is a 400, and history a client gets wrong (a
tool call's id that is no string) is a 400, never a 500 — each beside a request that is served."""

from __future__ import annotations

import select
import socket
import time

import pytest
import requests

from app.serve.hardening import HEADER_SECONDS
from tests.support.fake_llm import FakeLLM, Reply, text
from tests.support.serve_support import ServedAgent


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    from tests.support.fake_llm import FakeLLM

    tmp = tmp_path_factory.mktemp("hardened")
    with (
        FakeLLM() as llm,
        ServedAgent(llm.url, tmp, str(tmp / "agent.db"), SERVE_ALLOWED_HOSTS="127.0.0.1") as agent,
    ):
        agent.llm = llm
        agent.keys = {"alice": agent.key("alice")}
        yield agent


def test_json_answers_say_nosniff_and_no_store_and_the_page_nosniff(agent):
    refused = requests.get(f"{agent.url}/v1/models", timeout=10)
    assert refused.status_code == 401
    assert (refused.headers["X-Content-Type-Options"], refused.headers["Cache-Control"]) == (
        "nosniff",
        "no-store",
    )
    page = requests.get(f"{agent.url}/", timeout=10)
    assert page.headers["X-Content-Type-Options"] == "nosniff"


def test_every_answer_of_the_app_says_nosniff_and_every_json_one_no_store(agent):
    """Each kind of answer the app gives (a turn answered whole and streamed, the model list, the
    conversations, the page and its files, and the refusals: no key, no such path or method, a body too
    large, a body that is no JSON, fields that do not fit) says nosniff, and each JSON one no-store."""
    key = {"Authorization": f"Bearer {agent.keys['alice']}"}
    agent.llm.default = text("Hello.")
    said = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    chat = f"{agent.url}/v1/chat/completions"
    try:
        answers = {
            "turn": requests.post(chat, json=said, headers=key, timeout=60),
            "streamed turn": requests.post(chat, json={**said, "stream": True}, headers=key, timeout=60),
            "models": requests.get(f"{agent.url}/v1/models", headers=key, timeout=10),
            "conversations": requests.get(f"{agent.url}/conversations", headers=key, timeout=10),
            "about": requests.get(f"{agent.url}/about", headers=key, timeout=10),
            "page": requests.get(f"{agent.url}/", timeout=10),
            "script": requests.get(f"{agent.url}/static/app.js", timeout=10),
            "no key": requests.get(f"{agent.url}/v1/models", timeout=10),
            "no such path": requests.get(f"{agent.url}/nowhere", headers=key, timeout=10),
            "no such method": requests.delete(chat, headers=key, timeout=10),
            "too large": requests.post(chat, data=b" " * (2 << 20), headers=key, timeout=30),
            "not json": requests.post(chat, data=b"{", headers=key, timeout=10),
            "wrong fields": requests.post(chat, json={"messages": []}, headers=key, timeout=10),
        }
    finally:
        agent.llm.default = None
    statuses = {name: answer.status_code for name, answer in answers.items()}
    assert statuses == {
        **dict.fromkeys(["turn", "streamed turn", "models", "conversations", "about", "page", "script"], 200),
        **{"no key": 401, "no such path": 404, "no such method": 405, "too large": 413},
        **{"not json": 400, "wrong fields": 400},
    }
    for name, answer in answers.items():
        assert answer.headers.get("X-Content-Type-Options") == "nosniff", name
        if answer.headers["Content-Type"].startswith("application/json"):
            assert answer.headers.get("Cache-Control") == "no-store", name
    assert answers["streamed turn"].headers["Content-Type"].startswith("text/event-stream")


def slow_body(agent: ServedAgent, key: str) -> tuple[int, dict[str, str]]:
    """A request whose body never arrives whole: (status, headers) of the server's answer."""
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
    )
    with socket.create_connection(("127.0.0.1", agent.port), timeout=60) as sock:
        sock.sendall(head.encode())
        said = b""
        while b"\r\n\r\n" not in said and (chunk := sock.recv(4096)):
            said += chunk
    status_line, *lines = said.split(b"\r\n\r\n")[0].decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines)
    return int(status_line.split()[1]), {name.lower(): value for name, value in headers.items()}


def test_a_failed_turn_a_rate_limit_and_a_slow_body_say_nosniff_and_no_store(tmp_path):
    """Its own served agent: turns may take 2 s, 2 a minute; a model that fails, then one too slow."""
    with (
        FakeLLM() as llm,
        ServedAgent(
            llm.url, tmp_path, str(tmp_path / "agent.db"), TURN_SECONDS="2", SERVE_REQUESTS_PER_MINUTE="2"
        ) as agent,
    ):
        key = agent.key("alice")
        said = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        chat, auth = f"{agent.url}/v1/chat/completions", {"Authorization": f"Bearer {key}"}
        if (left := 60 - time.time() % 60) < 40:  # the limit counts a clock minute: the three in one
            time.sleep(left + 0.2)
        answers = {"model error": requests.post(chat, json=said, headers=auth, timeout=120)}
        llm.default = Reply(text("Too late."), delay=10)
        answers["deadline"] = requests.post(chat, json=said, headers=auth, timeout=60)
        answers["rate limit"] = requests.post(chat, json=said, headers=auth, timeout=60)
        statuses = {name: answer.status_code for name, answer in answers.items()}
        assert statuses == {"model error": 502, "deadline": 504, "rate limit": 429}
        for name, answer in answers.items():
            assert answer.headers["Content-Type"].startswith("application/json"), name
            assert answer.headers.get("X-Content-Type-Options") == "nosniff", name
            assert answer.headers.get("Cache-Control") == "no-store", name
        status, headers = slow_body(agent, key)
    assert status == 408
    assert headers.get("x-content-type-options") == "nosniff"
    assert headers.get("cache-control") == "no-store"


def test_a_host_outside_the_allow_list_is_a_400(agent):
    rebound = requests.get(f"{agent.url}/v1/models", headers={"Host": "evil.example:80"}, timeout=10)
    assert rebound.status_code == 400
    assert requests.get(f"{agent.url}/v1/models", timeout=10).status_code == 401  # the twin: our own host


def test_a_connection_trickling_its_headers_is_closed_while_others_are_served(agent):
    """A connection that sends one byte of its headers every half second, and so never finishes them, is
    closed without an answer about 10 s after it opened (the docs' number, not the code's constant), and
    a request on another connection is served meanwhile."""
    with socket.create_connection(("127.0.0.1", agent.port), timeout=30) as slow:
        started = time.monotonic()
        slow.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        assert requests.get(f"{agent.url}/v1/models", timeout=10).status_code == 401
        closed = b"", None
        while time.monotonic() - started < 30:
            if select.select([slow], [], [], 0.5)[0]:
                closed = slow.recv(1024), time.monotonic()
                break
            try:
                slow.sendall(b"X")  # a header that never ends, one byte at a time
            except (BrokenPipeError, ConnectionResetError):
                closed = b"", time.monotonic()
                break
    said, at = closed
    assert said == b"" and at is not None  # closed, with no answer
    assert 9 < at - started < 15


def answer_on(conn: socket.socket) -> bytes:
    """One whole answer read from a raw connection (headers, then Content-Length bytes of body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(
        next(
            line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
    )
    while len(body) < length:
        body += conn.recv(4096)
    return head


def test_a_kept_alive_connection_trickling_its_next_request_is_closed_too(agent):
    request = b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection(("127.0.0.1", agent.port), timeout=HEADER_SECONDS + 10) as kept:
        kept.sendall(request)
        assert answer_on(kept).startswith(b"HTTP/1.1 401")
        kept.sendall(request)  # the twin: a whole second request on the same connection is answered
        assert answer_on(kept).startswith(b"HTTP/1.1 401")
        kept.sendall(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # then one that never ends
        started = time.monotonic()
        assert kept.recv(1024) == b""  # closed, with no answer
    assert time.monotonic() - started < HEADER_SECONDS + 5


def test_a_tool_call_id_that_is_no_string_is_a_400(agent):
    headers = {"Authorization": f"Bearer {agent.keys['alice']}"}
    call = {"id": 7, "type": "function", "function": {"name": "calculator", "arguments": "{}"}}
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "user", "content": "hi"},
    ]
    body = {"model": "m", "messages": messages}
    bad = requests.post(f"{agent.url}/v1/chat/completions", json=body, headers=headers, timeout=30)
    assert bad.status_code == 400 and "id is not a string" in bad.json()["error"]["message"]


def test_history_past_its_cap_is_a_400_and_at_the_cap_is_served(agent):
    """1000 messages of history before the person's are served; 1001 are a 400 that names the cap."""
    headers = {"Authorization": f"Bearer {agent.keys['alice']}"}
    said = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]

    def ask(history: int) -> requests.Response:
        body = {"model": "m", "messages": [*(said * history)[:history], {"role": "user", "content": "hi"}]}
        return requests.post(f"{agent.url}/v1/chat/completions", json=body, headers=headers, timeout=60)

    over = ask(1001)
    assert over.status_code == 400 and "at most 1000" in over.json()["error"]["message"]
    agent.llm.add(text("Hello again."))
    assert ask(1000).json()["choices"][0]["message"]["content"] == "Hello again."


def test_a_key_issued_again_for_a_revoked_name_does_not_inherit_its_conversations_unless_told(agent):
    from tests.conftest import run_main
    from tests.support.fake_llm import text

    def turn(key: str, conversation: str | None = None) -> requests.Response:
        agent.llm.add(text("Hello."))
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        body |= {"conversation_id": conversation} if conversation else {}
        headers = {"Authorization": f"Bearer {key}"}
        return requests.post(f"{agent.url}/v1/chat/completions", json=body, headers=headers, timeout=30)

    def reissue(*options: str) -> str:
        assert run_main("keys", "revoke", "dave", env=agent.env, cwd=agent.cwd).returncode == 0
        done = run_main("keys", "add", "dave", *options, env=agent.env, cwd=agent.cwd)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[-1]

    old = turn(agent.key("dave")).json()["conversation_id"]
    second = reissue()
    assert turn(second, old).status_code == 404  # the revoked key's conversation is not the new key's
    kept = turn(second).json()["conversation_id"]
    third = reissue("--keep-conversations")
    assert turn(third, kept).status_code == 200  # the operator said so: it continues
    assert turn(third, old).status_code == 404


def test_a_bugs_500_says_nosniff_and_no_store_too() -> None:
    """Starlette answers an unexpected error in its outermost layer, which AnswerHeaders does not wrap: the
    app's handler for it says the headers itself (an app of our middleware and handler, a failing route)."""
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from app.serve.app import _bug
    from app.serve.hardening import AnswerHeaders

    def fails() -> None:
        raise RuntimeError("a bug")

    for handler, says in ((_bug, True), (None, False)):  # without it, nothing says them: the test can fail
        app = FastAPI()
        app.add_middleware(AnswerHeaders)
        app.add_api_route("/fails", fails)
        if handler:
            app.add_exception_handler(Exception, handler)
        resp = TestClient(app, raise_server_exceptions=False).get("/fails")
        assert resp.status_code == 500
        assert (resp.headers.get("x-content-type-options") == "nosniff") is says
        assert (resp.headers.get("cache-control") == "no-store") is says
        assert "a bug" not in resp.text  # answered without its message or traceback
