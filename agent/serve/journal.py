"""Journal: the served agent's observer of a turn — each message the loop adds is stored, and told to the
face serving the turn (events.py) as it happens, with the answer's text as it streams.

Stored as it grows, a turn cut off anywhere leaves a history the next turn can use: the messages up to
the cut, the calls left unanswered repaired as the chat repairs them. A turn run again after its worker
died (durable.py) adds the same messages at the same places: those stored already are kept as they are.
A client that has gone is told nothing more; the turn goes on.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent.agent import TurnObserver
from agent.guards import envelope_of
from agent.memory import DURATION_MS
from agent.serve.conversations import Conversation, ConversationStore
from agent.serve.events import Bridge, CallAnswered, CallMade, Text

USAGE_KEYS = ("input_tokens", "output_tokens", "total_tokens")


class Journal(TurnObserver):
    streams = True

    def __init__(self, store: ConversationStore, conversation: Conversation, bridge: Bridge) -> None:
        self.store, self.conversation, self.bridge = store, conversation, bridge
        self.seq = conversation.next_seq
        self.streamed = False  # the reply under way was streamed as text already
        self.usage: Counter[str] = Counter()

    def keep(self, messages: list[BaseMessage]) -> None:
        """Store earlier messages the turn goes on from: a new conversation's history from the client."""
        for message in messages:
            self._store(message)

    def text(self, piece: str) -> None:
        self.streamed = True
        self.bridge.put(Text(piece))

    def added(self, message: BaseMessage) -> None:
        self._store(message)
        if isinstance(message, AIMessage):
            self._reply(message)
        elif isinstance(message, ToolMessage):
            name = message.name or ""
            envelope = envelope_of(str(message.content))
            took = message.response_metadata.get(DURATION_MS)
            self.bridge.put(CallAnswered(message.tool_call_id, name, envelope, took))

    def _store(self, message: BaseMessage) -> None:
        self.store.append(self.conversation, self.seq, message)
        self.seq += 1

    def _reply(self, message: AIMessage) -> None:
        if message.text and not self.streamed:
            self.bridge.put(Text(message.text))
        self.streamed = False
        usage: dict[str, Any] = dict(message.usage_metadata or {})
        self.usage.update({key: int(usage.get(key) or 0) for key in USAGE_KEYS})
        for call in CallMade.all_of(message):
            self.bridge.put(call)
