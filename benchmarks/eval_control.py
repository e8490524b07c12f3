"""The evaluation's control: a scripted OpenAI-compatible model on loopback that makes each prompt's ideal
calls, then answers truthfully from the tools' results (the envelopes inside the `role: "tool"`
messages). It shows the scorer can reach 100%; it knows each prompt's spec, which no model does.

`python -m benchmarks.eval_control COMMAND...` runs COMMAND with LLM_BASE_URL set to it (`make eval`:
`python -m benchmarks.eval_control python main.py eval --floors all --bfcl 50`); a COMMAND that runs BFCL
gets BFCL's scripted answers too (benchmarks/bfcl_control.py), and the tools files' prompts theirs
(benchmarks/tools_control.py: the blind parts', and those of each `--tools-file` COMMAND names), and the
device job files' prompts of each `--job-file` their ideal turns."""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.eval import bfcl_run
from app.eval.expected import CJK, written
from app.eval.spec import GOLDEN, Spec, all_specs, job_file, part
from app.eval.truth import written_number
from benchmarks import bfcl_control, scripted_llm, tools_control
from benchmarks.eval_expressions import OPERATIONS, expression_for

BY_TEXT = {spec.text: spec for spec in [*all_specs(), *part(GOLDEN)]}


def reply(request: dict[str, Any], specs: dict[str, Spec] = BY_TEXT) -> dict[str, Any]:
    messages = request["messages"]
    spec = specs[next(m["content"] for m in reversed(messages) if m["role"] == "user")]
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
    return scripted_llm.completion(message, "control", model="control")


def ideal_calls(spec: Spec) -> list[tuple[str, dict[str, Any]]]:
    """The spec's calls: those it writes down (app/eval/expected.py), else made from its words."""
    found = written(spec)
    if found is not None:
        return found
    name = spec.tools[0]
    if name == "query_device_model":  # several: a look-up of each code the answer names
        keywords = spec.says[: len(spec.tools)] if len(spec.tools) > 1 else [_keyword(spec)]
        return [(name, {"keyword": keyword}) for keyword in keywords]
    if name == "calculator":
        from app.models.embedded.arithmetic import arithmetic

        read = arithmetic(unicodedata.normalize("NFKC", spec.text))  # full-width digits as digits
        if read is None or not _close(_value(ast.parse(read, mode="eval").body), spec.result):
            read = expression_for(spec.text, spec.result)[1:-1]
        return [(name, {"expression": read})]
    if name == "current_time":
        from tools.current_time import CITIES

        named = (re.search(re.escape(c), spec.text, re.IGNORECASE) for c in CITIES)  # "sydney" too
        place = next((m[0] for m in named if m), spec.zone)  # as the person wrote it, else the zone meant
        return [(name, {"timezone": place} if place else {})]
    return [(name, {})]


def _keyword(spec: Spec) -> str:
    """What the person looks up, as they wrote it: the end of two words or more of the sought model's
    market name that their words hold ("Find X7" of "OPPO Find X7", "GT5 Pro" of "真我GT5 Pro"), else a
    code (mistyped or not). A word is a run of one script: Chinese characters, or anything else."""
    sought = spec.says[0] if spec.says else ""  # a question that must not write may name no code
    name = spec.seed.get(sought, "")
    starts = [m.start() for m in re.finditer(r"[\u3400-\u9fff]+|[^\s\u3400-\u9fff]+", name)]
    ends = [name[start:] for start in starts[:-1]]
    named = next((end for end in ends if end.casefold() in spec.text.casefold()), None)
    code = re.search(r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9-]{4,}", spec.text)
    return named or (code[0] if code else sought)


