"""What docs/serving.en.md promises of `main.py serve`, measured over loopback HTTP against its real worker
processes (the turn's deadline against the agent's host in this process):

- an approval runs its call once: the same request again, the same explicit approval again or another
  "yes" runs nothing more, as the audit and the device service's rows count it;
- an approval lasts its lifetime (SERVE_APPROVAL_SECONDS, here 3 s): answered within it the call runs,
  answered after it the call does not run and the person is told that it expired;
- a user's turns at once (SERVE_RUNS_PER_USER, here 2) are counted across workers: six turns sent at once
  on connections that both workers hold run two, and the other four are a 429 with Retry-After;
- a user's turns a minute (SERVE_REQUESTS_PER_MINUTE, here 20) are counted across workers: twenty turns
  sent half on each worker are served, and the next on either worker is a 429 with Retry-After;
- an AG-UI run sent again with the same threadId and runId while it runs is followed to its end, in the
  protocol's own events, and the turn runs once;
- the turn's deadline bounds a device service that never answers and an MCP tool that never returns, and a
  tool that runs past it ends the turn before the next request to the model; the history stays valid.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest
import requests
from ag_ui.core import RunFinishedEvent, RunStartedEvent, ToolCallResultEvent, UserMessage

from agent.agent import ChatAgent
from agent.audit import AuditLog
from agent.guards import Limits, envelope_of
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import ToolRegistry
from agent.types import DeadlineError
from tests.agent.test_host_rules import Probe, assert_every_call_has_a_result, make_agent, tool_messages
from tests.app.mcp.test_client import BAD, toolset
from tests.app.serve.test_agui import run_input, said
from tests.app.serve.test_durable import decisions
from tests.app.serve.test_follow import held
from tests.support.fake_llm import FakeLLM, call, text, tool_calls
from tests.support.serve_support import EVENT, ServedAgent, descendants, devices
from tools.model_tool import AddModelTool

CHAT = "/v1/chat/completions"
LIFETIME = 3.0  # the served agent's SERVE_APPROVAL_SECONDS
RUNS = 2  # its SERVE_RUNS_PER_USER
PER_MINUTE = 20  # its SERVE_REQUESTS_PER_MINUTE (alice, who starts the most turns here, starts about 15)
USERS = ("alice", "erin", "gina", "ivan")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`main.py serve --workers 2` on the scripted LLM (`server.llm`), with short approvals and two turns
    at once per user; everyone may add and delete models."""
    tmp = tmp_path_factory.mktemp("guarantees")
    (tmp / "permissions.json").write_text(json.dumps({"default": ["add_model", "delete_model"]}))
    env = {
        "PERMISSIONS_FILE": str(tmp / "permissions.json"),
        "SERVE_APPROVAL_SECONDS": f"{LIFETIME:g}",
        "SERVE_RUNS_PER_USER": str(RUNS),
        "SERVE_REQUESTS_PER_MINUTE": str(PER_MINUTE),
    }
    with FakeLLM() as llm, ServedAgent(llm.url, tmp, str(tmp / "agent.db"), workers=2, **env) as agent:
        agent.llm = llm
        agent.keys = {user: agent.key(user) for user in USERS}
        yield agent


@pytest.fixture
def agent(server):
    server.llm.script.clear()
    server.llm.requests.clear()
    server.llm.default = None
    return server


def chat(agent: ServedAgent, user: str, words: str, conversation: str | None = None, key: str = "", **body):
    """One plain turn on the OpenAI face; `key`: its Idempotency-Key."""
    payload = {"model": "m", "messages": [{"role": "user", "content": words}], **body}
    if conversation:
        payload["conversation_id"] = conversation
    headers = {"Authorization": f"Bearer {agent.keys[user]}", **({"Idempotency-Key": key} if key else {})}
    return requests.post(f"{agent.url}{CHAT}", json=payload, headers=headers, timeout=60)


def answer_of(response: requests.Response) -> str:
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]["content"]


