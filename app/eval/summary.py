"""The scorecard's figures: a pydantic-evals report, summed up per part and per category (the spec's kind),
runs of one case (`--k`) taken together for pass^k, and the failing cases' expected and actual
trajectories; for a blind part or a tools file, also its counts: prompts passed, call prompts whose tools
and arguments were right, turns that wrote what nobody asked for. What a held-out part's summary holds
never quotes its prompts: ids, kinds, the names of registered tools (a name the model made up, which can be
the prompt's words, is UNREGISTERED), and the names of the checks that failed."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from pydantic_evals.reporting import EvaluationReport, ReportCase

from app.eval.device_job import MINED
from app.eval.export import UNREGISTERED
from app.eval.spec import FILES, GOLDEN, blind, held_out

CHECKS: tuple[str, ...] = (
    "success",
    "trajectory exact",
    "trajectory in_order",
    "trajectory any_order",
    "arguments",
    "abstention",
    "grounded",
)
COUNTED = ("right tools", "right arguments", "no unrequested write")  # the blind parts' and tools files'
TOOLS_FILE = "tools file"  # the status of a tools file named on the command line (`--tools-file`)


def status(name: str) -> str:
    """tuned, tuned since a commit (a held-out part mined into the demo), held-out, golden or a tools file."""
    if name in MINED:
        return f"tuned (mined since {MINED[name]})"
    if name not in FILES:
        return TOOLS_FILE
    return "held-out" if held_out(name) else ("golden" if name == GOLDEN else "tuned")


def quotes_prompts(name: str) -> bool:
    """May the scorecard print this part's prompts and answers? Never those of a held-out file."""
    return not held_out(name)


def summarize(report: EvaluationReport[Any, Any, Any], names: list[str], k: int) -> dict[str, Any]:
    """{part: its figures} for the parts named, in their order."""
    runs: dict[str, list[ReportCase[Any, Any, Any]]] = defaultdict(list)
    for case in report.cases:
        runs[case.source_case_name or case.name].append(case)
    parts: dict[str, Any] = {}
    for name in names:
        mine = {i: r for i, r in runs.items() if _meta(r[0])["part"] == name}
        if mine:
            parts[name] = _part(name, mine, k)
    return parts


def _part(name: str, runs: dict[str, list[ReportCase[Any, Any, Any]]], k: int) -> dict[str, Any]:
    every = [case for cases in runs.values() for case in cases]
    kinds: dict[str, dict[str, list[ReportCase[Any, Any, Any]]]] = defaultdict(dict)
    for case_id, cases in runs.items():
        kinds[_meta(cases[0])["kind"]][case_id] = cases
    seconds = sorted(_seconds(case) for case in every)
    return {
        "status": status(name),
        "held_out": status(name) == "held-out",
        "cases": len(runs),
        "runs": k,
        "passed": _passed(runs),
        "scores": _scores(runs, k),
        "rounds": round(statistics.mean(case.metrics.get("rounds", 0) for case in every), 2),
        "tokens": round(statistics.mean(_tokens(case) for case in every), 1) if _counted(every) else None,
        "seconds_p50": round(statistics.median(seconds), 2),
        "seconds_p95": round(seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))], 2),
        "categories": {kind: _scores(cases, k) | {"cases": len(cases)} for kind, cases in kinds.items()},
        "failures": [_failure(name, case_id, cases) for case_id, cases in runs.items() if not _ok(cases)],
    } | ({"counts": _counts(runs)} if blind(name) or name not in FILES else {})


