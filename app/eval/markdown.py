"""The scorecard as Markdown, for a person: its first line the overall result and the command that
reproduces it; then the parts, each group apart under a heading that says what its parts are (tuned, held
out when written and mined since, held out, blind held out, golden, tools files): a table of the group,
each part's categories, and each failing case said in words (failures.py) — a held-out part's by id,
calls and rules only, never its prompt or answer; then the counts of the blind parts and tools files;
then BFCL's accuracy by category, with grounding and without, when it ran."""

from __future__ import annotations

from typing import Any

from app.eval.bfcl_run import table
from app.eval.counts import counts_table, row
from app.eval.groups import GROUPS
from app.eval.summary import CHECKS

SHORT = {"trajectory exact": "exact", "trajectory in_order": "in order", "trajectory any_order": "any order"}
BFCL = (
    "## BFCL single-turn, through the host (bfcl-eval's AST checker): with grounding (every string "
    "argument must be in the person's words) and without"
)


def headline(card: dict[str, Any]) -> str:
    """The overall result in one line: the device cases passed (in every run) of all that ran, those that
    could not run; BFCL's accuracy with grounding and without; and the command that reproduces it."""
    said = []
    total = card["cases"] + len(card["errors"])
    if total:
        errors = f", {len(card['errors'])} could not run" if card["errors"] else ""
        said.append(f"{card['passed']}/{total} cases passed ({card['passed'] / total:.0%}){errors}")
    if "bfcl" in card:
        on, off = (_accuracy(card["bfcl"][grounding]) for grounding in ("on", "off"))
        said.append(f"BFCL {on:.0%} with grounding, {off:.0%} without")
    return f"Scorecard: {'; '.join(said)} — reproduce: {card['command']}"


def markdown(card: dict[str, Any]) -> str:
    k = card["k"]
    limit = f", the first {card['limit']} of each part" if card["limit"] else ""
    lines = [headline(card), "", f"# Tool-calling scorecard: {card['model']}"]
    lines += ["", f"{card['cases']} cases{limit}, k = {k}."]
    for group in GROUPS:
        parts = {name: part for name, part in card["parts"].items() if part["group"] == group.key}
        if parts:
            lines += ["", f"## {group.heading}", "", *_parts_table(parts, k)]
            for name, part in parts.items():
                lines += _part(name, part, k)
    counted = {name: part["counts"] for name, part in card["parts"].items() if "counts" in part}
    if counted:
        tools = {n for n, part in card["parts"].items() if part["format"] == "tools file"}
        lines += ["", "## Blind parts and tools files: per file and in total", ""]
        lines += counts_table(counted, tools)
    if card["errors"]:
        lines += ["", "## Cases that could not run", "", *[f"- {error}" for error in card["errors"]]]
    if "bfcl" in card:
        lines += ["", BFCL, "", *table(card["bfcl"])]
    return "\n".join(lines) + "\n"


def _parts_table(parts: dict[str, Any], k: int) -> list[str]:
    columns = [*CHECKS, f"pass^{k}"]
    head = ["part", "status", "cases", "passed", *[SHORT.get(c, c) for c in columns]]
    head += ["rounds", "tokens", "p50 s"]
    rows = [row(head), row(["---"] * len(head))]
    for name, part in parts.items():
        figures = [_figure(part["scores"][c]) for c in columns]
        rest = [part["rounds"], "–" if part["tokens"] is None else part["tokens"], part["seconds_p50"]]
        passed = f"{part['passed']}/{part['cases']}"
        rows.append(row([name, part["status"], part["cases"], passed, *figures, *rest]))
    return rows


def _part(name: str, part: dict[str, Any], k: int) -> list[str]:
    head = ["category", "cases", "success", f"pass^{k}", "exact", "in order", "arguments", "abstention"]
    lines = ["", f"### {name}: by category", "", row(head), row(["---"] * len(head))]
    for kind, scores in part["categories"].items():
        keys = ["success", f"pass^{k}", "trajectory exact", "trajectory in_order", "arguments", "abstention"]
        lines.append(row([kind, scores["cases"], *[_figure(scores[key]) for key in keys]]))
    failures = part["failures"]
    lines += ["", f"{name}: {part['passed']}/{part['cases']} cases pass in every run."]
    if failures:
        lines += ["", f"#### {name}: failing cases", "", *[line for f in failures for line in _failing(f, k)]]
    return lines


def _failing(failure: dict[str, Any], k: int) -> list[str]:
    """One failing case as a list item: its id and kind, then what was expected, what it did, and why."""
    runs = f", failed {failure['failed_runs']} of {k} runs" if k > 1 else ""
    made = " → ".join(failure["calls"]) or "no call"
    lines = [
        f"- **{failure['id']}** ({failure['kind']}{runs})",
        f"  - expected: {' → '.join(failure['expected_calls']) or 'no call'}",
        f"  - made: {made}",
    ]
    if "answer" in failure:
        lines.append(f"  - answered: {_quoted(failure['answer'])}")
    lines += [f"  - why: {reason}" for reason in failure["why"]]
    if "prompt" in failure:
        lines.append(f"  - prompt: {_quoted(failure['prompt'])}")
    return lines


def _quoted(text: str) -> str:
    return "“" + " ".join(text.split()) + "”" if text.strip() else "(nothing)"


def _accuracy(figures: dict[str, Any]) -> float:
    """The share of all BFCL cases right, over the categories."""
    cases = sum(f["cases"] for f in figures.values())
    return sum(f["accuracy"] * f["cases"] for f in figures.values()) / cases if cases else 0.0


def _figure(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"
