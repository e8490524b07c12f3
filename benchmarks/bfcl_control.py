"""The scripted model of `python -m benchmarks.bfcl_run --control`, on loopback like scripted_llm.py: for a
BFCL case's question it makes the case's first possible answer — each function of it, each argument its
first acceptable value, none where that value is "leave it out" — all in one reply; where no function fits
(irrelevance) it answers in words. It knows the answers, which no model does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks import scripted_llm


def ideal_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's first possible answer, as OpenAI tool calls."""
    calls = []
    for i, call in enumerate(case["answer"]):
        ((name, arguments),) = call.items()
        function = {
            "name": name.replace(".", "_"),
            "arguments": json.dumps(_first(arguments), ensure_ascii=False),
        }
        calls.append({"id": f"call_{i}", "type": "function", "function": function})
    return calls


def _first(arguments: dict[str, list[Any]]) -> dict[str, Any]:
    """Each argument's first acceptable value; a dict's values are lists of acceptable values too."""
    chosen = {key: values[0] for key, values in arguments.items() if values and values[0] != ""}
    return {key: _first(value) if isinstance(value, dict) else value for key, value in chosen.items()}


def replier(cases: list[dict[str, Any]]) -> Any:
    by_question = {"\n".join(m["content"] for m in c["question"] if m["role"] == "user"): c for c in cases}

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        asked = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        calls = ideal_calls(by_question[asked]) if messages[-1]["role"] == "user" else []
        return scripted_llm.completion(scripted_llm.assistant(calls, "Done."), "bfcl-control")

    return reply


@contextmanager
def serving(cases: list[dict[str, Any]]) -> Iterator[str]:
    server, url = scripted_llm.start(replier(cases))
    try:
        yield url
    finally:
        server.shutdown()
