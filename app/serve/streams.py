"""How a request waits on its turn: the turn starts in the server's threads (a durable workflow), and its
events come back on the request's loop (events.Bridge) — gathered for a plain answer, or sent as
server-sent events. Either way, a client that goes away is told nothing more while the turn goes on to
its end, and one that stops reading a stream is cut off after `send_seconds`, so no client holds a worker.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from fastapi import Request
from fastapi.responses import StreamingResponse

from app.serve.admitted import TurnRequest
from app.serve.events import Bridge, Event, Failed, Finished, Started
from app.serve.turns import Turns

DISCONNECT_POLL = 0.5  # seconds between looks at whether a plain request's client is still there


async def start_turn(turns: Turns, threads: ThreadPoolExecutor, turn: TurnRequest) -> tuple[Bridge, Started]:
    """The turn, started and admitted; its refusal (limits, a conversation not found...) raised here, so
    that it is answered with its HTTP status before any answer has begun."""
    bridge = Bridge(asyncio.get_running_loop())
    asyncio.get_running_loop().run_in_executor(threads, turns.run, turn, bridge)
    with told_nothing_more_if_cancelled(bridge):
        first = await bridge.get()
    if isinstance(first, Failed):
        raise first.error
    assert isinstance(first, Started)
    return bridge, first


async def gather(request: Request, bridge: Bridge) -> list[Event]:
    """Every event of the turn, for a plain answer, the last Finished or Failed."""
    events: list[Event] = []
    while not events or not isinstance(events[-1], Finished | Failed):
        try:
            with told_nothing_more_if_cancelled(bridge):
                events.append(await asyncio.wait_for(bridge.get(), DISCONNECT_POLL))
        except TimeoutError:
            if await request.is_disconnected():
                bridge.gone.set()
    return events


@contextlib.contextmanager
def told_nothing_more_if_cancelled(bridge: Bridge) -> Iterator[None]:
    """A request cancelled while it waits (the server stopping cuts the last ones off): its turn, running
    or not yet started, tells it nothing more."""
    try:
        yield
    except asyncio.CancelledError:
        bridge.gone.set()
        raise


Render = Callable[[Event], Iterable[str]]


async def _pieces(bridge: Bridge, first: Started, render: Render) -> AsyncIterator[str]:
    try:
        for piece in render(first):
            yield piece
        async for event in bridge.events():
            for piece in render(event):
                yield piece
    finally:
        bridge.gone.set()  # the client left (or all is sent): a turn still running tells it nothing more


class EventStream(StreamingResponse):
    """Server-sent events of a turn; a client that takes none of it for `send_seconds` is dropped."""

    def __init__(self, bridge: Bridge, first: Started, render: Render, send_seconds: float) -> None:
        super().__init__(_pieces(bridge, first, render), media_type="text/event-stream")
        self.headers["Cache-Control"] = "no-cache"
        self.headers["X-Accel-Buffering"] = "no"
        self.send_seconds = send_seconds

    async def stream_response(self, send: Any) -> None:
        async def send_in_time(message: Any) -> None:
            await asyncio.wait_for(send(message), self.send_seconds)

        with contextlib.suppress(TimeoutError):  # the client stopped reading: the connection is dropped
            await super().stream_response(send_in_time)
