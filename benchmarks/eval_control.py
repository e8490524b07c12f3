"""The evaluation's control: a scripted OpenAI-compatible model on loopback that makes each prompt's ideal
calls, then answers truthfully from the tools' results (the envelopes inside the `role: "tool"`
messages). It shows the scorer can reach 100%; it knows each prompt's spec, which no model does."""

from __future__ import annotations

import itertools
import json
import operator
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks import scripted_llm
from benchmarks.eval_spec import Spec, all_specs

OPERATIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}

BY_TEXT = {spec.text: spec for spec in all_specs()}
CJK = re.compile(r"[\u3400-\u9fff]")


def reply(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    spec = BY_TEXT[next(m["content"] for m in reversed(messages) if m["role"] == "user")]
    results = _results_of_this_turn(messages)
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if results:
        message["content"] = "\n".join(answer(envelope, spec) for envelope in results)
    elif spec.tools:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(ideal_calls(spec))
        ]
    else:
        message["content"] = words(spec)
    return {
        "id": "control",
        "object": "chat.completion",
        "model": "control",
        "choices": [{"index": 0, "message": message}],
    }


def ideal_calls(spec: Spec) -> list[tuple[str, dict[str, Any]]]:
    if spec.arguments or spec.part == "tuned":
        return [(spec.tools[0], spec.arguments)]
    name = spec.tools[0]
    if name == "add_device_model":
        return [
            (name, {"model": code, **({"marketName": market} if market else {})})
            for code, market in spec.rows
        ]
    if name == "update_market_name":
        return [(name, {"model": code, _field(market): market}) for code, market in spec.updates]
    if name == "query_device_model":
        return [(name, {"keyword": spec.says[0]})]
    if name == "calculator":
        from app.models.embedded.reading import arithmetic

        return [(name, {"expression": arithmetic(spec.text) or _two_numbers(spec)})]
    if name == "current_time":
        from tools.current_time import CITIES

        named = (re.search(re.escape(c), spec.text, re.IGNORECASE) for c in CITIES)  # "sydney" too
        place = next((m[0] for m in named if m), None)  # the value as the person wrote it
        return [(name, {"timezone": place} if place else {})]
    return [(name, {})]


def _field(name: str) -> str:
    return "marketName" if CJK.search(name) else "marketNameEn"


def words(spec: Spec) -> str:
    """The answer of a turn that calls no tool: what the spec asks it to say, or a greeting."""
    if spec.kind == "delete":
        return "这里不能删除。" if CJK.search(spec.text) else "I cannot delete here."
    if spec.lang:
        said = " ".join([*spec.says, *spec.says_one_of[:1]])
        return f"好的：{said}。" if spec.lang == "zh" else f"Hello! {said}."
    return f"Hello! I can {' / '.join(spec.says_one_of)}." if spec.says_one_of else "Hello!"


def answer(envelope: dict[str, Any], spec: Spec) -> str:
    """What a result says, in words the scorer checks for (in Chinese where the spec asks for it)."""
    data = envelope.get("data")
    if spec.lang == "zh" and envelope["ok"] and isinstance(data, dict):
        return _in_chinese(data)
    if not envelope["ok"]:
        return f"That failed: {envelope['error']}"
    if isinstance(data, dict) and "datetime" in data:
        return f"It is {data['datetime']} in {data.get('place') or data['timezone']}."
    if isinstance(data, dict) and "created" in data:
        return (
            f"Added {data['model']}." if data["created"] else f"{data['model']} is already in the database."
        )
    if isinstance(data, dict) and "items" in data:
        codes = ", ".join(row["model"] for row in data["items"])
        return (
            f"Found {data['total']}: {codes}."
            if data["total"]
            else f"No model matching {spec.says[0] if spec.says else ''} is in the database."
        )
    return json.dumps(data, ensure_ascii=False)


def _results_of_this_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [_envelope(m["content"]) for m in messages[last_user:] if m["role"] == "tool"]


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


def _in_chinese(data: dict[str, Any]) -> str:
    if "items" in data:
        return f"找到 {data['total']} 个：{'、'.join(row['model'] for row in data['items'])}。"
    if "datetime" in data:
        return f"现在是{data.get('placeZh') or ''}时间 {data['datetime']}。"
    if "model" in data:
        return f"好的：{data['model']}（{data.get('marketName')}，{data.get('marketNameEn') or ''}）。"
    return f"结果：{data.get('result')}。"


def _two_numbers(spec: Spec) -> str:
    """Words the demo's reader has no rule for ("3 phones at 2499 each"): the ideal call is the operation on
    two of the prompt's numbers that gives the result the answer must state."""
    numbers = re.findall(r"\d+(?:\.\d+)?", spec.text)
    for a, b in itertools.permutations(numbers, 2):
        for sign, operation in OPERATIONS.items():
            if float(b) and abs(operation(float(a), float(b)) - (spec.result or 0)) < 1e-9:
                return f"{a} {sign} {b}"
    raise ValueError(f"no operation on two numbers of {spec.text!r} gives {spec.result}")
