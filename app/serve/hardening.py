"""What the served agent holds to at the HTTP level, beside the body gate (limits.py): a request's headers
arrive within HEADER_SECONDS (of the connection opening or of the last answer on it) or the connection
is closed; at most `max_connections` at once (more: 503);
JSON answers say `nosniff` and `no-store`; and, when SERVE_ALLOWED_HOSTS names hosts, a request for any
other Host is a 400 (a DNS-rebinding page cannot reach the agent through a browser)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.middleware.trustedhost import TrustedHostMiddleware
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_SECONDS = 10.0


class HeaderDeadline(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol on httptools (a C parser, where h11 parses in Python), closing a
    connection whose next request's headers are not all there within HEADER_SECONDS of the connection
    opening or of the last answer (20 trickling connections held the server for as long as they liked;
    uvicorn's keep-alive timeout stops at the first byte)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._header_timer.cancel()
            self._arm()

    def _arm(self) -> None:
        answered = self.cycle  # the request last answered (None: none yet); a new one's headers replace it
        self._header_timer = self.loop.call_later(HEADER_SECONDS, self._headers_late, answered)

    def _headers_late(self, answered: Any) -> None:
        waiting = self.cycle is answered and (answered is None or answered.response_complete)
        if waiting and not self.transport.is_closing():  # no request has come since, nor is one under way
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._header_timer.cancel()
        super().connection_lost(exc)


def uvicorn_options(max_connections: int) -> dict[str, Any]:
    """The worker's uvicorn settings for the rules above."""
    # uvicorn counts the connection asking among those it holds: one more, so `max_connections` are served
    return {"http": HeaderDeadline, "limit_concurrency": max_connections + 1, "timeout_keep_alive": 5}


class AnswerHeaders:
    """ASGI middleware: every answer says `X-Content-Type-Options: nosniff`; a JSON one `no-store` too."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower(): value for name, value in headers}
                if b"x-content-type-options" not in present:
                    headers.append((b"x-content-type-options", b"nosniff"))
                json_answer = present.get(b"content-type", b"").startswith(b"application/json")
                if json_answer and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        return await self.app(scope, receive, with_headers)


def allowed_hosts(app: Any, hosts: str) -> Any:
    """`app` behind the Host allow-list `hosts` (comma-separated; empty: any host)."""
    names = [h.strip() for h in hosts.split(",") if h.strip()]
    return TrustedHostMiddleware(app, allowed_hosts=names) if names else app
