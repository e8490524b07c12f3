"""`make bench`'s line for the cost of the rules: a client's history of 64 KB, 256 KB and 1 MiB, read as the
served agent reads it, and one write checked against it — grounding, provenance and its notice — in
seconds and in the peak of memory allocated on the way (tracemalloc)."""

from __future__ import annotations

import json
import time
import tracemalloc

from agent.grounding import grounding_error
from agent.memory import typed_by_person
from agent.provenance import provenance, untrusted_texts, values_read
from agent.types import ToolContext
from app.serve.history import from_client
from tools.model_tool import AddModelTool

SIZES = {"64 KB": 64 << 10, "256 KB": 256 << 10, "1 MiB": 1 << 20}


def history(size: int) -> list[dict]:
    """A client's messages, `size` bytes of JSON: the person's words, the assistant's, tools' results."""
    messages: list[dict] = []
    i = 0
    while len(json.dumps(messages)) < size:
        said = " ".join(f"CPH{i}{k} OPPO Reno{k} 机型 {k}" for k in range(40))
        messages += [
            {"role": "user", "content": f"Is {said} there?"},
            {"role": "assistant", "content": None, "tool_calls": [_call(i)]},
            {"role": "tool", "tool_call_id": f"c{i}", "content": f"rows: {said}"},
            {"role": "assistant", "content": f"I found {said}."},
        ]
        i += 1
    return [*messages, {"role": "user", "content": "add CPH2223IN, market name OPPO Find N6"}]


def _call(i: int) -> dict:
    arguments = json.dumps({"keyword": f"CPH{i}"})
    return {
        "id": f"c{i}",
        "type": "function",
        "function": {"name": "query_device_model", "arguments": arguments},
    }


def check(messages: list[dict]) -> None:
    loaded = from_client(messages)
    ctx = ToolContext("alice", user_text=typed_by_person(loaded), untrusted=untrusted_texts(loaded))
    tool = AddModelTool.__new__(AddModelTool)
    long_name = " ".join(["OPPO Reno"] * 200)  # a 400-word argument
    for args in (
        {"model": "CPH2223", "marketName": "OPPO Find N6"},
        {"model": "CPH2223", "marketName": long_name},
    ):
        grounding_error(args, tool.grounded, ctx, tool.canonical)
        provenance("write", False, (), args, ctx)
        values_read(args, ctx)


def measure(size: int) -> tuple[float, float]:
    messages = history(size)
    started = time.perf_counter()
    check(messages)
    seconds = time.perf_counter() - started
    tracemalloc.start()
    check(messages)
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak


def main() -> None:
    print("\n| client history | rules: seconds | rules: peak MB allocated |\n|---|---|---|")
    for name, size in SIZES.items():
        seconds, peak = measure(size)
        print(f"| {name} | {seconds:.3f} | {peak:.1f} |")


if __name__ == "__main__":
    main()
