"""The evaluation's control: a scripted OpenAI-compatible model on loopback that makes each prompt's ideal
call, then answers truthfully from the tool's result (the envelope inside the `role: "tool"` message)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks import scripted_llm
from benchmarks.eval_cases import CASES

BY_TEXT = {case.text: case for case in CASES}


def reply(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    case = BY_TEXT[next(m["content"] for m in reversed(messages) if m["role"] == "user")]
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if messages[-1]["role"] == "tool":
        message["content"] = answer(_envelope(messages[-1]["content"]), case.arguments)
    elif case.tool:
        arguments = json.dumps(case.arguments, ensure_ascii=False)
        message["tool_calls"] = [
            {"id": "call_1", "type": "function", "function": {"name": case.tool, "arguments": arguments}}
        ]
    else:
        message["content"] = "Hello! I can add, look up and list device models."
    return {
        "id": "control",
        "object": "chat.completion",
        "model": "control",
        "choices": [{"index": 0, "message": message}],
    }


def answer(envelope: dict[str, Any], arguments: dict[str, Any]) -> str:
    """What the result says, in words the scorer checks for."""
    if not envelope["ok"]:
        return f"That failed: {envelope['error']}"
    data = envelope["data"]
    if isinstance(data, dict) and "created" in data:
        return (
            f"Added {data['model']}." if data["created"] else f"{data['model']} is already in the database."
        )
    if isinstance(data, dict) and "items" in data:
        codes = ", ".join(row["model"] for row in data["items"])
        return (
            f"Found {data['total']}: {codes}."
            if data["total"]
            else f"No model matching {arguments.get('keyword')} is in the database."
        )
    return json.dumps(data, ensure_ascii=False)


def _envelope(content: str) -> dict[str, Any]:
    body = content.split("\n", 1)[1].rsplit("\n", 1)[0]  # inside the <tool_output> delimiters
    return json.loads(body.replace("\\u003c", "<").replace("\\u003e", ">"))


@contextmanager
def serving() -> Iterator[str]:
    server, url = scripted_llm.start(reply)
    try:
        yield url
    finally:
        server.shutdown()
