"""The scorecard's figures: a pydantic-evals report, summed up per part and per category (the spec's kind),
runs of one case (`--k`) taken together for pass^k, and the failing cases' expected and actual
trajectories, said in words (failures.py: never a held-out part's prompts); for a blind part or a tools
file, also its counts: prompts passed, call prompts whose tools and arguments were right, turns that wrote
what nobody asked for."""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from pydantic_evals.reporting import EvaluationReport, ReportCase

from app.eval.failures import failure, metadata, value
from app.eval.groups import group, status
from app.eval.spec import FILES, blind, held_out
from app.eval.tools_file import ToolPrompt

CHECKS: tuple[str, ...] = (
    "success",
    "trajectory exact",
    "trajectory in_order",
    "trajectory any_order",
    "arguments",
    "abstention",
    "grounded",
)


def summarize(report: EvaluationReport[Any, Any, Any], names: list[str], k: int) -> dict[str, Any]:
    """{part: its figures} for the parts named, in their order."""
    runs: dict[str, list[ReportCase[Any, Any, Any]]] = defaultdict(list)
    for case in report.cases:
        runs[case.source_case_name or case.name].append(case)
    parts: dict[str, Any] = {}
    for name in names:
        mine = {i: r for i, r in runs.items() if metadata(r[0])["part"] == name}
        if mine:
            parts[name] = _part(name, mine, k)
    return parts


def _part(name: str, runs: dict[str, list[ReportCase[Any, Any, Any]]], k: int) -> dict[str, Any]:
    every = [case for cases in runs.values() for case in cases]
    kinds: dict[str, dict[str, list[ReportCase[Any, Any, Any]]]] = defaultdict(dict)
    for case_id, cases in runs.items():
        kinds[metadata(cases[0])["kind"]][case_id] = cases
    seconds = sorted(_seconds(case) for case in every)
    return {
        "status": status(name),
        "group": group(name),
        "format": "tools file" if isinstance(every[0].inputs, ToolPrompt) else "device job",
        "held_out": held_out(name),
        "cases": len(runs),
        "runs": k,
        "passed": _passed(runs),
        "scores": _scores(runs, k),
        "rounds": round(statistics.mean(case.metrics.get("rounds", 0) for case in every), 2),
        "tokens": round(statistics.mean(_tokens(case) for case in every), 1) if _counted(every) else None,
        "seconds_p50": round(statistics.median(seconds), 2),
        "seconds_p95": round(seconds[min(len(seconds) - 1, round(0.95 * (len(seconds) - 1)))], 2),
        "categories": {kind: _scores(cases, k) | {"cases": len(cases)} for kind, cases in kinds.items()},
        "failures": [failure(name, case_id, cases) for case_id, cases in runs.items() if not _ok(cases)],
    } | ({"counts": _counts(runs)} if blind(name) or name not in FILES else {})


def _counts(runs: dict[str, list[ReportCase[Any, Any, Any]]]) -> dict[str, int]:
    """How many prompts there are, and how many a model can pass through this host (none of whose expected
    calls the host refuses, with the person's words: `ToolPrompt.refused`); how many passed; of the call
    prompts (a tools file's), how many ran the expected tools, and with the expected arguments; how many
    turns wrote what nobody asked for; how many were wrong. A case run k times counts as right when every
    run was, as writing when any run did."""
    calls = [cases for cases in runs.values() if metadata(cases[0])["kind"] == "call"]
    passed = _passed(runs)
    return {
        "prompts": len(runs),
        "reachable": sum("refused" not in metadata(cases[0]) for cases in runs.values()),
        "passed": passed,
        "calls": len(calls),
        "right tools": sum(all(value(c, "right tools") is True for c in cases) for cases in calls),
        "right arguments": sum(all(value(c, "right arguments") is True for c in cases) for cases in calls),
        "unrequested writes": sum(
            any(value(c, "no unrequested write") is False for c in cases) for cases in runs.values()
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
    values = [float(v) for case in cases if (v := value(case, check)) is not None]
    return round(statistics.mean(values), 3) if values else None


def _passed(runs: dict[str, list[ReportCase[Any, Any, Any]]]) -> int:
    return sum(_ok(cases) for cases in runs.values())


def _ok(cases: list[ReportCase[Any, Any, Any]]) -> bool:
    return all(value(case, "success") is True for case in cases)


def _seconds(case: ReportCase[Any, Any, Any]) -> float:
    started, ended = case.output.when
    return float(ended - started)


def _tokens(case: ReportCase[Any, Any, Any]) -> float:
    return float(case.metrics.get("input_tokens_used", 0) + case.metrics.get("output_tokens_used", 0))


def _counted(cases: list[ReportCase[Any, Any, Any]]) -> bool:
    """Did the model say how many tokens any reply took? (Not every endpoint, nor the embedded demo, does.)"""
    return any(_tokens(case) for case in cases)
