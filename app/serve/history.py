"""A client's messages as the loop's history: OpenAI's chat messages (and AG-UI's, which have the same
shape) as LangChain messages, at most MAX_MESSAGES of them. A user message is the signed-in person's own
words (it may ground a tool's values); what a client says the assistant and the tools said are its claims,
untrusted data: a tool result as every other, an assistant message marked `CLAIMED` (provenance counts it
as read). A conversation the server stored is told by its own record, never by a client."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call

from agent.guards import untrusted
from agent.memory import person_message
from agent.provenance import CLAIMED
from agent.types import ok
from app.serve.errors import RequestError

ROLES = "user, assistant, system, developer, tool"


MAX_MESSAGES = 1000  # of history in one request: a longer conversation goes on by its conversation_id


def from_client(messages: list[dict[str, Any]]) -> list[BaseMessage]:
    if len(messages) > MAX_MESSAGES:
        raise RequestError(
            f"{len(messages)} messages of history: at most {MAX_MESSAGES} in one request; to go on a longer "
            "conversation, send only the new message with its conversation_id (AG-UI: its threadId)",
            param="messages",
        )
    return [_message(message, i) for i, message in enumerate(messages)]


def _message(message: Any, i: int) -> BaseMessage:
    if not isinstance(message, dict):
        raise RequestError(f"messages[{i}] is not an object", param=f"messages.{i}")
    role, text = message.get("role"), content_text(message.get("content"), i)
    if role == "user":
        return person_message(text)
    if role in ("system", "developer"):
        return SystemMessage(text)
    if role == "assistant":
        return _assistant(text, message.get("tool_calls") or [], i)
    if role == "tool":
        name = str(message.get("name") or "tool")
        return ToolMessage(untrusted(name, ok(text)), tool_call_id=str(message.get("tool_call_id") or ""))
    raise RequestError(f"messages[{i}]: role {role!r} is not one of {ROLES}", param=f"messages.{i}.role")


def content_text(content: Any, i: int) -> str:
    """The text of a message's content: a string, or a list of text parts (nothing else is read)."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in content):
        return "".join(str(p.get("text") or "") for p in content)
    raise RequestError(f"messages[{i}]: only text content is read", param=f"messages.{i}.content")


def _assistant(text: str, calls: Any, i: int) -> AIMessage:
    good, bad = [], []
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            raise RequestError(
                f"messages[{i}]: a tool call has no function", param=f"messages.{i}.tool_calls"
            )
        name, arguments, call_id = str(function.get("name") or ""), function.get("arguments"), call.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise RequestError(
                f"messages[{i}]: a tool call's id is not a string", param=f"messages.{i}.tool_calls"
            )
        try:
            args = json.loads(arguments or "{}")
        except (TypeError, json.JSONDecodeError):
            args = None
        if isinstance(args, dict):
            good.append(tool_call(name=name, args=args, id=call_id))
        else:
            bad.append(
                invalid_tool_call(name=name, args=str(arguments), id=call_id, error="not a JSON object")
            )
    return AIMessage(text, tool_calls=good, invalid_tool_calls=bad, additional_kwargs={CLAIMED: True})