def added(agent: ServedAgent, code: str, call_id: str) -> str:
    """A new conversation in which alice has just added `code`."""
    agent.llm.add(tool_calls(call("add_device_model", {"model": code}, call_id)), text(f"Added {code}."))
    done = chat(agent, "alice", f"add {code}")
    assert answer_of(done) == f"Added {code}." and (code, "alice") in devices(agent.database)
    return done.json()["conversation_id"]


def asked_to_delete(agent: ServedAgent, code: str, call_id: str, conversation: str) -> dict:
    """The approval the delete of `code` waits for."""
    agent.llm.add(tool_calls(call("delete_device_model", {"model": code}, call_id)))
    asked = chat(agent, "alice", f"delete {code}", conversation)
    pending = asked.json()["pending_approval"]
    assert (pending["tool_call_id"], pending["arguments"]) == (call_id, {"model": code}), asked.text
    return {**pending, "question": answer_of(asked)}


def ran(agent: ServedAgent, tool: str) -> int:
    """How many times the audit says `tool` ran, in any conversation."""
    lines = (agent.cwd / "audit.jsonl").read_text().splitlines()
    return sum(1 for line in map(json.loads, lines) if line["tool"] == tool and line["decision"] == "ran")


def error_of(response: requests.Response) -> dict:
    return response.json()["error"]


# --- approvals --------------------------------------------------------------------------------------


def test_an_approval_runs_its_call_once_and_no_replay_or_second_yes_runs_it_again(agent):
    conversation = added(agent, "CPH3101", "a31")
    approval = asked_to_delete(agent, "CPH3101", "d31", conversation)
    agent.llm.add(text("Deleted CPH3101."))
    assert answer_of(chat(agent, "alice", "yes", conversation, key="yes-31")) == "Deleted CPH3101."
    assert "CPH3101" not in [model for model, _ in devices(agent.database)]
    assert decisions(agent, "d31") == ["awaiting_approval", "ran"]
    deletes, model_requests = ran(agent, "delete_device_model"), len(agent.llm.requests)

    again = chat(agent, "alice", "yes", conversation, key="yes-31")  # the approving request, sent again
    assert answer_of(again) == "Deleted CPH3101."  # its answer, told again
    explicit = {"id": approval["id"], "approved": True}
    replayed = chat(agent, "alice", "I approve", conversation, approval=explicit)  # the approval again
    assert replayed.status_code == 400 and error_of(replayed)["code"] == "no_such_approval", replayed.text
    assert len(agent.llm.requests) == model_requests
    assert decisions(agent, "d31") == ["awaiting_approval", "ran"]

    added(agent, "CPH3101", "a32")  # the model is back (added elsewhere), and the model asks to delete it
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "CPH3101"}, "d32")))
    second = chat(agent, "alice", "yes", conversation)  # a "yes" with no approval waiting: a new turn
    asked_again = second.json()["pending_approval"]
    assert asked_again["tool_call_id"] == "d32" and asked_again["id"] != approval["id"], second.text
    assert ("CPH3101", "alice") in devices(agent.database)
    assert decisions(agent, "d32") == ["awaiting_approval"]
    assert ran(agent, "delete_device_model") == deletes  # one delete ran, the approved one


def test_an_approval_answered_within_its_lifetime_runs_and_one_answered_after_it_does_not(agent):
    late, soon = added(agent, "CPH3201", "a33"), added(agent, "CPH3202", "a34")
    waiting = asked_to_delete(agent, "CPH3201", "d33", late)
    asked_at = time.time()
    expires = datetime.fromisoformat(waiting["expires_at"]).timestamp()
    assert asked_at - 2 <= expires - LIFETIME <= asked_at + 1, waiting  # stamped to the second
    assert f"(valid for {LIFETIME:g} seconds)" in waiting["question"]

    asked_to_delete(agent, "CPH3202", "d34", soon)
    time.sleep(LIFETIME / 3)
    agent.llm.add(text("Deleted CPH3202."))
    assert answer_of(chat(agent, "alice", "yes", soon)) == "Deleted CPH3202."
    assert "CPH3202" not in [model for model, _ in devices(agent.database)]
    assert decisions(agent, "d34") == ["awaiting_approval", "ran"]

    time.sleep(max(0.0, asked_at + LIFETIME + 0.5 - time.time()))
    explicit = {"id": waiting["id"], "approved": True}
    expired = chat(agent, "alice", "I approve", late, approval=explicit)
    assert expired.status_code == 400, expired.text
    assert error_of(expired)["code"] == "approval_expired" and "expired" in error_of(expired)["message"]
    agent.llm.add(text("That approval expired; ask me again."))
    assert answer_of(chat(agent, "alice", "yes", late)) == "That approval expired; ask me again."
    *_, cancelled, person = agent.llm.requests[-1]["messages"]
    assert cancelled["tool_call_id"] == "d33" and envelope_of(cancelled["content"])["error"] == "cancelled"
    assert person == {"role": "user", "content": "yes"}
    assert ("CPH3201", "alice") in devices(agent.database)
    assert decisions(agent, "d33") == ["awaiting_approval"]