def _counts(runs: dict[str, list[ReportCase[Any, Any, Any]]]) -> dict[str, int]:
    """How many prompts there are, and how many a model can pass through this host (none of whose expected
    calls the host refuses, with the person's words: `ToolPrompt.refused`); how many passed; of the call
    prompts (a tools file's), how many ran the expected tools, and with the expected arguments; how many
    turns wrote what nobody asked for; how many were wrong. A case run k times counts as right when every
    run was, as writing when any run did."""
    calls = [cases for cases in runs.values() if _meta(cases[0])["kind"] == "call"]
    passed = _passed(runs)
    return {
        "prompts": len(runs),
        "reachable": sum("refused" not in _meta(cases[0]) for cases in runs.values()),
        "passed": passed,
        "calls": len(calls),
        "right tools": sum(all(_value(c, "right tools") is True for c in cases) for cases in calls),
        "right arguments": sum(all(_value(c, "right arguments") is True for c in cases) for cases in calls),
        "unrequested writes": sum(
            any(_value(c, "no unrequested write") is False for c in cases) for cases in runs.values()
        ),
        "wrong": len(runs) - passed,
    }


def _scores(runs: dict[str, list[ReportCase[Any, Any, Any]]], k: int) -> dict[str, float | None]:
    """Each check's mean over the runs it applies to (None: to none), and pass^k: the share of cases
    whose every run succeeded."""
    every = [case for cases in runs.values() for case in cases]
    found: dict[str, float | None] = {check: _mean(every, check) for check in CHECKS}
    found[f"pass^{k}"] = round(_passed(runs) / len(runs), 3)
    return found


def _mean(cases: list[ReportCase[Any, Any, Any]], check: str) -> float | None:
    values = [float(v) for case in cases if (v := _value(case, check)) is not None]
    return round(statistics.mean(values), 3) if values else None


def _value(case: ReportCase[Any, Any, Any], check: str) -> float | bool | None:
    result = case.assertions.get(check) or case.scores.get(check)
    return None if result is None else result.value  # type: ignore[return-value]


def _passed(runs: dict[str, list[ReportCase[Any, Any, Any]]]) -> int:
    return sum(_ok(cases) for cases in runs.values())


def _ok(cases: list[ReportCase[Any, Any, Any]]) -> bool:
    return all(_value(case, "success") is True for case in cases)


def _seconds(case: ReportCase[Any, Any, Any]) -> float:
    started, ended = case.output.when
    return float(ended - started)


def _tokens(case: ReportCase[Any, Any, Any]) -> float:
    return float(case.metrics.get("input_tokens_used", 0) + case.metrics.get("output_tokens_used", 0))


def _counted(cases: list[ReportCase[Any, Any, Any]]) -> bool:
    """Did the model say how many tokens any reply took? (Not every endpoint, nor the embedded demo, does.)"""
    return any(_tokens(case) for case in cases)


def _failure(name: str, case_id: str, cases: list[ReportCase[Any, Any, Any]]) -> dict[str, Any]:
    """A failing case: the first run that failed, its expected and actual trajectory, the checks it
    failed; its prompt, answer and reasons too where the part may be quoted."""
    case = next(c for c in cases if _value(c, "success") is not True)
    failed = [check for check in (*CHECKS, *COUNTED) if _value(case, check) not in (None, True, 1.0)]
    found: dict[str, Any] = {
        "id": case_id,
        "kind": _meta(case)["kind"],
        "expected": list(case.inputs.tools),
        "actual": case.output.ran,
        "attempted": case.output.attempted,  # every call, whatever the host decided
        "failed": failed,
        "failed_runs": sum(_value(c, "success") is not True for c in cases),
    }
    if quotes_prompts(name):
        reasons = [f"{check}: {r.reason}" for check in failed if (r := _result(case, check)) and r.reason]
        found |= {"prompt": case.inputs.text, "answer": case.output.answer[:300], "why": reasons}
    else:  # a name the model made up can be the prompt's words
        known = case.output.registered
        found["attempted"] = [tool if tool in known else UNREGISTERED for tool in found["attempted"]]
    return found


def _result(case: ReportCase[Any, Any, Any], check: str) -> Any:
    return case.assertions.get(check) or case.scores.get(check)


def _meta(case: ReportCase[Any, Any, Any]) -> dict[str, Any]:
    """A case's metadata (`cases.cases`: its part, kind, and what the host refuses of it)."""
    return case.metadata or {}
