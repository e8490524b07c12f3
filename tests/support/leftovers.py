"""ProcessWatch: which processes the test run started and left running, read from /proc.

A process is the run's when it descends from pytest or carries the run's marker in its environment (a
child whose parent died is adopted by init, but keeps the environment it was started with). Those still
running at the end get a few seconds to finish shutting down; the rest are killed and reported.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from pathlib import Path

MARKER = "TOOL_USE_AGENT_TEST_RUN"
PROC = Path("/proc")


class ProcessWatch:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.before: set[int] = set()
        self.marker = ""

    def start(self) -> None:
        self.before = _pids()
        self.marker = f"{MARKER}={uuid.uuid4().hex}"
        os.environ[MARKER] = self.marker.split("=", 1)[1]

    def leftovers(self, grace: float = 10.0, spare: frozenset[int] = frozenset()) -> list[tuple[int, str]]:
        """(pid, command line) of the run's processes still running after `grace` seconds, killed; the
        processes `spare` names (the run's own helpers, which it stops itself) are neither."""
        give_up_at = time.monotonic() + grace
        while (left := [pid for pid in self._ours() if pid not in spare]) and time.monotonic() < give_up_at:
            time.sleep(0.2)
        found = [(pid, _command(pid)) for pid in left]
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return found

    def _ours(self) -> list[int]:
        return sorted(pid for pid in _pids() - self.before - {self.pid} if self._is_ours(pid))

    def _is_ours(self, pid: int) -> bool:
        if _state(pid) in ("Z", "X", ""):  # finished (a zombie waits for its parent), or gone
            return False
        return self.pid in _ancestors(pid) or self.marker.encode() in _environment(pid)


def _pids() -> set[int]:
    return {int(p.name) for p in PROC.iterdir() if p.name.isdigit()}


def _read(pid: int, name: str) -> bytes:
    try:
        return (PROC / str(pid) / name).read_bytes()
    except OSError:  # gone, or not ours to read
        return b""


def _state(pid: int) -> str:
    stat = _read(pid, "stat").decode(errors="replace")
    return stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else ""


def _parent(pid: int) -> int:
    stat = _read(pid, "stat").decode(errors="replace")
    return int(stat.rsplit(")", 1)[-1].split()[1]) if ")" in stat else 0


def _ancestors(pid: int) -> set[int]:
    found: set[int] = set()
    while pid > 1 and pid not in found:
        found.add(pid)
        pid = _parent(pid)
    return found


def _environment(pid: int) -> list[bytes]:
    return _read(pid, "environ").split(b"\0")


def _command(pid: int) -> str:
    return _read(pid, "cmdline").replace(b"\0", b" ").decode(errors="replace").strip()[:200]
