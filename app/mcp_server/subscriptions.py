"""Resource subscriptions of an MCP server: who asked to hear of which resource, and telling them when it
changes, whoever changed it.

The Resources capability's subscriptions: a client of the 2025 revisions sends `resources/subscribe` and
`resources/unsubscribe` (its connection hears `notifications/resources/updated`); one of 2026-07-28 names
the URIs in its `subscriptions/listen` stream, and closing the stream unsubscribes. A resource may change
where this server does not see it (another client of the device service), so the server watches what
is subscribed: it reads each such resource again every `every` seconds — at once after one of its own
tools changed resources — and tells the subscribers of each whose text changed (deleted counts too).
A URI nobody serves is the spec's "resource not found", in both revisions. A 2025 session that ends
without unsubscribing stays on the list until the server stops (the SDK tells a server no session's end);
what is sent to it is dropped.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.server.session import ServerSession
from mcp.server.subscriptions import ListenHandler, ResourceUpdated, SubscriptionBus
from mcp.shared.exceptions import MCPError

from app.mcp_server.channel import Request
from app.mcp_server.resources import RESOURCE_NOT_FOUND, Resources

EVERY = 1.0  # seconds between two readings of the subscribed resources


def connection_of(ctx: Request) -> str:
    """The client's connection: its HTTP session id, "" on stdio (one client per server process)."""
    headers = getattr(ctx.request, "headers", None)
    return (headers.get("mcp-session-id") if headers is not None else None) or ""


class Subscriptions:
    """resources/subscribe and resources/unsubscribe, the listen streams' URIs, and the watch over them."""

    def __init__(self, resources: Resources, bus: SubscriptionBus, every: float = EVERY) -> None:
        self.resources, self.bus, self.every = resources, bus, every
        self._sessions: dict[str, dict[str, ServerSession]] = {}  # URI -> connection -> its session (2025)
        self._listening: Counter[str] = Counter()  # URI -> open listen streams that name it (2026-07-28)
        self._seen: dict[str, str | None] = {}  # URI -> its text when last read (None: not there)
        self._soon: anyio.Event | None = None  # set: read now (made on the server's loop, by the watch)

    async def subscribe(self, ctx: Request, params: types.SubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        await self._start_watching(uri)
        self._sessions.setdefault(uri, {})[connection_of(ctx)] = ctx.session
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Request, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        uri = str(params.uri)
        self._sessions.get(uri, {}).pop(connection_of(ctx), None)
        self._forget_unwatched(uri)
        return types.EmptyResult()

    def listen(self, handler: ListenHandler) -> Any:
        """`handler` (the SDK's subscriptions/listen), the URIs of each stream watched while it is open."""

        async def watched_listen(ctx: Request, params: types.SubscriptionsListenRequestParams) -> Any:
            uris = list(dict.fromkeys(params.notifications.resource_subscriptions or ()))
            for uri in uris:
                await self._start_watching(uri)
            self._listening.update(uris)
            try:
                return await handler(ctx, params)
            finally:
                self._listening.subtract(uris)
                for uri in uris:
                    self._forget_unwatched(uri)

        return watched_listen

    def check_soon(self) -> None:
        """Read the subscribed resources now (one of our tools has just changed resources)."""
        if self._soon is not None:
            self._soon.set()

    @asynccontextmanager
    async def watching(self, server: object) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: the watch runs as long as the server does."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._watch)
            yield {}
            group.cancel_scope.cancel()

    async def _watch(self) -> None:
        while True:
            self._soon = anyio.Event()
            with anyio.move_on_after(self.every):
                await self._soon.wait()
            await self.check()

    async def check(self) -> None:
        """Tell the subscribers of each watched resource whose text is not the one last read."""
        for uri in list(self._seen):
            try:
                text = await self._text(uri)
            except MCPError:
                continue  # the source failed: nothing is known to have changed; the next reading tells
            if uri in self._seen and text != self._seen[uri]:
                self._seen[uri] = text
                await self._tell(uri)

    async def _tell(self, uri: str) -> None:
        await self.bus.publish(ResourceUpdated(uri=uri))  # the listen streams that name it (2026-07-28)
        for session in list(self._sessions.get(uri, {}).values()):
            await session.send_resource_updated(uri)  # on the connection's own stream (2025)

    async def _start_watching(self, uri: str) -> None:
        text = await self._text(uri)
        if text is None:
            raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        self._seen.setdefault(uri, text)  # already watched: a change since its last reading is told to all

    def _forget_unwatched(self, uri: str) -> None:
        if not self._sessions.get(uri) and self._listening[uri] <= 0:
            self._sessions.pop(uri, None)
            self._listening.pop(uri, None)
            self._seen.pop(uri, None)

    async def _text(self, uri: str) -> str | None:
        try:
            read = await self.resources.read(None, types.ReadResourceRequestParams(uri=uri))
        except MCPError as e:
            if e.code == RESOURCE_NOT_FOUND:
                return None
            raise
        return "".join(getattr(c, "text", "") or getattr(c, "blob", "") for c in read.contents)
