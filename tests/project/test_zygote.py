"""The helper servers' zygote (tests/support/zygote.py): a server it forks runs as `python SCRIPT` would,
on the launcher's pipes, environment and folder; it ends as its launcher is told to, and with it when the
launcher is killed, so a test that kills a host kills the servers the host started."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import zygote
from tests.support.zygote import helper_server

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


def forked() -> set[int]:
    """The servers the zygote runs now."""
    [pid] = zygote.running()
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return {int(child) for child in children}


def until_gone(pids: set[int]) -> None:
    give_up_at = time.monotonic() + 10
    while pids & forked():
        assert time.monotonic() < give_up_at, f"still running: {pids & forked()}"
        time.sleep(0.05)


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
    before = forked() if zygote.running() else set()
    launcher = launch(tmp_path)
    give_up_at = time.monotonic() + 10
    while not (forked() - before):
        assert time.monotonic() < give_up_at
        time.sleep(0.05)
    server = forked() - before
    launcher.send_signal(sig)
    assert launcher.wait(10) == (143 if sig == signal.SIGTERM else -9)  # SIGTERM passed on: the server's
    until_gone(server)
    for pipe in (launcher.stdin, launcher.stdout):
        assert pipe is not None
        pipe.close()
