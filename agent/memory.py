"""MemoryManager: the conversation history, and the window of it the model sees within a token budget.

Mirrors the tutorial's memoryManager (AddMessage, GetOptimizedMessages, Clear). The history is linear:
every step appends. The window is a pure function of it: the system messages, then the most recent
turns that fit. It always starts at a user message, so it never starts on a tool result and never
separates an assistant's tool calls from their results. A user message the person typed says so
(`person_message`): only those words can ground a tool's values, never text a command appended.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from agent.guards import untrusted
from agent.provenance import BY_HOST, TYPED
from agent.types import fail

DURATION_MS = "duration_ms"  # a tool message's response_metadata: how long the call ran


class MemoryManager:
    def __init__(self, system_prompt: str = "", max_tokens: int = 6000) -> None:
        """`system_prompt`: the history's first message (the tutorial's AddMessage("system", ...))."""
        self.max_tokens = max_tokens
        self._history: list[BaseMessage] = [SystemMessage(system_prompt)] if system_prompt else []

    def add(self, message: BaseMessage) -> None:
        self._history.append(message)

    def history(self) -> list[BaseMessage]:
        return list(self._history)

    def clear(self, keep_system: bool = True) -> None:
        self._history = [m for m in self._history if keep_system and isinstance(m, SystemMessage)]

    def messages(self) -> list[BaseMessage]:
        """What the model sees: system messages + the latest turns within `max_tokens`."""
        system = [m for m in self._history if isinstance(m, SystemMessage)]
        rest = with_results(m for m in self._history if not isinstance(m, SystemMessage))
        budget = self.max_tokens - sum(estimate_tokens(m) for m in system)
        return system + rest[self._window_start(rest, budget) :]

    @staticmethod
    def _window_start(rest: list[BaseMessage], budget: int) -> int:
        turn_starts = [i for i, m in enumerate(rest) if isinstance(m, HumanMessage)]
        if not turn_starts:
            return len(rest)
        sizes = [estimate_tokens(m) for m in rest]
        start = turn_starts[-1]  # the current turn is always sent whole
        for i in reversed(turn_starts):
            if sum(sizes[i:]) > budget:
                break
            start = i
        return start


def with_results(history: Iterable[BaseMessage]) -> list[BaseMessage]:
    """History repair: a tool call left without a result (Ctrl-C, a deadline mid-turn) gets a
    "cancelled" result right after its siblings, so no provider ever receives an invalid history."""
    out: list[BaseMessage] = []
    pending: list[dict] = []
    for message in history:
        if pending and not isinstance(message, ToolMessage):
            out += [_cancelled(call) for call in pending]
            pending = []
        out.append(message)
        if isinstance(message, AIMessage):
            pending = [dict(c) for c in [*message.tool_calls, *message.invalid_tool_calls]]
        elif isinstance(message, ToolMessage):
            pending = [c for c in pending if c["id"] != message.tool_call_id]
    return out + [_cancelled(call) for call in pending]


def unanswered(history: list[BaseMessage]) -> list[dict]:
    """The calls of the last assistant message still without a result, when the history ends on them
    (a turn that stopped for the person's approval, or was cut off)."""
    answered: set[str] = set()
    for message in reversed(history):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
            continue
        if isinstance(message, AIMessage):
            calls = [dict(c) for c in [*message.tool_calls, *message.invalid_tool_calls]]
            return [call for call in calls if call["id"] not in answered]
        return []
    return []


def _cancelled(call: dict) -> ToolMessage:
    return tool_message(call, fail("cancelled", retryable=True), by_host=True)


def tool_message(
    call: Mapping[str, Any], envelope: str, by_host: bool, seconds: float | None = None
) -> ToolMessage:
    """The `role: "tool"` message answering `call`: its envelope as delimited, untrusted data; `by_host`:
    the host wrote it (a refusal, a cancellation), not the tool, so it is no data from outside. A call
    that ran keeps how long it took (`response_metadata`, never sent to the model)."""
    name = call["name"] or ""
    extra = {BY_HOST: True} if by_host else {}
    took = {DURATION_MS: round(seconds * 1000)} if seconds is not None and not by_host else {}
    return ToolMessage(
        content=untrusted(name, envelope),
        tool_call_id=call["id"],
        name=name,
        additional_kwargs=extra,
        response_metadata=took,
    )


def estimate_tokens(message: BaseMessage) -> int:
    """A rough count (about 3 characters per token, plus overhead); exact counts come from usage."""
    size = len(message.content) if isinstance(message.content, str) else len(json.dumps(message.content))
    if isinstance(message, AIMessage):
        size += len(json.dumps(message.tool_calls, ensure_ascii=False))
    return size // 3 + 4


def person_message(text: str, typed: str | None = None) -> HumanMessage:
    """A user message of the person's turn: `text` for the model, `typed` (default: all of `text`) the
    words the person typed themselves."""
    return HumanMessage(text, additional_kwargs={TYPED: text if typed is None else typed})


def typed_by_person(history: Iterable[BaseMessage]) -> tuple[str, ...]:
    """What the person typed, message by message: not resources, prompt templates or tool output."""
    return tuple(
        str(m.additional_kwargs[TYPED])
        for m in history
        if isinstance(m, HumanMessage) and m.additional_kwargs.get(TYPED)
    )


def this_turn(history: list[BaseMessage]) -> list[BaseMessage]:
    """The messages of the turn under way: the person's latest message and what followed it."""
    starts = [
        i for i, m in enumerate(history) if isinstance(m, HumanMessage) and m.additional_kwargs.get(TYPED)
    ]
    return history[starts[-1] :] if starts else []
