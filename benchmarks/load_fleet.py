"""The load test's processes: N `main.py serve` servers (each a process group that can be killed with
-9 and started again on its port), the device service they all write to, and the CPU seconds each process
tree spent, read from /proc; and the kill -9 of a server mid-load (Killer)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from plumbing.processes import stop
from plumbing.sockets import free_port

TICKS = os.sysconf("SC_CLK_TCK")
# A server in a PID namespace of its own sees, and is seen, as on another machine: its peers cannot see its
# processes end, only its silence. unshare(1) needs root.
APART = ["unshare", "--pid", "--fork", "--mount-proc"]


@dataclass(frozen=True)
class Checkout:
    """The code a side of the run serves: this checkout, or another one with its own venv."""

    root: Path
    python: str

    @property
    def name(self) -> str:
        return self.root.name


def _stat(pid: int) -> list[str] | None:
    """/proc/PID/stat's fields after the command name (state, ppid, ...), or None once it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def tree(pid: int) -> list[int]:
    """`pid` and every live process it started, and theirs."""
    parents = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit() and (fields := _stat(int(proc.name))):
            parents[int(proc.name)] = int(fields[1])
    found, wanted = [pid], {pid}
    while more := [child for child, parent in parents.items() if parent in wanted and child not in found]:
        found += more
        wanted = set(more)
    return found


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) spent by `pid`'s live tree, with the children it already reaped."""
    total = 0
    for member in tree(pid):
        if fields := _stat(member):
            total += sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return total / TICKS


class Server:
    """`python main.py serve --workers M` of a checkout on a free port, in a process group of its own."""

    def __init__(
        self, checkout: Checkout, env: dict[str, str], workers: int, cwd: Path, apart: bool = False
    ) -> None:
        self.checkout, self.env, self.workers, self.cwd, self.apart = checkout, env, workers, cwd, apart
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (cwd / f"server-{self.port}.log").open("w+b")  # its starts' output, one after the other
        self.process: subprocess.Popen | None = None
        self.started_at = 0
        self.spent = 0.0  # CPU seconds of its earlier starts (killed)

    def start(self) -> Server:
        main = str(self.checkout.root / "main.py")
        command = [
            *(APART if self.apart else []),
            self.checkout.python,
            main,
            "serve",
            "--workers",
            str(self.workers),
            "--port",
            str(self.port),
        ]
        self.started_at = self.log.seek(0, os.SEEK_END)  # where this start's output begins in the log
        self.process = subprocess.Popen(
            command, cwd=self.cwd, env=self.env, stdout=self.log, stderr=self.log, start_new_session=True
        )
        return self

    def wait_up(self, timeout: float = 180.0) -> None:
        """Until it answers (a request without a key is refused: 401) and each of its workers has started:
        a load that begins while some still start measures their start too (its first turns waited
        seconds for the CPU they took)."""
        assert self.process is not None
        give_up_at = time.monotonic() + timeout
        while not (_answers(f"{self.url}/v1/models") and self._started() >= self.workers):
            if self.process.poll() is not None or time.monotonic() > give_up_at:
                self.log.seek(0)
                said = self.log.read()[-3000:].decode(errors="replace")
                raise SystemExit(f"`main.py serve` on port {self.port} did not start: {said}")
            time.sleep(0.2)

    def _started(self) -> int:
        """Its workers that said they started (uvicorn's line), in this start's output."""
        with open(self.log.name, "rb") as log:
            log.seek(self.started_at)
            return log.read().count(b"Application startup complete.")

    def cpu(self) -> float:
        alive = self.process is not None and self.process.poll() is None
        return self.spent + (cpu_seconds(self.process.pid) if alive and self.process else 0.0)

    def kill(self) -> None:
        """`kill -9` of its whole process group, at once."""
        assert self.process is not None
        self.spent = self.cpu()
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process, grace=30)
            with contextlib.suppress(ProcessLookupError):  # a worker its end left behind
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2, trust_env=False).status_code == 401
    except httpx.TransportError:
        return False


class Process:
    """A helper process of this checkout (the scripted LLM) whose first line of output is its URL."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        if not self.url:
            raise SystemExit(f"{' '.join(command)} did not start")

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        stop(self.process, grace=5)


class Killer(threading.Thread):
    """`kill -9` of a server `at` seconds into the load (if it still runs), started again `after` seconds
    later (None: never); `killed_at` is when (time.monotonic()), `back_at` when it answered again."""

    def __init__(self, server: Server, at: float, after: float | None) -> None:
        super().__init__(daemon=True)
        self.server, self.at, self.after = server, at, after
        self.finished = threading.Event()  # the load's end
        self.killed_at: float | None = None
        self.back_at: float | None = None  # when it answered again

    def run(self) -> None:
        if self.finished.wait(self.at):
            return
        self.killed_at = time.monotonic()
        self.server.kill()
        if self.after is None:
            return
        time.sleep(self.after)
        self.server.start().wait_up()
        self.back_at = time.monotonic()
