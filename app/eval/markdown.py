"""The scorecard as Markdown: a table of the parts (tuned ones, held-out ones, the golden set, each group
apart), each part's categories, and its failing cases with the expected and actual trajectories side by
side; then BFCL's accuracy by category, when it ran. A held-out part's failing cases are named by id only:
running the scorecard never shows its prompts."""

from __future__ import annotations

from typing import Any

from app.eval.bfcl_run import table
from app.eval.spec import TOOL_PARTS
from app.eval.summary import CHECKS, TOOLS_FILE

GROUPS = {  # heading -> does a part of this status belong here?
    "Tuned parts": lambda status: status.startswith("tuned"),
    "Held-out parts (prompts not shown: case ids only)": lambda status: status == "held-out",
    "Golden trajectories (the scripted ideal model passes all)": lambda status: status == "golden",
    "Tools files (`--tools-file`)": lambda status: status == TOOLS_FILE,
}
COUNTS: tuple[str, ...] = (
    "prompts",
    "reachable",
    "passed",
    "calls",
    "right tools",
    "right arguments",
    "unrequested writes",
    "wrong",
)
COUNT_HEADS: tuple[str, ...] = (
    "prompts",
    "reachable",
    "passed",
    "call prompts",
    "right tools",
    "right tools and arguments",
    "unrequested writes",
    "wrong",
)
REACHABLE = (
    "reachable: the prompts none of whose expected calls the host refuses (schema, grounding) with the "
    "person's words — the most any model can pass through this host. unrequested writes: turns that "
    "called a write or destructive tool nobody asked for, or left a device row made, changed or lost."
)
SHORT = {"trajectory exact": "exact", "trajectory in_order": "in order", "trajectory any_order": "any order"}


def markdown(card: dict[str, Any]) -> str:
    k = card["k"]
    limit = f", the first {card['limit']} of each part" if card["limit"] else ""
    lines = [f"# Tool-calling scorecard: {card['model']}", "", f"{card['cases']} cases{limit}, k = {k}."]
    for heading, belongs in GROUPS.items():
        parts = {name: part for name, part in card["parts"].items() if belongs(part["status"])}
        if parts:
            lines += ["", f"## {heading}", "", *_parts_table(parts, k)]
            for name, part in parts.items():
                lines += _part(name, part, k)
    counted = {name: part["counts"] for name, part in card["parts"].items() if "counts" in part}
    if counted:
        tools = {
            name for name, part in card["parts"].items() if name in TOOL_PARTS or part["status"] == TOOLS_FILE
        }
        lines += [
            "",
            "## Blind parts and tools files: per file and in total",
            "",
            *counts_table(counted, tools),
        ]
    if "bfcl" in card:
        lines += [
            "",
            "## BFCL single-turn, through the host (bfcl-eval's AST checker)",
            "",
            *table(card["bfcl"]),
        ]
    return "\n".join(lines) + "\n"


def counts_table(counted: dict[str, dict[str, int]], tools: set[str]) -> list[str]:
    """One row per part (`tools`: those that are tools files); call prompts' columns only where a part has
    call prompts; then the totals."""
    rows = [_row(["part", *COUNT_HEADS]), _row(["---"] * (len(COUNTS) + 1))]
    for name, counts in {**counted, **_totals(counted, tools)}.items():
        cells = [_count(counts, key) for key in COUNTS]
        rows.append(_row([name, *cells]))
    return rows


def _totals(counted: dict[str, dict[str, int]], tools: set[str]) -> dict[str, dict[str, int]]:
    """The sums over every part, and over the device jobs and the tools files apart when both ran."""
    groups = {"total": counted}
    if tools & counted.keys() and counted.keys() - tools:
        groups = {
            "total, device jobs": {n: c for n, c in counted.items() if n not in tools},
            "total, tools files": {n: c for n, c in counted.items() if n in tools},
            **groups,
        }
    return {
        f"**{label}**": {key: sum(c[key] for c in group.values()) for key in COUNTS}
        for label, group in groups.items()
        if len(counted) > 1
    }


def _count(counts: dict[str, int], key: str) -> str:
    """A count; of the call prompts, out of them; "–" where a part has none."""
    if key in ("right tools", "right arguments"):
        return f"{counts[key]}/{counts['calls']}" if counts["calls"] else "–"
    if key == "calls" and not counts["calls"]:
        return "–"
    return (
        f"{counts[key]}/{counts['prompts']}"
        if key in ("passed", "unrequested writes", "wrong")
        else str(counts[key])
    )


def _columns(k: int) -> list[str]:
    return [*CHECKS, f"pass^{k}"]


def _parts_table(parts: dict[str, Any], k: int) -> list[str]:
    head = ["part", "status", "cases", *[SHORT.get(c, c) for c in _columns(k)], "rounds", "tokens", "p50 s"]
    rows = [_row(head), _row(["---"] * len(head))]
    for name, part in parts.items():
        figures = [_figure(part["scores"][c]) for c in _columns(k)]
        rest = [part["rounds"], "–" if part["tokens"] is None else part["tokens"], part["seconds_p50"]]
        rows.append(_row([name, part["status"], part["cases"], *figures, *rest]))
    return rows


def _part(name: str, part: dict[str, Any], k: int) -> list[str]:
    head = ["category", "cases", "success", f"pass^{k}", "exact", "in order", "arguments", "abstention"]
    lines = ["", f"### {name}: by category", "", _row(head), _row(["---"] * len(head))]
    for kind, scores in part["categories"].items():
        keys = ["success", f"pass^{k}", "trajectory exact", "trajectory in_order", "arguments", "abstention"]
        lines.append(_row([kind, scores["cases"], *[_figure(scores[key]) for key in keys]]))
    failures = part["failures"]
    lines += ["", f"{name}: {part['passed']}/{part['cases']} cases pass in every run."]
    if failures:
        lines += ["", f"#### {name}: failing cases", "", *_failures(failures)]
    return lines


def _failures(failures: list[dict[str, Any]]) -> list[str]:
    quoted = "prompt" in failures[0]
    head = ["case", "kind", "expected", "actual", "failed", *(["prompt", "answer", "why"] if quoted else [])]
    rows = [_row(head), _row(["---"] * len(head))]
    for f in failures:
        actual = " → ".join(f["actual"]) or "(none)"
        if f["attempted"] != f["actual"]:
            actual += f" (called: {' → '.join(f['attempted'])})"
        cells = [f["id"], f["kind"], " → ".join(f["expected"]) or "(none)", actual, ", ".join(f["failed"])]
        if quoted:
            cells += [f["prompt"], f["answer"], "; ".join(f["why"])]
        rows.append(_row(cells))
    return rows


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _row(cells: list[Any]) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