# --- turns at once, across workers ------------------------------------------------------------------


def server_end(agent: ServedAgent, connection: http.client.HTTPConnection) -> int:
    """The worker process that holds the server's end of `connection` (its socket's inode, in /proc)."""
    assert agent.process is not None and connection.sock is not None
    ours = connection.sock.getsockname()[1]
    with open("/proc/net/tcp") as table:
        rows = [line.split() for line in table.readlines()[1:]]
    inode = next(
        row[9]
        for row in rows
        if int(row[1].split(":")[1], 16) == agent.port and int(row[2].split(":")[1], 16) == ours
    )
    for pid in descendants(agent.pid):
        try:
            fds = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
        except OSError:
            continue
        if f"socket:[{inode}]" in fds:
            return pid
    raise AssertionError(f"no process of the server holds the connection from port {ours}")


def connections_on_each_worker(agent: ServedAgent, user: str, each: int) -> dict[int, list[Any]]:
    """`each` open connections held by each of the two workers: {pid: [connection, ...]}."""
    held_by: dict[int, list[Any]] = {}
    spare = []
    for _ in range(60):
        connection = http.client.HTTPConnection("127.0.0.1", agent.port, timeout=60)
        connection.request("GET", "/v1/models", headers={"Authorization": f"Bearer {agent.keys[user]}"})
        assert connection.getresponse().read() and connection.sock is not None  # accepted, kept open
        pid = server_end(agent, connection)
        (held_by.setdefault(pid, []) if len(held_by.get(pid, [])) < each else spare).append(connection)
        if len(held_by) == 2 and all(len(group) == each for group in held_by.values()):
            break
    for connection in spare:
        connection.close()
    assert sorted(map(len, held_by.values())) == [each, each], f"one worker took every connection: {held_by}"
    return held_by


