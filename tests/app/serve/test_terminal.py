"""`python main.py serve` in a terminal, on the embedded demo model (no key), as the serving page starts it:
`--workers 4` says in one line that it runs one worker and why, and Ctrl-C shuts it down once."""

from __future__ import annotations

import re
import sys

import pexpect

from plumbing.sockets import free_port
from tests.app.chat.test_terminal import ANSI
from tests.conftest import ROOT, clean_env


def test_ctrl_c_shuts_the_served_demo_down_once_and_four_workers_are_one_said_so(tmp_path):
    """Issues: `--workers 4` became 1 with the demo model without saying why; Ctrl-C printed "Finished
    server process" twice (the embedded device service's uvicorn spoke at the worker's log level)."""
    env = clean_env(TERM="xterm-256color", LANG="C.UTF-8")
    serve = [str(ROOT / "main.py"), "serve", "--port", str(free_port()), "--workers", "4"]
    child = pexpect.spawn(sys.executable, serve, cwd=str(tmp_path), env=env, encoding="utf-8", timeout=120)
    try:
        child.expect("Application startup complete")
        started = ANSI.sub("", child.before)
        child.sendintr()
        child.expect(pexpect.EOF, timeout=60)
        stopping = ANSI.sub("", child.before)
        child.close()
    finally:
        child.close(force=True)
    said = [line for line in started.splitlines() if "--workers 4" in line]
    assert len(said) == 1, started
    assert "runs one worker (its llama.cpp server already uses every core of the machine" in said[0]
    assert re.search(r"serving the agent on http://127\.0\.0\.1:\d+ \(1 worker\(s\)\)", started)
    assert stopping.count("Finished server process") == 1, stopping
    assert stopping.count("Shutting down") == 1 and "Traceback" not in stopping, stopping
    assert child.exitstatus == 130
