"""Streaming: read a `stream: true` answer (server-sent events) and assemble it into the body a
non-streaming answer would have had, so `parse_response` handles both the same way.

Tool-call deltas are joined by `index`; when a provider omits the index, a delta with a new id or a
second name starts a new call and anything else continues the last one. A name and its arguments may
come in separate deltas; a provider may send all the arguments at once, or repeat them at the end. A
stream that stops before its finish reason is marked `incomplete`, and a call whose arguments were
cut off there is not run.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from agent.types import LLMError

INCOMPLETE = "incomplete"


def sse_events(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON payloads of `data:` lines, until `data: [DONE]`; comments and blank lines skipped."""
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return
        try:
            event = json.loads(data)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            yield event


class StreamAssembler:
    """Feed chunks with `add`; `text_delta` of each is what to show; `body()` is the whole answer."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self._by_index: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.meta: dict[str, Any] = {}
        self.events = 0

    def add(self, chunk: dict[str, Any]) -> str:
        """Take one chunk; return its new text (maybe empty). Malformed parts are skipped."""
        self.events += 1
        if chunk.get("error"):
            raise LLMError(f"the LLM endpoint reported an error mid-stream: {str(chunk['error'])[:200]}")
        self.meta.update({k: chunk[k] for k in ("id", "model") if isinstance(chunk.get(k), str)})
        self.usage = chunk.get("usage") if isinstance(chunk.get("usage"), dict) else self.usage
        new_text = ""
        for choice in _dicts(chunk.get("choices")):
            delta = choice.get("delta") or choice.get("message") or {}
            delta = delta if isinstance(delta, dict) else {}
            if isinstance(delta.get("content"), str):
                new_text += delta["content"]
            for piece in _dicts(delta.get("tool_calls")):
                self._merge(piece)
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
        self.text.append(new_text)
        return new_text

    def _merge(self, piece: dict[str, Any]) -> None:
        call = self._target(piece)
        call["id"] = call.get("id") or piece.get("id")
        function, part = call["function"], piece.get("function")
        part = part if isinstance(part, dict) else {}
        if isinstance(part.get("name"), str) and not function["name"]:
            function["name"] = part["name"]
        arguments = part.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if arguments and not (_complete_json(function["arguments"]) and arguments == function["arguments"]):
            function["arguments"] += arguments  # a repeat of complete arguments is dropped

    def _target(self, piece: dict[str, Any]) -> dict[str, Any]:
        index = piece.get("index")
        if isinstance(index, int):
            if index not in self._by_index:
                self._by_index[index] = self._new_call()
            return self._by_index[index]
        last = self.calls[-1] if self.calls else None
        part = piece.get("function")
        name = part.get("name") if isinstance(part, dict) else None
        starts_new = (
            last is None
            or (piece.get("id") and piece["id"] != last["id"])
            or (name and last["function"]["name"] and _complete_json(last["function"]["arguments"]))
        )
        return self._new_call() if starts_new else last  # type: ignore[return-value]

    def _new_call(self) -> dict[str, Any]:
        call = {"id": None, "type": "function", "function": {"name": "", "arguments": ""}}
        self.calls.append(call)
        return call

    def body(self) -> dict[str, Any]:
        """The assembled answer, shaped like a non-streaming chat.completion."""
        message = {"role": "assistant", "content": "".join(self.text), "tool_calls": self.calls or None}
        choice = {"index": 0, "message": message, "finish_reason": self.finish_reason or INCOMPLETE}
        return {**self.meta, "choices": [choice], "usage": self.usage}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return False
    return True
