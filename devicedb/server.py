"""Run the device service with uvicorn: in a background thread on a free loopback port, or in front."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import uvicorn

from devicedb.app import create_app
from devicedb.store import DeviceStore


class BackgroundService:
    """The service on 127.0.0.1:<free port> in a daemon thread; `url` is the base URL, `stop()` ends it."""

    def __init__(self, db_path: str | Path, port: int = 0) -> None:
        self.store = DeviceStore(db_path)
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

    def __enter__(self) -> BackgroundService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve_forever(db_path: str | Path, host: str, port: int) -> None:
    uvicorn.run(create_app(DeviceStore(db_path)), host=host, port=port, log_level="info")


def models_url(configured: str | None, db_path: Path, stack: ExitStack) -> str:
    """ADD_MODEL_URL if set, else the URL of an embedded service over `db_path`, stopped with `stack`."""
    if configured:
        return configured
    service = stack.enter_context(BackgroundService(db_path))
    return f"{service.url}/api/models"
