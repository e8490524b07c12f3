"""A bounded in-memory event store: what lets a client resume a dropped streamable-HTTP stream.

The SDK defines the interface (`EventStore`) and does the resuming; this keeps the last events of each
stream so that a client reconnecting with `Last-Event-ID` gets what it missed. Memory only: a restart of
the server loses them, which the spec allows (the client then starts over).
"""

from __future__ import annotations

import itertools
from collections import deque

from mcp.server.streamable_http import EventCallback, EventId, EventMessage, EventStore, StreamId
from mcp_types import JSONRPCMessage


class MemoryEventStore(EventStore):
    def __init__(self, max_events: int = 1000) -> None:
        self._events: deque[tuple[EventId, StreamId, JSONRPCMessage | None]] = deque(maxlen=max_events)
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: StreamId, message: JSONRPCMessage | None) -> EventId:
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: EventId, send: EventCallback) -> StreamId | None:
        position = next((i for i, (e, _, _) in enumerate(self._events) if e == last_event_id), None)
        if position is None:
            return None  # unknown or forgotten: the client cannot resume this stream
        stream_id = self._events[position][1]
        for event_id, stream, message in list(self._events)[position + 1 :]:
            if stream == stream_id and message is not None:  # None is a priming event: nothing to replay
                await send(EventMessage(message, event_id))
        return stream_id
