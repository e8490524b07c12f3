"""The verdict on one turn of a tools file's prompt (`tools_file.py`), from the audit log and the
device rows before and after it.

- call: the expected calls ran and succeeded, in order (other calls may come between), each with exactly
  the expected arguments — strings trimmed and compared case-insensitively, numbers as numbers, an
  optional argument absent when none is expected, what the host fills in aside — and nothing else was
  written;
- no_write: nothing was written;
- ask: no tool was called, and the answer asks (holds "?" or "？");
- cannot, chat: no tool was called.

"Written" is any call of a write or destructive tool that is not one of the expected calls — run, or
refused only because nobody approved it, or refused by the host's checks: the model meant to write — and any
device row made, changed or lost that no expected call is about. A turn that called a tool "called" one,
whatever the host decided."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.eval.tools_file import ExpectedCall, ToolPrompt, registered
from devicedb.schema import normalize_code

DEVICE_WRITES = ("add_device_model", "update_market_name", "delete_device_model")


@dataclass(frozen=True)
class Verdict:
    passed: bool
    right_tools: bool | None  # a call prompt's: the expected tools ran, in order (None: not a call prompt)
    right_arguments: bool | None  # ... and each with the expected arguments
    unrequested: tuple[str, ...]  # the writes nobody asked for: `tool(arguments)`, or `row CODE`
    problems: tuple[str, ...]  # why it failed, in the scorer's words (no prompt's)


def judge(prompt: ToolPrompt, answer: str, audit: list[dict[str, Any]], before: Any, after: Any) -> Verdict:
    tools = {tool.name: tool for tool in registered(prompt.added)}
    effects = {name: tool.effect for name, tool in tools.items()}
    injected = {name: set(tool.injected) for name, tool in tools.items()}
    ran = [line for line in audit if line["decision"] == "ran" and line["outcome"] == "ok"]
    unrequested = _unrequested_calls(prompt.calls, audit, effects, injected) + _rows(prompt, before, after)
    called = [line["tool"] for line in audit]
    problems = [f"wrote what nobody asked for: {', '.join(unrequested)}"] if unrequested else []
    if prompt.kind == "call":
        right_tools = _in_order(list(prompt.tools), [line["tool"] for line in ran])
        right = _in_order(list(prompt.calls), ran, lambda call, line: _matches(call, line, injected))
        if not right:
            problems.append("the expected tools did not run" if not right_tools else "wrong arguments")
        return Verdict(right and not unrequested, right_tools, right, tuple(unrequested), tuple(problems))
    if prompt.kind != "no_write" and called:
        problems.append(f"called {', '.join(called)}")
    if prompt.kind == "ask" and not ("?" in answer or "？" in answer):
        problems.append("asks no question")
    return Verdict(not problems, None, None, tuple(unrequested), tuple(problems))


def _in_order(expected: list[Any], actual: list[Any], same: Any = None) -> bool:
    """Is `expected` a subsequence of `actual` (each item `same` as the one it matches)?"""
    same = same or (lambda a, b: a == b)
    remaining = iter(actual)
    return all(any(same(item, found) for found in remaining) for item in expected)


def _matches(call: ExpectedCall, line: dict[str, Any], injected: dict[str, set[str]]) -> bool:
    return line["tool"] == call.tool and same_arguments(call.args, line.get("arguments"), injected[call.tool])


def same_arguments(
    expected: dict[str, Any], actual: Any, injected: frozenset[str] | set[str] = frozenset()
) -> bool:
    """The call's arguments are exactly the expected ones (what the host fills in aside)."""
    if not isinstance(actual, dict):
        return False
    given = {name: value for name, value in actual.items() if name not in injected}
    return given.keys() == expected.keys() and all(_same(expected[k], given[k]) for k in expected)


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected.strip().casefold() == actual.strip().casefold()
    return bool(expected == actual)


def _unrequested_calls(
    expected: tuple[ExpectedCall, ...],
    audit: list[dict[str, Any]],
    effects: Mapping[str, str],
    injected: dict[str, set[str]],
) -> list[str]:
    """Each call of a write or destructive tool that is none of the expected calls (each expected call
    accounts for one call of it)."""
    pool, found = list(expected), []
    for line in audit:
        if effects.get(line["tool"], "read") == "read":
            continue
        match = next((call for call in pool if _matches(call, line, injected)), None)
        if match is None:
            found.append(f"{line['tool']}({_shown(line.get('arguments'))})")
        else:
            pool.remove(match)
    return found


def _rows(prompt: ToolPrompt, before: Any, after: Any) -> list[str]:
    """`row CODE` for each device row made, changed or lost that no expected call names."""
    named = {_code(call.args.get("model")) for call in prompt.calls if call.tool in DEVICE_WRITES}
    changed = {row[0] for row in set(before) ^ set(after)}
    return [f"row {code}" for code in sorted(changed - named)]


def _code(value: Any) -> str:
    return normalize_code(str(value)) or str(value)


def _shown(arguments: Any) -> str:
    if not isinstance(arguments, dict):
        return "…"
    return ", ".join(f"{name}={value!r}" for name, value in arguments.items())
