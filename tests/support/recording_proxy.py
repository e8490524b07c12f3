"""A loopback HTTP proxy in front of a real service that writes down every request it passes on: what a test
counts when it asks how many requests a server made of the device service."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import requests

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "content-encoding"}


class RecordingProxy:
    """`url` answers as `target` does; `seen` holds (monotonic time, method, path with query) per request."""

    def __init__(self, target: str) -> None:
        self.target = target.rstrip("/")
        self.seen: list[tuple[float, str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def since(self, start: float) -> list[tuple[str, str]]:
        """(method, path) of the requests that came at or after monotonic time `start`."""
        with self._lock:
            return [(method, path) for at, method, path in self.seen if at >= start]

    def _record(self, method: str, path: str) -> None:
        with self._lock:
            self.seen.append((time.monotonic(), method, path))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self
        upstream = requests.Session()
        upstream.trust_env = False

        class Forward(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _forward(self) -> None:
                proxy._record(self.command, self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                url = proxy.target + self.path
                try:
                    answer = upstream.request(self.command, url, data=body, headers=headers)
                except requests.ConnectionError:  # the service has stopped (the test is over)
                    self.send_error(502)
                    return
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PATCH = do_DELETE = do_HEAD = _forward

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Forward

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def codes_asked(path: str) -> list[str]:
    """The model codes a device-service request names: in its path, or in its `model` parameters."""
    parts = urlsplit(path)
    named = parse_qs(parts.query).get("model", [])
    tail = parts.path.removeprefix("/api/models").strip("/")
    return [*named, *([tail] if tail else [])]
