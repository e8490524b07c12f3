"""The device service inside this process: uvicorn in a background thread on a free loopback port.

A database is a SQLite file path or a `postgresql://` URL (database.open_store). workers.py runs the
service in front, as `python -m devicedb`.
"""

from __future__ import annotations

import secrets
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import uvicorn

from devicedb.app import create_app
from devicedb.database import open_store
from plumbing import telemetry
from plumbing.sockets import listening_socket


class BackgroundService:
    """The service on 127.0.0.1:<free port> in a daemon thread; `url` is the base URL, `stop()` ends it.

    `store_options` go to the store: `idempotency_ttl` (seconds) and `clock` (a time.time-like callable).
    """

    def __init__(
        self, db_path: str | Path, port: int = 0, token: str | None = None, **store_options: Any
    ) -> None:
        telemetry.start("devicedb")  # before the store connects (inside main.py the agent started it already)
        self.store = open_store(db_path, **store_options)
        self._sock = listening_socket("127.0.0.1", port)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.token = token  # the service token its writes need (None: writes are open, for tests)
        config = uvicorn.Config(create_app(self.store, token), log_level="warning", access_log=False)
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


def models_url(
    configured: str | None, db_path: Path, stack: ExitStack, database_url: str | None = None
) -> tuple[str, str | None]:
    """(URL, service token): ADD_MODEL_URL if set (its token is the caller's to know), else an embedded
    service's (on `database_url`, else on `db_path`), started with a token of its own."""
    if configured:
        return configured, None
    service = stack.enter_context(BackgroundService(database_url or db_path, token=secrets.token_urlsafe(32)))
    return f"{service.url}/api/models", service.token
