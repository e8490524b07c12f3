"""The terminal's observer of a turn: each tool result shown as a card with the call it answers, and the
answer as it streams in (where the console shows text as it comes)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent.agent import TurnObserver
from agent.guards import envelope_of
from agent.memory import DURATION_MS


class ConsoleObserver(TurnObserver):
    def __init__(self, ui: Any) -> None:
        self.ui = ui  # a Console (console.py)
        self.streams = ui.on_text is not None
        self._calls: dict[str, dict[str, Any]] = {}  # the last reply's calls, by id

    def added(self, message: BaseMessage) -> None:
        if isinstance(message, AIMessage):
            self._calls = {c["id"] or "": dict(c) for c in [*message.tool_calls, *message.invalid_tool_calls]}
        elif isinstance(message, ToolMessage) and message.tool_call_id in self._calls:
            seconds = (message.response_metadata.get(DURATION_MS) or 0) / 1000
            envelope = json.dumps(envelope_of(str(message.content)), ensure_ascii=False)
            self.ui.on_tool(self._calls[message.tool_call_id], envelope, seconds)

    def text(self, piece: str) -> None:
        self.ui.on_text(piece)
