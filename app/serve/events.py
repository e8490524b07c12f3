"""What a turn tells the face serving it, as it happens: it started (in which conversation), text, a call
the model made, a call's result, and how it ended. The faces (openai.py, agui.py) render these in their
own wire shapes; `Bridge` carries them from the turn's thread to the request's event loop.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent.guards import envelope_of
from agent.memory import DURATION_MS
from app.serve.approvals import Approval


@dataclass(frozen=True)
class Started:
    conversation_id: str
    run_id: str


@dataclass(frozen=True)
class Text:
    delta: str


@dataclass(frozen=True)
class CallMade:
    id: str
    name: str
    arguments: str  # JSON, as the model wrote it

    @staticmethod
    def all_of(reply: AIMessage) -> list[CallMade]:
        """The calls of a model's reply, those whose arguments did not parse too."""
        calls: list[tuple[Any, Any, Any]]
        calls = [(c["id"], c["name"], json.dumps(c["args"], ensure_ascii=False)) for c in reply.tool_calls]
        calls += [(c["id"], c["name"], c["args"]) for c in reply.invalid_tool_calls]
        return [CallMade(call_id or "", name or "", arguments or "") for call_id, name, arguments in calls]


@dataclass(frozen=True)
class CallAnswered:
    id: str
    name: str
    envelope: dict[str, Any]  # {"ok": true, "data": ...} or {"ok": false, "error": ..., "retryable": ...}
    duration_ms: int | None = None  # how long the call ran (None: it did not run, the host answered)

    def content(self) -> str:
        return json.dumps(self.envelope, ensure_ascii=False)


@dataclass(frozen=True)
class Finished:
    conversation_id: str
    run_id: str
    answer: str
    pending: Approval | None = None
    usage: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Failed:
    error: BaseException


Event = Started | Text | CallMade | CallAnswered | Finished | Failed


def told(message: BaseMessage) -> list[Event]:
    """What a message the loop added tells the client: a reply's text and calls, a call's result."""
    if isinstance(message, AIMessage):
        return [*([Text(message.text)] if message.text else []), *CallMade.all_of(message)]
    if isinstance(message, ToolMessage):
        took = message.response_metadata.get(DURATION_MS)
        envelope = envelope_of(str(message.content))
        return [CallAnswered(message.tool_call_id, message.name or "", envelope, took)]
    return []


class Bridge:
    """Events put from a turn's thread, read on the event loop in order; `gone` says that nobody reads
    any more (the client left): the turn goes on, and its events are no longer told."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Event] = asyncio.Queue()
        self.gone = threading.Event()

    def put(self, event: Event) -> None:
        if self.gone.is_set():
            return
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, event)
        except RuntimeError:  # the request's loop is closed (the server stopped): nobody reads
            self.gone.set()

    async def get(self) -> Event:
        return await self.queue.get()

    async def events(self) -> AsyncIterator[Event]:
        """Every event up to the last (Finished or Failed)."""
        while True:
            event = await self.queue.get()
            yield event
            if isinstance(event, Finished | Failed):
                return


class Unwatched(Bridge):
    """What a turn tells when no request waits on it (a turn recovered after a restart): nothing."""

    def __init__(self) -> None:
        self.gone = threading.Event()
        self.gone.set()

    def put(self, event: Event) -> None:
        pass
