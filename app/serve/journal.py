"""Journal: what a turn has done, kept step by step — the served agent's observer of a turn: each message the
loop adds is stored, and told to the face serving the turn (events.py) as it happens, with the answer's text
as it streams.

Stored as it grows, a turn cut off anywhere leaves a history the next turn can use: the messages up to
the cut, the calls left unanswered repaired as the chat repairs them. A turn run again after its worker
died (durable.py) goes on after those it stored (`found`); a step it had begun and not stored is run
again.
A client that has gone is told nothing more; the turn goes on, unless a client cancels it
(ConversationStore.cancel): it stops before it runs another call.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from agent.agent import TurnObserver
from app.serve.conversations import Conversation, ConversationStore
from app.serve.errors import Cancelled
from app.serve.events import Bridge, Text, told

USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens")


class Journal(TurnObserver):
    streams = True

    def __init__(self, store: ConversationStore, conversation: Conversation, bridge: Bridge) -> None:
        self.store, self.conversation, self.bridge = store, conversation, bridge
        self.seq = conversation.next_seq
        self.streamed = False  # the reply under way was streamed as text already
        self.usage: Counter[str] = Counter()

    def found(self, messages: list[BaseMessage]) -> None:
        """Messages this turn stored before its process died, found as they are: the next goes after."""
        self.seq += len(messages)

    def text(self, piece: str) -> None:
        self.streamed = True
        self.bridge.put(Text(piece))

    def added(self, message: BaseMessage) -> None:
        self._store(message)
        calls = isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls)
        if calls and self.store.stopping(self.conversation):  # the client cancelled: no call runs
            raise Cancelled("the turn was cancelled; what it did before is kept")
        for event in told(message):
            if not (isinstance(event, Text) and self.streamed):  # streamed text is told already
                self.bridge.put(event)
        if isinstance(message, AIMessage):
            self.streamed = False
            usage: dict[str, Any] = dict(message.usage_metadata or {})
            self.usage.update({key: int(usage.get(key) or 0) for key in USAGE_KEYS})

    def _store(self, message: BaseMessage) -> None:
        self.store.append(self.conversation, self.seq, message)
        self.seq += 1
