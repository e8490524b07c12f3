"""The tests' zygote (tests/support/zygote.py): a server it forks runs as `python SCRIPT` would,
on the launcher's pipes, environment and folder; it ends as its launcher is told to, and with it when the
launcher is killed, so a test that kills a host kills the servers the host started."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import zygote
from tests.support.leftovers import _state
from tests.support.zygote import forked_for, helper_server

CLIENT = {"name": "test", "version": "0"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": CLIENT},
}

INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
PING = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ping", "arguments": {}}}


def launch(tmp_path: Path) -> subprocess.Popen:
    server = helper_server("attack_server")
    env = {"ATTACK_LOG": "calls.jsonl", "ATTACK_PLAN": "{}", "ONLY_THIS": "1"}  # the log in its folder
    command = [str(server["command"]), *server["args"]]  # type: ignore[misc]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=tmp_path, env=env)


def until_gone(pid: int) -> None:
    give_up_at = time.monotonic() + 10
    while runs(pid):
        assert time.monotonic() < give_up_at, f"{pid} still runs"
        time.sleep(0.02)


def runs(pid: int) -> bool:
    return _state(pid) not in ("Z", "X", "")  # a zombie has ended: it waits for its parent


def closed(launcher: subprocess.Popen) -> None:
    for pipe in (launcher.stdin, launcher.stdout):
        assert pipe is not None
        pipe.close()


def test_a_forked_server_answers_on_the_launchers_pipes_in_its_folder_and_environment(tmp_path):
    launcher = launch(tmp_path)
    assert launcher.stdin is not None and launcher.stdout is not None
    for message in (INITIALIZE, INITIALIZED, PING):
        launcher.stdin.write(json.dumps(message).encode() + b"\n")
        launcher.stdin.flush()
        if "id" in message:
            answer = json.loads(launcher.stdout.readline())
    assert answer["result"]["content"][0]["text"] == "ok"
    launcher.stdin.close()  # end of input: the stdio server ends, and so does its launcher, with its code
    assert launcher.wait(10) == 0
    launcher.stdout.close()
    [call] = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert {"ATTACK_LOG", "ATTACK_PLAN", "ONLY_THIS"} <= set(call["environment"])
    assert "PATH" not in call["environment"]  # the launcher's environment, not the zygote's


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["terminated", "killed"])
def test_a_server_ends_when_its_launcher_is_terminated_or_killed(tmp_path, sig):
    launcher = launch(tmp_path)
    forked = forked_for(launcher)
    launcher.send_signal(sig)
    assert launcher.wait(10) == -sig  # SIGTERM passed on: the server's end is the launcher's
    until_gone(forked)
    closed(launcher)


def test_a_launcher_that_dies_as_it_asks_leaves_the_zygote_serving(tmp_path):
    helper_server("attack_server")
    [before] = zygote.running()
    for said in (b"", b"not json"):
        with socket.socket(socket.AF_UNIX) as half:
            half.connect(zygote.socket_path())
            half.sendall(said)
    launcher = launch(tmp_path)
    forked_for(launcher)
    assert zygote.running() == {before}
    launcher.terminate()
    launcher.wait(10)
    closed(launcher)


def test_the_servers_of_a_zygote_killed_die_with_it_and_the_next_start_brings_a_new_one(tmp_path):
    launcher = launch(tmp_path)
    forked = forked_for(launcher)
    [pid] = zygote.running()
    os.kill(pid, signal.SIGKILL)
    until_gone(forked)
    assert launcher.wait(10) == 1
    closed(launcher)
    again = launch(tmp_path)  # on the same socket: configs made before still reach it
    forked_for(again)
    assert zygote.running() != {pid}
    again.terminate()
    again.wait(10)
    closed(again)
