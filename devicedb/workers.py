"""The device service in front, as `python -m devicedb`: one process, or several workers on one socket,
supervised (plumbing/supervision.py: a worker that dies is replaced).

Each worker process opens its own store on the same database; the store's rules hold across processes
(SQLite's file lock, Postgres transactions). `ServiceProcess` starts it all from code, for the
tests and the benchmark.
"""

from __future__ import annotations

import http.client
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import uvicorn

from devicedb.app import create_app
from devicedb.database import open_store
from plumbing import telemetry
from plumbing.processes import stop
from plumbing.sockets import free_port, listening_socket
from plumbing.supervision import exit_on_sigterm, supervise


def serve_forever(
    database: str | Path, host: str, port: int, workers: int = 1, token: str | None = None
) -> None:
    """Serve until stopped; `token`: the service token writes need (auth.py)."""
    telemetry.start("devicedb")
    open_store(database).close()  # migrate once, and report a bad database here rather than in each worker
    sock = listening_socket(host, port)
    if workers == 1:
        return run_worker(sock, str(database), token)
    return supervise(run_worker, (sock, str(database), token), workers)


def run_worker(sock: socket.socket, database: str, token: str | None = None) -> None:
    """One worker: uvicorn serving the app, with its own store, on the shared listening socket."""
    telemetry.start("devicedb")  # a spawned worker exports its own spans
    exit_on_sigterm()
    config = uvicorn.Config(create_app(open_store(database), token), log_level="info")
    uvicorn.Server(config).run(sockets=[sock])


class ServiceProcess:
    """`python -m devicedb` in a child process on a free loopback port, with `workers` uvicorn workers."""

    def __init__(self, database: str | Path, workers: int = 1) -> None:
        self.port = free_port()
        self.token = secrets.token_urlsafe(32)  # its writes need it: `headers`
        self.headers = {"Authorization": f"Bearer {self.token}"}
        self.url = f"http://127.0.0.1:{self.port}"
        where = ["--database-url", str(database)] if "://" in str(database) else ["--db", str(database)]
        self.command = [sys.executable, "-m", "devicedb", "--port", str(self.port), "--workers", str(workers)]
        self.command += where
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self._proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> ServiceProcess:
        env = {**os.environ, "DEVICE_TOKEN": self.token}
        self._proc = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, env=env
        )
        give_up_at = time.monotonic() + timeout
        while not self._answers():
            if self._proc.poll() is not None or time.monotonic() > give_up_at:
                self._log.seek(0)
                said = self._log.read()[-2000:].decode(errors="replace")
                self.stop()
                raise RuntimeError(f"`python -m devicedb` did not start: {said}")
            time.sleep(0.05)
        return self

    def _answers(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        try:
            conn.request("GET", "/api/models?limit=1")
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    def stop(self) -> None:
        stop(self._proc, grace=30)
        self._log.close()

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