def post_turn(connection: http.client.HTTPConnection, key: str, words: str) -> tuple[int, Any, dict]:
    """A turn sent on this very connection (http.client opens no other): (status, headers, body)."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": words}]})
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    connection.request("POST", CHAT, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.headers, json.loads(response.read())


def test_turns_at_once_are_counted_across_workers_and_the_rest_are_a_429_with_retry_after(agent):
    reached, release = threading.Event(), threading.Event()
    agent.llm.default = held(reached, release, text("done"))  # every turn admitted waits on the model
    by_worker = connections_on_each_worker(agent, "erin", each=3)
    sent = [(pid, connection) for pid, group in by_worker.items() for connection in group]
    key = agent.keys["erin"]
    try:
        with ThreadPoolExecutor(len(sent)) as pool:
            turns = [pool.submit(post_turn, c, key, f"turn {i}") for i, (_, c) in enumerate(sent)]
            give_up_at = time.monotonic() + 60
            while sum(t.done() for t in turns) + len(agent.llm.requests) < len(sent):  # answered or held
                assert time.monotonic() < give_up_at, agent.log()
                time.sleep(0.05)
            running = agent.query(
                "SELECT lease_process FROM conversations WHERE user_id = ? AND state = 'running'",
                ("erin",),
            )
            time.sleep(0.5)  # nothing more reaches the model meanwhile
            model_requests = len(agent.llm.requests)
            refused = [
                (pid, turn.result()) for (pid, _), turn in zip(sent, turns, strict=True) if turn.done()
            ]
            release.set()
            answered = [turn.result(timeout=60) for turn in turns]
    finally:
        release.set()
        for _, connection in sent:
            connection.close()
    assert model_requests == RUNS and len(refused) == len(sent) - RUNS
    for _, (status, headers, body) in refused:
        assert (status, headers["Retry-After"], body["error"]["type"]) == (429, "1", "rate_limit_error"), body
        assert "turns of yours are running already" in body["error"]["message"]
    assert sorted(status for status, _, _ in answered) == [200] * RUNS + [429] * (len(sent) - RUNS)
    running_on = [int(process.split(":")[0]) for (process,) in running]
    assert len(running_on) == RUNS and set(running_on) <= set(by_worker), (running_on, by_worker)
    # a count kept by each worker would have let in up to RUNS on each; some turns were refused on a
    # worker that ran fewer than RUNS of erin's turns
    assert any(running_on.count(pid) < RUNS for pid, _ in refused)


def test_turns_a_minute_are_counted_across_workers_and_the_next_is_a_429_with_retry_after(agent):
    """Twenty turns of one user, ten on each worker, are served; the next one is a 429 with Retry-After on
    either worker (a count kept by each worker would have let in twenty on each)."""
    agent.llm.default = text("ok")
    by_worker = connections_on_each_worker(agent, "ivan", each=1)
    [(one, [first]), (other, [second])] = by_worker.items()
    key = agent.keys["ivan"]
    try:
        if (left := 60 - time.time() % 60) < 5:  # the turns are counted by the minute: all in one
            time.sleep(left + 0.1)
        minute = time.time() // 60
        served = [post_turn(c, key, "hi")[0] for _ in range(PER_MINUTE // 2) for c in (first, second)]
        refused = [post_turn(c, key, "hi") for c in (first, second)]
        assert time.time() // 60 == minute, "the turns took more than 5 s"
    finally:
        first.close()
        second.close()
    assert one != other and served == [200] * PER_MINUTE, served
    assert [status for status, _, _ in refused] == [429, 429], refused
    for _, headers, body in refused:
        assert body["error"]["type"] == "rate_limit_error", body
        assert (
            1 <= int(headers["Retry-After"]) <= 60
            and f"over {PER_MINUTE} turns a minute" in body["error"]["message"]
        )


# --- following an AG-UI run -------------------------------------------------------------------------


def agui_events(agent: ServedAgent, user: str, run, on_event=lambda event: None, until=lambda e: False):
    """The AG-UI events of a run as they come, read as the protocol's own types; the client leaves after
    the event `until` accepts."""
    body = run.model_dump(mode="json", by_alias=True, exclude_none=True)
    headers = {"Authorization": f"Bearer {agent.keys[user]}", "Accept": "text/event-stream"}
    events: list[Any] = []
    with requests.post(f"{agent.url}/agui", json=body, headers=headers, stream=True, timeout=60) as answer:
        assert answer.status_code == 200, answer.text
        for line in answer.iter_lines():
            if line.startswith(b"data:"):
                events.append(EVENT.validate_json(line[5:].strip()))
                on_event(events[-1])
                if until(events[-1]):
                    break
    return events


def is_result(event: Any) -> bool:
    return isinstance(event, ToolCallResultEvent)


def test_an_agui_run_sent_again_while_it_runs_is_followed_to_its_end_and_runs_once(agent):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH3301"}, "c35")
    agent.llm.add(tool_calls(add), held(reached, release, text("CPH3301 is in.")))
    run = run_input("t-follow", "r-follow", UserMessage(id="u1", content="add CPH3301"))
    try:
        first = agui_events(agent, "gina", run, until=is_result)  # then the client leaves
        assert reached.wait(60), agent.log()  # the turn goes on without it, to the model's held reply
        [(state,)] = agent.query("SELECT state FROM conversations WHERE thread_id = ?", ("t-follow",))
        assert state == "running"
        # the same run again; the model answers once the follower has been told the call's result
        again = agui_events(agent, "gina", run, on_event=lambda event: is_result(event) and release.set())
    finally:
        release.set()
    assert isinstance(first[0], RunStartedEvent) and is_result(first[-1])
    started, finished = again[0], again[-1]
    assert isinstance(started, RunStartedEvent) and isinstance(finished, RunFinishedEvent)
    assert (
        (started.thread_id, started.run_id)
        == (finished.thread_id, finished.run_id)
        == ("t-follow", "r-follow")
    )
    assert finished.outcome.type == "success"
    [told] = [e for e in again if isinstance(e, ToolCallResultEvent)]
    assert told.tool_call_id == "c35" and json.loads(told.content)["data"]["model"] == "CPH3301"
    assert said(again) == "CPH3301 is in."
    assert len(agent.llm.requests) == 2  # one turn's two requests: the run was not run a second time
    assert ("CPH3301", "gina") in devices(agent.database) and decisions(agent, "c35") == ["ran"]
    [(state,)] = agent.query("SELECT state FROM conversations WHERE thread_id = ?", ("t-follow",))
    assert state == "done"


# --- the turn's deadline ----------------------------------------------------------------------------

DEADLINE = 1.5  # the turn's, here; the waits below would last 10 s (device service) and 30 s (MCP)
MARGIN = 4.0  # what a busy machine may add


@pytest.fixture
def silent_service():
    """A device service URL whose socket accepts connections and never answers."""
    with socket.create_server(("127.0.0.1", 0), backlog=16) as listener:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/api/models"


def stopped_by_the_deadline(agent: ChatAgent, fake_llm, words: str) -> float:
    """Seconds the turn of `words` took to stop at its deadline; the history then goes on, valid."""
    started = time.monotonic()
    with pytest.raises(DeadlineError):
        agent.send_message(words)
    took = time.monotonic() - started
    assert len(fake_llm.requests) == 1  # no request to the model after the deadline
    fake_llm.add(text("back"))
    assert agent.send_message("again") == "back"
    assert_every_call_has_a_result(fake_llm.requests[-1])
    return took


def test_the_deadline_bounds_a_device_service_that_never_answers(fake_llm, tmp_path, silent_service):
    tool = AddModelTool(silent_service)
    agent = make_agent(fake_llm, tmp_path, tool, permissions=("add_model",), deadline_seconds=DEADLINE)
    fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH3401"}, "c41")))
    took = stopped_by_the_deadline(agent, fake_llm, "add CPH3401")
    assert DEADLINE - 0.2 <= took < DEADLINE + MARGIN, took
    cut = tool_messages(fake_llm.requests[-1])["c41"]
    assert not cut["ok"] and "did not answer within" in cut["error"], cut


def test_the_deadline_bounds_an_mcp_tool_that_never_returns(fake_llm, tmp_path):
    registry = ToolRegistry(confirm=lambda *a: True, audit=AuditLog(tmp_path / "audit.jsonl"))
    with toolset(tmp_path, replace(BAD, timeout=30), registry=registry):
        llm = CustomLLMWrapper(base_url=fake_llm.url)
        agent = ChatAgent(llm, registry, user_id="alice", limits=Limits(deadline_seconds=DEADLINE))
        fake_llm.add(tool_calls(call("bad__hang", {}, "c42")))
        took = stopped_by_the_deadline(agent, fake_llm, "hang")
    assert DEADLINE - 0.2 <= took < DEADLINE + MARGIN, took
    cut = tool_messages(fake_llm.requests[-1])["c42"]
    assert not cut["ok"] and "no answer within" in cut["error"], cut


def test_a_tool_that_runs_past_the_deadline_ends_the_turn_before_the_next_model_request(fake_llm, tmp_path):
    slow = Probe(answer=lambda args: time.sleep(DEADLINE + 0.5) or "slow")
    agent = make_agent(fake_llm, tmp_path, slow, deadline_seconds=DEADLINE)
    fake_llm.add(tool_calls(call("probe", {"x": 1}, "c43")))
    took = stopped_by_the_deadline(agent, fake_llm, "probe")
    assert DEADLINE + 0.5 <= took < DEADLINE + 0.5 + MARGIN, took
    assert tool_messages(fake_llm.requests[-1])["c43"] == {"ok": True, "data": "slow"}  # its result kept