def _value(node: ast.AST) -> float:
    """The value of an expression of numbers and + - * / (the demo reader's), by operator's functions."""
    if isinstance(node, ast.BinOp):
        sign = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}.get(type(node.op))
        if sign is not None:
            return OPERATIONS[sign](_value(node.left), _value(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_value(node.operand)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return float(node.value)
    raise ValueError(f"not arithmetic: {ast.dump(node)}")


def _close(value: float, wanted: float | None) -> bool:
    return wanted is not None and abs(value - wanted) < 1e-6


def words(spec: Spec) -> str:
    """The answer of a turn that calls no tool: what the spec asks it to say, or a greeting."""
    if spec.kind == "ask":
        return "你是要添加还是查询？" if spec.lang == "zh" else "Do you mean to add it or to look it up?"
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
        return _in_chinese(data, spec)
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
        if data.get("didYouMean"):
            return f"No model {_keyword(spec)}; did you mean {', '.join(data['didYouMean'])}?"
        return (
            f"Found {data['total']}: {codes}."
            if data["total"]
            else f"No model matching {spec.says[0] if spec.says else ''} is in the database."
        )
    if isinstance(data, dict) and isinstance(data.get("result"), (int, float)):
        return f"{data.get('expression', 'It')} = {written_number(data['result'])}."
    return json.dumps(data, ensure_ascii=False)


def _results_of_this_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    return [_envelope(m["content"]) for m in messages[last_user:] if m["role"] == "tool"]


def _envelope(content: str) -> dict[str, Any]:
    body = content.split("\n", 1)[1].rsplit("\n", 1)[0]  # inside the <tool_output> delimiters
    return json.loads(body.replace("\\u003c", "<").replace("\\u003e", ">"))


@contextmanager
def serving(
    bfcl_cases: list[dict[str, Any]] | None = None,
    tools_files: tuple[Path, ...] = (),
    job_files: tuple[Path, ...] = (),
) -> Iterator[str]:
    """The control's base URL; given BFCL's cases, it also makes each one's first possible answer; and the
    expected calls of the blind tools files' prompts, and of those of `tools_files`; and the ideal turns
    of the device job files `job_files`."""
    bfcl, tools = bfcl_control.replier(bfcl_cases or []), tools_control.replier(tools_files)
    specs = BY_TEXT | {spec.text: spec for path in job_files for spec in job_file(path, path.stem)}

    def either(request: dict[str, Any]) -> dict[str, Any]:
        asked = next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")
        return reply(request, specs) if asked in specs else tools(request) or bfcl(request)

    server, url = scripted_llm.start(either)
    try:
        yield url
    finally:
        server.shutdown()


def _in_chinese(data: dict[str, Any], spec: Spec) -> str:
    if data.get("didYouMean"):
        return f"没有 {_keyword(spec)}；你是说 {'、'.join(data['didYouMean'])} 吗？"
    if "items" in data and not data["total"]:
        return f"数据库里没有 {_keyword(spec)}。"
    if "items" in data:
        return f"找到 {data['total']} 个：{'、'.join(row['model'] for row in data['items'])}。"
    if "datetime" in data:
        return f"现在是{data.get('placeZh') or ''}时间 {data['datetime']}。"
    if "model" in data:
        return f"好的：{data['model']}（{data.get('marketName')}，{data.get('marketNameEn') or ''}）。"
    if "result" in data:
        return f"结果：{written_number(data['result'])}。"
    return json.dumps(data, ensure_ascii=False)


def main(command: list[str]) -> int:
    """Run `command` against the control, with no other endpoint configured; its exit code."""
    if not command:
        print("usage: python -m benchmarks.eval_control COMMAND [ARGS...]", file=sys.stderr)
        return 2
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    bfcl_cases = (
        bfcl_run.load(bfcl_run.VENV_PYTHON, list(bfcl_run.CATEGORIES), None) if "--bfcl" in command else None
    )
    files = tuple(Path(path) for flag, path in itertools.pairwise(command) if flag == "--tools-file")
    jobs = tuple(Path(path) for flag, path in itertools.pairwise(command) if flag == "--job-file")
    with serving(bfcl_cases, files, jobs) as url:
        return subprocess.run(command, env={**env, "LLM_BASE_URL": url}).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
