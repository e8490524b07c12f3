"""The device service inside this process: uvicorn in a background thread on a free loopback port.

A database is a SQLite file path or a `postgresql://` URL (database.open_store). workers.py runs the
service in front, as `python -m devicedb`.
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from pathlib import Path
from typing import Any

from devicedb.database import open_store
from plumbing import telemetry
from plumbing.sockets import listening_socket


class BackgroundService:
    """The service on 127.0.0.1:<free port> in a daemon thread; `url` is the base URL, `stop()` ends it.

    Made, it has its store open and its port bound (so a bad database or port is reported at once);
    `start()` serves, loading FastAPI and uvicorn then. A connection made before that waits in the port's
    queue. `store_options` go to the store: `idempotency_ttl` (seconds) and `clock` (time.time-like).
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
        self._server: Any = None
        self._quiet = Quiet(f"devicedb-{self.port}")  # its thread's name
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()

    def start(self, timeout: float = 10.0) -> BackgroundService:
        """Serve from now on; a call once it serves does nothing (any thread may call it)."""
        with self._starting:
            if self._thread is None:  # in a context of its own: not a part of the trace that first asked
                self._thread = contextvars.Context().run(self._serve)
            give_up_at = time.monotonic() + timeout
            while not self._server.started:
                if not self._thread.is_alive() or time.monotonic() > give_up_at:
                    raise RuntimeError("the device service did not start")
                time.sleep(0.01)
        return self

    def _serve(self) -> threading.Thread:
        import uvicorn

        from devicedb.app import create_app

        app = create_app(self.store, self.token)
        # the process's logging is its own (the served agent's makes each record one escaped line): uvicorn
        # sets its loggers' levels, and no handlers
        config = uvicorn.Config(app, log_config=None, log_level="warning", access_log=False)
        self._server = uvicorn.Server(config)
        logging.getLogger("uvicorn.error").addFilter(self._quiet)
        thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, name=self._quiet.thread, daemon=True
        )
        thread.start()
        return thread

    def stop(self) -> None:
        if self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=5)
            logging.getLogger("uvicorn.error").removeFilter(self._quiet)
        self._sock.close()
        self.store.close()

    def __enter__(self) -> BackgroundService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Quiet(logging.Filter):
    """uvicorn's lines below a warning from the service's own thread, dropped: the uvicorn of a server it
    runs inside (main.py serve logs at info) would say this service's start and stop as its own, a second
    "Finished server process" at Ctrl-C."""

    def __init__(self, thread: str) -> None:
        super().__init__()
        self.thread = thread

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.threadName != self.thread
