"""Crash safety of `main.py serve --workers 4`, on SQLite and on Postgres: `kill -9` of the worker running a
turn loses no stored message and writes nothing twice; the server replaces the worker, which finishes
the cut-off turn by itself (its slot's turns are its own: app/serve/durable.py), each call with the
idempotency key it had, so the device service answers the write it already made; and the conversation
goes on. A retry of the cut-off turn (the same Idempotency-Key) is given the answer the turn reached."""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openai
import pytest
import requests

from agent.guards import envelope_of
from tests.support.devicedb_support import rows, stored_keys
from tests.support.fake_llm import Reply, call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices


def agent_database(database: str) -> str:
    return database if database.startswith("postgresql://") else str(Path(database).with_name("agent.db"))


def client(agent: ServedAgent, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{agent.url}/v1", api_key=key, max_retries=0, timeout=60)


def holding(reached: threading.Event, release: threading.Event):
    """A script entry that answers only once the test lets it (the worker waits on it meanwhile)."""

    def hold(request: dict) -> Reply:
        reached.set()
        release.wait(60)
        return Reply(text("never read"))

    return hold


def kill_the_worker_of(agent: ServedAgent, conversation: str) -> None:
    """kill -9 the worker holding the conversation's lease: the process it names (pid:start@machine)."""
    [(process,)] = agent.query("SELECT lease_process FROM conversations WHERE id = ?", (conversation,))
    os.kill(int(process.split(":")[0]), signal.SIGKILL)


def finished(agent: ServedAgent, conversation: str) -> str:
    """The answer of the conversation's last turn, once a worker has finished it."""
    give_up_at = time.monotonic() + 60
    sql = "SELECT state, answer, lease_owner FROM conversations WHERE id = ?"
    while (found := agent.query(sql, (conversation,))[0])[0] != "done":
        assert time.monotonic() < give_up_at, f"the cut-off turn was never finished: {found}"
        time.sleep(0.1)
    assert found[2] is None  # and its lease given back
    return found[1]


def workers_of(agent: ServedAgent) -> list[int]:
    """The live worker processes: the children of the server's fork server (plumbing/supervision.py)."""
    assert agent.process is not None
    processes = {}
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            processes[int(proc.name)] = (int(stat[1]), stat[0], (proc / "cmdline").read_bytes())
        except (OSError, IndexError, ValueError):
            continue
    servers = [
        pid
        for pid, (parent, _, command) in processes.items()
        if parent == agent.pid and b"forkserver" in command
    ]
    return [pid for pid, (parent, state, _) in processes.items() if parent in servers and state != "Z"]


def test_kill_9_mid_turn_loses_nothing_stored_and_the_conversation_goes_on(fake_llm, tmp_path, database):
    reached, release = threading.Event(), threading.Event()
    add = call("add_device_model", {"model": "CPH2223"}, "c1")
    fake_llm.add(text("Hello."), tool_calls(add), holding(reached, release), text("CPH2223 is in."))
    fake_llm.add(text("It is."))
    with ServedAgent(fake_llm.url, tmp_path, agent_database(database), workers=4) as agent:
        alice = client(agent, agent.key("alice"))
        conversation = alice.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        conversation_id = conversation.model_extra["conversation_id"]
        extra = {"conversation_id": conversation_id}
        with ThreadPoolExecutor(1) as pool:
            messages = [{"role": "user", "content": "add CPH2223"}]
            cut = pool.submit(alice.chat.completions.create, model="m", messages=messages, extra_body=extra)
            assert reached.wait(60)
            kill_the_worker_of(agent, conversation_id)
            with pytest.raises(openai.APIConnectionError):
                cut.result(timeout=60)
        release.set()
        assert finished(agent, conversation_id) == "CPH2223 is in."  # by the worker that replaced it
        answer = alice.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "is it in?"}], extra_body=extra
        )
        assert answer.choices[0].message.content == "It is."
        sent = fake_llm.requests[-1]["messages"][1:]
        roles = ["user", "assistant", "user", "assistant", "tool", "assistant", "user"]
        assert [m["role"] for m in sent] == roles
        assert envelope_of(sent[4]["content"])["data"]["created"] is True  # stored before the kill
        assert len(fake_llm.requests) == 5  # the request the kill cut off, asked again; none other
        assert devices(agent.database) == [("CPH2223", "alice")]
        give_up_at = time.monotonic() + 60
        while len(workers_of(agent)) != 4:
            assert time.monotonic() < give_up_at, "the killed worker was not replaced"
            time.sleep(0.2)


class SlowDeviceService:
    """A loopback proxy in front of the device service that holds its first answer until released."""

    def __init__(self, target: str) -> None:
        self.target, self.keys = target, []
        self.reached, self.release = threading.Event(), threading.Event()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                proxy.keys.append(self.headers.get("Idempotency-Key"))
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() in ("content-type", "idempotency-key")
                }
                answer = requests.post(proxy.target, data=body, headers=headers, timeout=30)
                if len(proxy.keys) == 1:
                    proxy.reached.set()
                    proxy.release.wait(60)
                try:
                    self.send_response(answer.status_code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer.content)))
                    self.end_headers()
                    self.wfile.write(answer.content)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/models"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def test_a_retry_of_a_turn_cut_off_mid_call_replays_the_write_instead_of_making_it_again(
    fake_llm, tmp_path, database, device_service
):
    proxy = SlowDeviceService(f"{device_service.url}/api/models")
    fake_llm.add(tool_calls(call("add_device_model", {"model": "RMX1901"}, "c1")), text("Added RMX1901."))
    env = {"ADD_MODEL_URL": proxy.url}
    try:
        with ServedAgent(fake_llm.url, tmp_path, agent_database(database), workers=4, **env) as agent:
            alice = client(agent, agent.key("alice"))
            create = lambda: alice.chat.completions.create(  # noqa: E731
                model="m",
                messages=[{"role": "user", "content": "add RMX1901"}],
                extra_headers={"Idempotency-Key": "turn-1"},
            )
            with ThreadPoolExecutor(1) as pool:
                cut = pool.submit(create)
                assert proxy.reached.wait(60)
                [(conversation,)] = agent.query("SELECT id FROM conversations WHERE lease_owner IS NOT NULL")
                kill_the_worker_of(agent, conversation)
                with pytest.raises(openai.APIConnectionError):
                    cut.result(timeout=60)
            proxy.release.set()
            assert finished(agent, conversation) == "Added RMX1901."  # by the worker that replaced it
            answer = create()  # the client's retry: the answer the turn reached
            assert (answer.choices[0].message.content, answer.model_extra["conversation_id"]) == (
                "Added RMX1901.",
                conversation,
            )
    finally:
        proxy.close()
    written_once(proxy, device_service, fake_llm)


def written_once(proxy, device_service, fake_llm) -> None:
    """The cut-off write was sent twice with one key, and made one row; the model was asked once for it."""
    assert len(proxy.keys) == 2 and proxy.keys[0] == proxy.keys[1]  # the same call, the same key
    assert rows(str(device_service.store.db.path)) == [("RMX1901", "营销名未解密", None)]
    assert [key for key, _ in stored_keys(str(device_service.store.db.path))] == [proxy.keys[0]]
    assert len(fake_llm.requests) == 2  # the model was not asked again for the call it had made
