"""ServeLimits: what one person, one request and one client may take of the served agent, and the body gate
that holds a request to its size and to the time its body may take to arrive.

Turns per minute and turns at once are counted per user across every worker, in the database, in the
transaction that admits a turn (conversations.py); a run's deadline is the model's own (guards.Limits); a
client that sends its body too slowly (408), or reads an answer too slowly (the stream is dropped), holds no
worker for long.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any

from app.serve.errors import TooLarge, TooManyRequests, TooSlow, answer
from app.serve.settings import ServeSettings
from plumbing.asgi import replay  # hands the read body on, then listens for a disconnect
from plumbing.sql import Cursor


@dataclass(frozen=True)
class ServeLimits:
    requests_per_minute: int = 60  # turns a user may start per minute
    runs_per_user: int = 4  # turns of a user running at once
    max_body_bytes: int = 1 << 20
    body_seconds: float = 10.0  # for the whole request body to arrive
    send_seconds: float = 30.0  # for a client to take one piece of a streamed answer
    turn_seconds: float = 120.0  # the model's deadline for a turn
    approval_seconds: float = 600.0  # how long a call waits for the person's approval
    lease_seconds: float = (
        10.0  # a lease's term: not renewed for this long, its turn's runner died (leases.py)
    )

    @classmethod
    def of(cls, serving: ServeSettings, turn_seconds: float, lease_seconds: float) -> ServeLimits:
        return cls(
            lease_seconds=lease_seconds,
            requests_per_minute=serving.serve_requests_per_minute,
            runs_per_user=serving.serve_runs_per_user,
            send_seconds=serving.serve_send_seconds,
            turn_seconds=turn_seconds,
            approval_seconds=serving.serve_approval_seconds,
        )

    def count(self, db: Cursor, user: str, now: float) -> None:
        """Count the request in the user's minute (that row's lock makes the user's admissions take turns,
        across workers), and refuse it over the limit."""
        window = now - now % 60
        requests = db.execute(
            "INSERT INTO request_counts (user_id, window_start, requests) VALUES (?, ?, 1) "
            "ON CONFLICT (user_id) DO UPDATE SET requests = CASE WHEN request_counts.window_start = "
            "excluded.window_start THEN request_counts.requests + 1 ELSE 1 END, "
            "window_start = excluded.window_start RETURNING requests",
            (user, window),
        ).fetchone()["requests"]
        if requests > self.requests_per_minute:
            wait = math.ceil(window + 60 - now)
            raise TooManyRequests(f"over {self.requests_per_minute} turns a minute; retry in {wait}s", wait)

    def room(self, user: str, leased: str) -> tuple[str, tuple]:
        """SQL for the statement that leases a new turn's conversation: has the user fewer turns at once than
        allowed (those whose conversation is `leased`, SQL)? And its params. Else `full()` refuses it."""
        mine = f"SELECT COUNT(*) FROM conversations AS mine WHERE mine.user_id = ? AND {leased}"
        return f"({mine}) < ?", (user, self.runs_per_user)

    def full(self) -> TooManyRequests:
        return TooManyRequests(
            f"{self.runs_per_user} turns of yours are running already; retry when one ends", 1
        )

    @property
    def hold_seconds(self) -> float:
        """How long a turn's lease is renewed at most: its deadline and a minute."""
        return self.turn_seconds + 60.0


class BodyGate:
    """ASGI middleware: a request body over `max_bytes` is a 413; one that is not all there within
    `body_seconds` is a 408. The body read is handed on, so the app reads it as usual."""

    def __init__(self, app: Any, limits: ServeLimits) -> None:
        self.app, self.limits = app, limits

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        try:
            if declared.isdigit() and int(declared) > self.limits.max_body_bytes:
                raise self._too_large()
            body = await asyncio.wait_for(self._read(receive), self.limits.body_seconds)
        except TimeoutError:
            return await answer(TooSlow(f"the body did not arrive within {self.limits.body_seconds:g}s"))(
                scope, receive, send
            )
        except TooLarge as e:
            return await answer(e)(scope, receive, send)
        return await self.app(scope, replay(body, receive), send)

    async def _read(self, receive: Any) -> bytes:
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limits.max_body_bytes:
                raise self._too_large()
        return bytes(body)

    def _too_large(self) -> TooLarge:
        return TooLarge(f"the request body is larger than {self.limits.max_body_bytes} bytes")
