"""Run the device service with uvicorn: in a background thread on a free loopback port, or in front.

A database is a SQLite file path or a `postgresql://` URL (store.open_store). In front, `workers` > 1
runs that many uvicorn worker processes, each with its own store on the same database.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI

from devicedb.app import create_app
from devicedb.store import open_store

DATABASE_ENV = "DEVICEDB_DATABASE"  # how `serve_forever` tells its worker processes the database


class BackgroundService:
    """The service on 127.0.0.1:<free port> in a daemon thread; `url` is the base URL, `stop()` ends it.

    `store_options` go to the store: `idempotency_ttl` (seconds) and `clock` (a time.time-like callable).
    """

    def __init__(self, db_path: str | Path, port: int = 0, **store_options: Any) -> None:
        self.store = open_store(db_path, **store_options)
        # proto=IPPROTO_TCP explicitly: only then does asyncio set TCP_NODELAY (else +40 ms a request)
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.bind(("127.0.0.1", port))
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(self.store), log_level="warning", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self, timeout: float = 10.0) -> BackgroundService:
        self._thread.start()
        give_up_at = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > give_up_at:
                raise RuntimeError("the device service did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=5)
        self._sock.close()
        self.store.close()

    def __enter__(self) -> BackgroundService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_forever(database: str | Path, host: str, port: int, workers: int = 1) -> None:
    open_store(database).close()  # migrate once, and report a bad database here rather than in each worker
    os.environ[DATABASE_ENV] = str(database)
    uvicorn.run(
        "devicedb.server:app_from_environment",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
    )


def app_from_environment() -> FastAPI:
    """The app of one uvicorn worker process, on the database `serve_forever` named."""
    return create_app(open_store(os.environ[DATABASE_ENV]))


def models_url(
    configured: str | None, db_path: Path, stack: ExitStack, database_url: str | None = None
) -> str:
    """ADD_MODEL_URL if set, else the URL of an embedded service (on `database_url`, else on `db_path`)."""
    if configured:
        return configured
    service = stack.enter_context(BackgroundService(database_url or db_path))
    return f"{service.url}/api/models"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServiceProcess:
    """`python -m devicedb` in a child process on a free loopback port, with `workers` uvicorn workers."""

    def __init__(self, database: str | Path, workers: int = 1) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        where = ["--database-url", str(database)] if "://" in str(database) else ["--db", str(database)]
        self.command = [sys.executable, "-m", "devicedb", "--port", str(self.port), "--workers", str(workers)]
        self.command += where
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self._proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60.0) -> ServiceProcess:
        self._proc = subprocess.Popen(
            self.command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log
        )
        give_up_at = time.monotonic() + timeout
        while not self._answers():
            if self._proc.poll() is not None or time.monotonic() > give_up_at:
                self.stop()
                self._log.seek(0)
                raise RuntimeError(f"`python -m devicedb` did not start: {self._log.read()[-2000:].decode()}")
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
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._log.close()

    def __enter__(self) -> ServiceProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
