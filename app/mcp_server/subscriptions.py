"""Resource subscriptions of an MCP server: who asked to hear of which resource, and telling them when it
changes, whoever changed it.

The Resources capability's subscriptions: a client of the 2025 revisions sends `resources/subscribe` and
`resources/unsubscribe` (its connection hears `notifications/resources/updated`); one of 2026-07-28 names
the URIs in its `subscriptions/listen` stream, and closing the stream unsubscribes. A resource may change
where this server does not see it (another client of the device service), so the server watches what
is subscribed: every `every` seconds — at once after one of its own tools changed resources — it reads
all the subscribed resources in one question to their source, and tells the subscribers of each whose
text changed (deleted counts too). A resource is watched once however its URI is spelled (its canonical
URI, `Resources.canonical`); each subscriber hears of it under the URI it used. A URI nobody serves is
the spec's "resource not found", in both revisions. Who holds what, and the bounds on it, are
`subscribers.py`'s. A 2025 session's subscriptions end with the session: when the client deletes it, when
it has been idle too long (the HTTP session manager ends it), when the client leaves stdio, and when a
notification to it fails (raises, or is not taken within `send_within` seconds).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup
from mcp.server.connection import Connection
from mcp.server.subscriptions import ListenHandler, ResourceUpdated, SubscriptionBus
from mcp.shared.exceptions import MCPError

from app.mcp_server.channel import Request
from app.mcp_server.resources import RESOURCE_NOT_FOUND, Resources
from app.mcp_server.subscribers import Subscribers

EVERY = 1.0  # seconds between two readings of the subscribed resources
SEND_WITHIN = 5.0  # seconds a notification may take to reach a 2025 session before the send counts as failed


class ListenStream:
    """One subscriptions/listen stream, as a holder of subscriptions."""


class Subscriptions:
    """resources/subscribe and resources/unsubscribe, the listen streams' URIs, and the watch over them."""

    def __init__(
        self,
        resources: Resources,
        bus: SubscriptionBus,
        holders: Subscribers,
        every: float = EVERY,
        send_within: float = SEND_WITHIN,
    ) -> None:
        self.resources, self.bus, self.holders = resources, bus, holders
        self.every, self.send_within = every, send_within
        self._seen: dict[str, str | None] = {}  # canonical URI watched -> its text last read (None: gone)
        self._ending: set[Connection] = set()  # the 2025 sessions whose end releases what they hold
        self._soon: anyio.Event | None = None  # set: read now (made on the server's loop, by the watch)
        self._sending: TaskGroup | None = None  # the watch's: notifications to sessions go out on it

    async def subscribe(self, ctx: Request, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri, session = str(params.uri), session_of(ctx)
        self.holders.room(session, [uri], "session")  # refused before anything is read
        try:
            self.holders.hold(session, await self._start_watching([uri]), "session")
        finally:
            self._forget_unheld()
        if session not in self._ending:
            self._ending.add(session)
            session.exit_stack.callback(self.end, session)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Request, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        self.holders.release(session_of(ctx), str(params.uri))
        self._forget_unheld()
        return types.EmptyResult()

    def end(self, session: Connection) -> None:
        """The session has ended: nothing is watched or sent for it any more."""
        self._ending.discard(session)
        self.holders.release(session)
        self._forget_unheld()

    def listen(self, handler: ListenHandler) -> Any:
        """`handler` (the SDK's subscriptions/listen), the URIs of each stream watched while it is open."""

        async def watched_listen(ctx: Request, params: types.SubscriptionsListenRequestParams) -> Any:
            uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
            stream = ListenStream()
            try:
                if uris:
                    self.holders.room(stream, uris, "stream")
                    self.holders.hold(stream, await self._start_watching(uris), "stream")
                return await handler(ctx, params)
            finally:  # the stream has ended, or its connection closed (which cancels the handler)
                self.holders.release(stream)
                self._forget_unheld()

        return watched_listen

    def check_soon(self) -> None:
        """Read the subscribed resources now (one of our tools has just changed resources)."""
        if self._soon is not None:
            self._soon.set()

    @asynccontextmanager
    async def watching(self, server: object) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: the watch runs as long as the server does."""
        async with anyio.create_task_group() as group:
            self._sending = group
            group.start_soon(self._watch)
            yield {}
            group.cancel_scope.cancel()
        self._sending = None

    async def _watch(self) -> None:
        while True:
            self._soon = anyio.Event()
            with anyio.move_on_after(self.every):
                await self._soon.wait()
            await self.check()

    async def check(self) -> None:
        """Tell the subscribers of each watched resource whose text is not the one last read."""
        watched = list(self._seen)
        if not watched:
            return
        try:
            texts = await self.resources.texts(watched)  # one question, however many are watched
        except MCPError:
            return  # the source failed: nothing is known to have changed; the next reading tells
        for uri in watched:
            if uri in self._seen and texts.get(uri) != self._seen[uri]:
                self._seen[uri] = texts.get(uri)
                await self._tell(uri)

    async def _tell(self, canonical: str) -> None:
        heard = self.holders.of(canonical)
        for uri in sorted({uri for holder, uri in heard if isinstance(holder, ListenStream)}):
            await self.bus.publish(ResourceUpdated(uri=uri))  # the listen streams that name it (2026-07-28)
        for holder, uri in heard:
            if isinstance(holder, Connection):  # on the session's own stream (2025)
                if self._sending is None:
                    await self._send(holder, uri)
                else:
                    self._sending.start_soon(self._send, holder, uri)  # a slow session delays no other

    async def _send(self, session: Connection, uri: str) -> None:
        with anyio.move_on_after(self.send_within):
            try:
                await session.send_resource_updated(uri)
                return
            except Exception:  # fan-out boundary: whatever broke, this session is not reached
                pass
        self.end(session)

    async def _start_watching(self, uris: Sequence[str]) -> dict[str, str]:
        """URI as spelled -> the canonical URI of its resource, now watched; "resource not found" for the
        first that names none. They are read in one question."""
        named = {}
        for uri in uris:
            canonical = self.resources.canonical(uri)
            if canonical is None:
                raise _not_found(uri)
            named[uri] = canonical
        texts = await self.resources.texts(sorted(set(named.values())))
        for uri, canonical in named.items():
            if canonical not in texts:
                raise _not_found(uri)
            self._seen.setdefault(canonical, texts[canonical])  # watched: a change since is told to all
        return named

    def _forget_unheld(self) -> None:
        held = self.holders.watched()
        for canonical in [c for c in self._seen if c not in held]:
            del self._seen[canonical]


def session_of(ctx: Request) -> Connection:
    """The connection a 2025 request came on: its session, whose `exit_stack` the SDK unwinds when it ends.
    The low-level server's request context does not carry it yet; the request's ServerSession does."""
    return ctx.session._connection


def _not_found(uri: str) -> MCPError:
    return MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
