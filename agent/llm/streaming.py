"""Streaming: read a `stream: true` answer (server-sent events) as LangChain `AIMessageChunk`s, and
assemble it into the body a non-streaming answer would have had, so `parse_response` reads both alike.

Tool-call deltas are joined by `index`; when a provider omits the index, a delta with a new id or a
second name starts a new call and anything else continues the last one. A name and its arguments may
come in separate deltas; a provider may send all the arguments at once, or repeat them at the end.
Each chunk carries what is new, already in that shape, so LangChain's own merging of chunks agrees.
A stream that stops before its finish reason is marked `incomplete`, and a call whose arguments were
cut off there is not run.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import requests
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk

from agent.llm.tool_calls import INCOMPLETE
from agent.llm.transport import byte_lines
from agent.types import LLMError

if TYPE_CHECKING:
    import httpx


DONE: dict[str, Any] = {}  # what `sse_event` returns for `data: [DONE]`


def sse_events(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON payloads of `data:` lines, until `data: [DONE]`; comments and blank lines skipped."""
    for line in lines:
        event = sse_event(line)
        if event is DONE:
            return
        if event is not None:
            yield event


def sse_event(line: str) -> dict[str, Any] | None:
    """The JSON object of one `data:` line, DONE at the end, None for anything else."""
    if not line.startswith("data:"):
        return None
    data = line[5:].strip()
    if data == "[DONE]":
        return DONE
    try:
        event = json.loads(data)
    except json.JSONDecodeError:
        return None
    return event if isinstance(event, dict) else None


def read_stream(
    resp: requests.Response, assembler: StreamAssembler, url: str, give_up_at: float
) -> Iterator[ChatGenerationChunk]:
    """The chunks of an event stream; cut off mid-way, what arrived is kept and marked incomplete."""
    try:
        # byte lines, decoded one by one: str.splitlines would also split on U+2028 inside the JSON
        for event in sse_events(line.decode("utf-8", "replace") for line in resp.iter_lines()):
            yield ChatGenerationChunk(message=assembler.add(event))
            _check_time(url, give_up_at)
    except requests.RequestException as e:
        assembler.broke_off(url, e)
    finally:
        resp.close()


async def aread_stream(
    resp: httpx.Response, assembler: StreamAssembler, url: str, give_up_at: float
) -> AsyncIterator[ChatGenerationChunk]:
    """`read_stream` for asyncio."""
    import httpx

    try:
        async for line in byte_lines(resp):
            event = sse_event(line)
            if event is DONE:
                return
            if event is not None:
                yield ChatGenerationChunk(message=assembler.add(event))
            _check_time(url, give_up_at)
    except httpx.TransportError as e:
        assembler.broke_off(url, e)
    finally:
        await resp.aclose()


def _check_time(url: str, give_up_at: float) -> None:
    if time.monotonic() > give_up_at:
        raise LLMError(f"LLM endpoint {url} did not finish its answer in time")


class StreamAssembler:
    """Feed events with `add`, each giving the chunk of what is new; `last()` ends the stream with usage
    and finish reason; `body()` is the whole answer."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self._by_index: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None
        self.meta: dict[str, Any] = {}
        self.events = 0

    def add(self, event: dict[str, Any]) -> AIMessageChunk:
        """Take one event; malformed parts are skipped."""
        self.events += 1
        if event.get("error"):
            raise LLMError(f"the LLM endpoint reported an error mid-stream: {str(event['error'])[:200]}")
        self.meta.update({k: event[k] for k in ("id", "model") if isinstance(event.get(k), str)})
        self.usage = event.get("usage") if isinstance(event.get("usage"), dict) else self.usage
        new_text, new_calls = "", []
        for choice in _dicts(event.get("choices")):
            delta = choice.get("delta") or choice.get("message") or {}
            delta = delta if isinstance(delta, dict) else {}
            if isinstance(delta.get("content"), str):
                new_text += delta["content"]
            new_calls += [self._merge(piece) for piece in _dicts(delta.get("tool_calls"))]
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
        self.text.append(new_text)
        return AIMessageChunk(content=new_text, tool_call_chunks=new_calls)

    def broke_off(self, url: str, error: Exception) -> None:
        """The connection failed mid-stream: what arrived stays, marked incomplete; nothing: an error."""
        if not self.events:
            raise LLMError(f"LLM endpoint {url} broke off its answer: {type(error).__name__}") from None
        self.finish_reason = None

    def last(self) -> AIMessageChunk:
        """The closing chunk: finish reason, model name and token usage."""
        metadata = {"finish_reason": self.finish_reason or INCOMPLETE, "model_name": self.meta.get("model")}
        return AIMessageChunk(
            content="",
            usage_metadata=usage_metadata(self.usage),
            response_metadata=metadata,
            chunk_position="last",
        )

    def _merge(self, piece: dict[str, Any]) -> Any:
        """Join one tool-call delta into its call; return what LangChain should see (index, new parts)."""
        call = self._target(piece)
        new_id = piece.get("id") if not call.get("id") and piece.get("id") else None
        call["id"] = call.get("id") or new_id
        function, part = call["function"], piece.get("function")
        part = part if isinstance(part, dict) else {}
        new_name = None
        if isinstance(part.get("name"), str) and not function["name"]:
            function["name"] = new_name = part["name"]
        arguments = part.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        if not arguments or (_complete_json(function["arguments"]) and arguments == function["arguments"]):
            arguments = ""  # a repeat of complete arguments is dropped
        function["arguments"] += arguments
        return tool_call_chunk(name=new_name, args=arguments, id=new_id, index=_position(self.calls, call))

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


def as_chunk(message: AIMessage) -> AIMessageChunk:
    """A whole answer as one closing chunk (a server that ignored `stream`, or the plain retry)."""
    calls: list[tuple[Any, Any, Any]]
    calls = [(c["id"], c["name"], json.dumps(c["args"], ensure_ascii=False)) for c in message.tool_calls]
    calls += [(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls]
    return AIMessageChunk(
        content=message.content,
        tool_call_chunks=[
            tool_call_chunk(id=i, name=n, args=a, index=k) for k, (i, n, a) in enumerate(calls)
        ],
        usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
        chunk_position="last",
    )


def usage_metadata(usage: Any) -> UsageMetadata | None:
    """LangChain's token counts from the endpoint's `usage` object (None when it sent none)."""
    if not isinstance(usage, dict):
        return None
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    total = _count(usage.get("total_tokens")) or prompt + completion
    return UsageMetadata(input_tokens=prompt, output_tokens=completion, total_tokens=total)


def _position(calls: list[dict[str, Any]], call: dict[str, Any]) -> int:
    return next(i for i, c in enumerate(calls) if c is call)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return False
    return True
