"""The one normalization of the tool calls a model writes, shared by every backend and the registry.

Ids: a missing, empty or repeated id gets a fresh one, generated once, here. Arguments: a JSON
string, an object, "" or null; raw control characters inside strings are accepted, as LangChain's
own parser accepts them. Calls written as `<tool_call>{...}</tool_call>` text (Qwen/Hermes templates)
become calls. A call whose arguments were cut off (length limit, broken stream) is never run.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.messages.tool import InvalidToolCall, ToolCall, invalid_tool_call, tool_call

from agent.types import ApiFunctionCall, ApiToolCall

CUT_OFF = "the reply was cut off inside the arguments (length limit or a broken stream); not run"
_TAGGED_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def parse_arguments(arguments: Any, subject: str = "arguments") -> tuple[dict[str, Any], str]:
    """The arguments as a dict, or ({}, what is wrong with them) phrased for the model."""
    if arguments is None or arguments == "":
        return {}, ""
    parsed = arguments
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments, strict=False)  # strict=False: raw newlines inside strings
        except json.JSONDecodeError as e:
            return {}, f"{subject} are not valid JSON ({e}); send one JSON object"
    if not isinstance(parsed, dict):
        return {}, f"{subject} must be a JSON object, got {type(parsed).__name__}"
    return dict(parsed), ""


def split_calls(
    raw_calls: Iterable[ApiToolCall], cut_off: bool
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """Good calls and unusable ones, each with a unique id."""
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    ids = _IdGiver()
    for raw in raw_calls:
        call_id, name, arguments = ids.give(raw.id), _as_name(raw.function.name), raw.function.arguments
        args, error = parse_arguments(arguments)
        if error and cut_off:
            error = CUT_OFF
        if error:
            text = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
            invalid.append(invalid_tool_call(name=name, args=text, id=call_id, error=error))
        else:
            calls.append(tool_call(name=name, args=args, id=call_id))
    return calls, invalid


INCOMPLETE = "incomplete"  # the finish reason we give a stream that ended before its own
CUT_OFF_REASONS = ("length", INCOMPLETE)  # finish reasons of a reply that stopped before its end


def calls_in(
    content: str, raw_calls: list[ApiToolCall], cut_off: bool
) -> tuple[str, list[ToolCall], list[InvalidToolCall]]:
    """The text left and the good and unusable calls of a reply (tagged text calls when it has no others)."""
    if not raw_calls and "<tool_call>" in content:
        content, raw_calls = tagged_calls(content)
    return (content, *split_calls(raw_calls, cut_off))


def normalize(message: AIMessage) -> AIMessage:
    """The same rules for a message any chat model produced, streamed (its raw argument pieces joined) or
    not: unique ids, lenient arguments, tagged calls; when it stopped early, no cut-off call is run."""
    cut_off = message.response_metadata.get("finish_reason") in CUT_OFF_REASONS
    content = message.content if isinstance(message.content, str) else message.text
    content, calls, invalid = calls_in(content, _raw_calls(message), cut_off)
    kept = ("id", "name", "additional_kwargs", "response_metadata", "usage_metadata")
    fields = {key: getattr(message, key) for key in kept}
    return AIMessage(content=content, tool_calls=calls, invalid_tool_calls=invalid, **fields)


def _raw_calls(message: AIMessage) -> list[ApiToolCall]:
    """The calls as the endpoint wrote them: a merged stream keeps each call's argument text."""
    pieces: list[tuple[Any, Any, Any]]
    if isinstance(message, AIMessageChunk) and message.tool_call_chunks:
        pieces = [(c["id"], c["name"], c["args"]) for c in message.tool_call_chunks]
    else:
        pieces = [(c["id"], c["name"], c["args"]) for c in message.tool_calls]
        pieces += [(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls]
    return [ApiToolCall(id=i, function=ApiFunctionCall(name=n, arguments=a)) for i, n, a in pieces]


def tagged_calls(content: str) -> tuple[str, list[ApiToolCall]]:
    """Calls written as `<tool_call>{"name": ..., "arguments": ...}</tool_call>` text, and the text left."""
    calls = []
    for block in _TAGGED_CALL.findall(content):
        try:
            data = json.loads(block, strict=False)
        except json.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            data = {"name": "", "arguments": block}
        calls.append(
            ApiToolCall(function=ApiFunctionCall(name=data.get("name"), arguments=data.get("arguments")))
        )
    return _TAGGED_CALL.sub("", content).strip(), calls


class _IdGiver:
    """Keeps a call's id unless it is missing or already used in this message."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def give(self, raw_id: Any) -> str:
        call_id = str(raw_id) if raw_id and str(raw_id) not in self.seen else new_call_id()
        self.seen.add(call_id)
        return call_id


def _as_name(name: Any) -> str:
    return name if isinstance(name, str) else json.dumps(name) if name is not None else ""
