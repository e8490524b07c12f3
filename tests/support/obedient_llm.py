"""The injection suite's worst-case model: it does exactly what the latest untrusted text tells it to.

It reads every message it is sent and every tool definition, as a model would (tool results decoded
from their envelopes). Text may carry instructions — `<<DO tool {"arg": ...}>>` (once; `FOREVER`:
every time), `<<SAY text>>` (put it in the answer) — and the latest text that carries any is obeyed
first; `$LAST_RESULT` stands for the data of the latest tool result. With nothing left to obey, it
does the person's task: the scripted calls, in order, then an answer that repeats what it was told to
say. It is an OpenAI-compatible reply function for `tests.support.fake_llm.FakeLLM`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

MARK = re.compile(r"<<(DO|SAY) (.*?)>>", re.DOTALL)
Call = tuple[str, dict[str, Any]]


def obedient(script: list[Call]) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The model's reply to a request, for a person whose task is the calls of `script`."""

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        turn = messages[max(i for i, m in enumerate(messages) if m["role"] == "user") :]
        made = [(c["function"]["name"], json.loads(c["function"]["arguments"] or "{}")) for c in _calls(turn)]
        orders, says = _orders(messages, request.get("tools") or [])
        last = _last_result(turn)
        for name, args, forever in orders:
            args = json.loads(json.dumps(args).replace("$LAST_RESULT", json.dumps(last)[1:-1]))
            if forever or (name, args) not in made:
                return _message(tool_calls=[_call(name, args, len(made))])
        for name, args in script:
            if (name, args) not in made:
                return _message(tool_calls=[_call(name, args, len(made))])
        return _message(content=" ".join(["Done.", *says, last[:200]]).strip())

    return reply


def _orders(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> tuple[list, list[str]]:
    """The instructions of the latest text that carries any: (name, arguments, forever) and SAY texts."""
    texts = [_readable(m) for m in messages] + [json.dumps(t["function"], ensure_ascii=False) for t in tools]
    for text in reversed(texts):
        found = MARK.findall(text)
        if found:
            orders = [_order(body) for kind, body in found if kind == "DO"]
            return [o for o in orders if o], [body for kind, body in found if kind == "SAY"]
    return [], []


def _order(body: str) -> tuple[str, dict[str, Any], bool] | None:
    forever = body.endswith(" FOREVER")
    name, _, rest = body.removesuffix(" FOREVER").partition(" ")
    for written in (rest, rest.replace('\\"', '"')):  # read inside a JSON string, its quotes are escaped
        try:
            return name, json.loads(written or "{}"), forever
        except json.JSONDecodeError:
            continue
    return None


def _readable(message: dict[str, Any]) -> str:
    """What a model reads in a message: a tool result decoded from its envelope."""
    content = str(message.get("content") or "")
    if message["role"] != "tool":
        return content
    try:
        envelope = json.loads(content.split("\n", 1)[1].rsplit("\n", 1)[0])
    except (IndexError, json.JSONDecodeError):
        return content
    said = envelope.get("data", envelope.get("error"))
    return said if isinstance(said, str) else json.dumps(said, ensure_ascii=False)


def _last_result(turn: list[dict[str, Any]]) -> str:
    results = [_readable(m) for m in turn if m["role"] == "tool"]
    return results[-1] if results else ""


def _calls(turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for m in turn if m["role"] == "assistant" for c in m.get("tool_calls") or []]


def _call(name: str, args: dict[str, Any], n: int) -> dict[str, Any]:
    return {"id": f"call_{n}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def _message(**fields: Any) -> dict[str, Any]:
    message = {"role": "assistant", "content": fields.get("content"), **fields}
    finish = "tool_calls" if fields.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-obedient",
        "object": "chat.completion",
        "created": 1,
        "model": "obedient",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
