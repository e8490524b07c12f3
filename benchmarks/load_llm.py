"""The load test's model: each turn is one `add_device_model` of the code the person's message names, then
a short answer. A loopback OpenAI-compatible server (benchmarks/scripted_llm.py's), in a process of its own
so its CPU time is counted apart: `python -m benchmarks.load_llm` prints its base URL.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from benchmarks.scripted_llm import assistant, start

CODE = re.compile(r"\bLD[0-9]+X[0-9]+\b")  # the codes benchmarks/load_client.py asks to add


def code_of(message: dict[str, Any]) -> str | None:
    """The code a user message names, if any (its content is a string or a list of text parts)."""
    content = message.get("content") or ""
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
    found = CODE.search(text)
    return found.group(0) if found else None


def reply(request: dict[str, Any]) -> dict[str, Any]:
    """An add of the last user message's code while that message has no tool result yet, else the answer."""
    messages = request["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    code = code_of(messages[last_user])
    answered = any(m["role"] == "tool" for m in messages[last_user:])
    calls = []
    if code and not answered:
        arguments = json.dumps({"model": code})
        calls = [
            {
                "id": f"call_{code}",
                "type": "function",
                "function": {"name": "add_device_model", "arguments": arguments},
            }
        ]
    message = assistant(calls, f"Added {code}." if code else "Done.")
    return {
        "id": "chatcmpl-load",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "load",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


if __name__ == "__main__":
    served, address = start(reply)
    print(address, flush=True)
    threading.Event().wait()
