"""The JSON an OpenAI-compatible endpoint reads: messages, tool definitions, `tool_choice` and
`response_format` in the chat-completions format (the request half of the tutorial's llm_wrapper.go)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_function

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
_CHOICES = ("auto", "none", "required")


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """One LangChain message as the endpoint reads it: text content, tool calls and their ids."""
    if not isinstance(message, AIMessage):
        _text_only(message)
    out: dict[str, Any] = {"role": _ROLES.get(message.type, message.type), "content": message.text}
    if message.name and not isinstance(message, ToolMessage):
        out["name"] = message.name
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        # content stays "" rather than null: llama.cpp's server rejects null assistant content
        out["tool_calls"] = [
            _call_to_dict(c["id"], c["name"], json.dumps(c["args"], ensure_ascii=False))
            for c in message.tool_calls
        ]
        out["tool_calls"] += [
            _call_to_dict(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls
        ]
    return out


def _call_to_dict(call_id: str | None, name: str | None, arguments: str | None) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name or "", "arguments": arguments or ""}}


def _text_only(message: BaseMessage) -> None:
    if isinstance(message.content, str):
        return
    for block in message.content:
        kind = block.get("type") if isinstance(block, dict) else "text"
        if kind != "text":
            raise ValueError(
                f"CustomLLMWrapper sends text only; this {message.type} message has a {kind!r} part"
            )


def tool_choice(choice: Any, tool_names: Sequence[str]) -> str | dict[str, Any] | None:
    """LangChain's spellings in OpenAI's: "any" and True mean "required", a tool's name names it."""
    if choice is None or choice is False:
        return None
    if isinstance(choice, str) and choice in tool_names:
        return {"type": "function", "function": {"name": choice}}
    if choice is True or choice == "any":
        return "required"
    if choice in _CHOICES or isinstance(choice, dict):
        return choice
    raise ValueError(
        f"tool_choice {choice!r} is not one of {', '.join(_CHOICES)}, any, True or a tool name "
        f"({', '.join(tool_names) or 'no tools bound'})"
    )


def json_schema_format(schema: Any, strict: bool | None) -> dict[str, Any]:
    """`response_format` asking for JSON matching `schema` (a pydantic class, TypedDict or JSON Schema)."""
    function = convert_to_openai_function(schema, strict=strict)
    spec = {"name": function["name"], "schema": function["parameters"]}
    if function.get("description"):
        spec["description"] = function["description"]
    if strict is not None:
        spec["strict"] = strict
    return {"type": "json_schema", "json_schema": spec}


def chat_body(
    messages: list[BaseMessage], defaults: dict[str, Any], params: dict[str, Any]
) -> dict[str, Any]:
    """The request body: the messages, the model's settings (None left out) and this call's parameters."""
    body = {
        "messages": [message_to_dict(m) for m in messages],
        **{k: v for k, v in defaults.items() if v is not None and v != []},
        **params,
    }
    if not body.get("tools"):
        for only_with_tools in ("tools", "tool_choice", "parallel_tool_calls"):
            body.pop(only_with_tools, None)
    return body
