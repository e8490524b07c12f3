"""Why a case failed, in words: each rule it broke as a sentence, the calls it was to make beside those it
made, and what it answered. A part that may be quoted shows the rules' own reasons, the calls' arguments,
the prompt and the answer. A held-out part shows none of its words: the names of tools the host had, the
host's decisions, and the rules in the scorer's words alone (an answer's problem by its kind, never the
values it names)."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic_evals.reporting import ReportCase

from app.eval.expected import certain, written
from app.eval.export import UNREGISTERED
from app.eval.spec import Spec, held_out
from app.eval.tools_file import ToolPrompt

Run = ReportCase[Any, Any, Any]
RULES = {  # a check that failed -> what it means, in this order
    "trajectory exact": "the tools that ran are not the expected ones, in order",
    "right tools": "the expected tools did not run, in order",
    "arguments": "an expected call had other arguments",
    "right arguments": "the expected tools ran, with other arguments",
    "abstention": "it called a tool where none fits",
    "grounded": "an argument was not in the person's words",
    "no unrequested write": "it wrote what nobody asked for",
    "rows": "the device database is not what a correct turn leaves (a row missing, wrong, made up or lost)",
    "answer": "the answer is not true to what happened",
}
ANSWER_KINDS = (  # an answer's problem (truth.answer_problems) by the start of its words -> said unquoted
    ("no answer", "there is no answer"),
    ("does not say", "it does not say something it must"),
    ("says none of", "it says none of the words of which it must say one"),
    ("says ", "it says something it must not"),
    ("does not state the time", "it does not state the time it must"),
    ("does not state", "it does not state the number it must"),
    ("asks no question", "it asks no question"),
    ("does not answer in Chinese", "it does not answer in Chinese"),
    ("answers partly in Chinese", "it answers partly in Chinese, where the person wrote English"),
    ("has English words", "it has English words in a Chinese answer"),
    ("called ", "it called a tool where none was to run"),  # a tools file's verdict (tools_verdict)
)
SHOWN = 300  # the characters of an answer the scorecard shows
UNREACHABLE = (
    "the host refuses an expected call with the person's words, whatever the model does: no model passes it"
)


def failure(name: str, case_id: str, runs: list[Run]) -> dict[str, Any]:
    """A failing case: its first run that failed, said for a person (`why`, `expected_calls`, `calls`),
    with the names of the checks it failed; its prompt and answer too where the part may be quoted."""
    case = next(c for c in runs if value(c, "success") is not True)
    quoted = not held_out(name)
    checks = [*RULES, "success", "trajectory in_order", "trajectory any_order"]
    failed = [check for check in checks if value(case, check) not in (None, True, 1.0)]
    known = case.output.registered
    found: dict[str, Any] = {
        "id": case_id,
        "kind": metadata(case)["kind"],
        "expected": list(case.inputs.tools),
        "actual": case.output.ran,
        "attempted": [tool if quoted or tool in known else UNREGISTERED for tool in case.output.attempted],
        "failed": failed,
        "failed_runs": sum(value(c, "success") is not True for c in runs),
        "why": _why(case, failed, quoted),
        "expected_calls": _expected(case.inputs, quoted),
        "calls": [_made(line, quoted, known) for line in case.output.audit],
    }
    if quoted:
        found |= {"prompt": case.inputs.text, "answer": case.output.answer[:SHOWN]}
    return found


def _why(case: Run, failed: list[str], quoted: bool) -> list[str]:
    """Each rule broken, in words; where quoted, with the check's own reason after a colon."""
    found = []
    for check in [c for c in RULES if c in failed]:
        reason = _reason(case, check)
        if _said_already(check, failed, case.output.ran):
            continue
        if check == "answer" and reason and not quoted:
            found += [f"the answer: {_unquoted(problem)}" for problem in reason.split("; ") if problem]
        elif check == "arguments" and not quoted:
            found.append(RULES[check] + _parameters(case.inputs, reason))
        else:
            found.append(f"{RULES[check]}: {reason}" if quoted and reason else RULES[check])
    if not found:  # the verdict alone failed: its own reason says why
        reasons = [r for r in _reason(case, "success").split("; ") if r]
        found = [r if quoted else _unquoted(r) for r in reasons] or ["the case's verdict failed"]
    if refused := metadata(case).get("refused"):  # a tools file's prompt beyond any model (its tool names)
        found.insert(0, f"{UNREACHABLE} ({refused})")
    return found


def _said_already(check: str, failed: list[str], ran: list[str]) -> bool:
    """Does another failed check say it: the tools file's own verdict on the tools, or tools that did not
    run (then their arguments were not other ones)?"""
    if check == "trajectory exact":
        return "right tools" in failed
    return (check == "arguments" and not ran) or (check == "right arguments" and "right tools" in failed)


def _parameters(spec: Spec, reason: str) -> str:
    """The expected calls' parameters the argument check names, never their values: " (model, marketName)".
    Only names the spec's own calls hold count: a value the model wrote may hold anything."""
    names = {name for _, arguments in certain(spec) for name in arguments}
    said = [name for name in dict.fromkeys(re.findall(r"key '([\w.-]+)'", reason)) if name in names]
    return f" ({', '.join(said)})" if said else ""


def _unquoted(problem: str) -> str:
    """A problem's kind, without the values it names."""
    return next((words for start, words in ANSWER_KINDS if problem.startswith(start)), "a rule of the scorer")


def _expected(spec: Spec | ToolPrompt, quoted: bool) -> list[str]:
    """The calls a correct turn makes: with their arguments where the spec writes them and may be quoted."""
    if isinstance(spec, ToolPrompt):
        calls = [(call.tool, call.args) for call in spec.calls]
    else:
        calls = (written(spec) if spec.tools else None) or [(tool, {}) for tool in spec.tools]
    return [call_text(tool, arguments) if quoted else tool for tool, arguments in calls]


def _made(line: dict[str, Any], quoted: bool, known: frozenset[str]) -> str:
    """A call the model made, and what the host did with it (its outcome's words where quoted)."""
    tool = line["tool"] if quoted or line["tool"] in known else UNREGISTERED
    text = call_text(str(tool), line.get("arguments") or {}) if quoted else str(tool)
    if line["decision"] != "ran":
        return f"{text} [{line['decision']}]"
    failed = line["outcome"] != "ok"
    return f"{text} [ran, failed: {line['outcome']}]" if failed and quoted else text + " [failed]" * failed


def call_text(tool: str, arguments: dict[str, Any]) -> str:
    """`tool(name=value, ...)`, each value as JSON writes it."""
    said = ", ".join(f"{key}={json.dumps(item, ensure_ascii=False)}" for key, item in arguments.items())
    return f"{tool}({said})"


def _reason(case: Run, check: str) -> str:
    result = case.assertions.get(check) or case.scores.get(check)
    return str(result.reason or "") if result is not None else ""


def value(case: Run, check: str) -> float | bool | None:
    """A check's value on one run: True/False, a score, or None where it does not apply."""
    result = case.assertions.get(check) or case.scores.get(check)
    return None if result is None else result.value  # type: ignore[no-any-return]


def metadata(case: Run) -> dict[str, Any]:
    """A case's metadata (`cases.cases`: its part, kind, and what the host refuses of it)."""
    return case.metadata or {}
