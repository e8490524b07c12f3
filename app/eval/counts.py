"""The scorecard's table of counts, for the blind parts and tools files: per file and in total, the
prompts, those any model can pass through this host, those passed, the call prompts whose tools and
arguments were right, and the turns that wrote what nobody asked for."""

from __future__ import annotations

from collections.abc import Sequence

COUNTS = (
    "prompts",
    "reachable",
    "passed",
    "calls",
    "right tools",
    "right arguments",
    "unrequested writes",
    "wrong",
)
HEADS = (
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


def counts_table(counted: dict[str, dict[str, int]], tools: set[str]) -> list[str]:
    """One row per part (`tools`: those that are tools files); call prompts' columns only where a part has
    call prompts; then the totals; then what the columns mean."""
    rows = [row(["part", *HEADS]), row(["---"] * (len(COUNTS) + 1))]
    for name, counts in {**counted, **_totals(counted, tools)}.items():
        cells = [_count(counts, key) for key in COUNTS]
        rows.append(row([name, *cells]))
    return [*rows, "", REACHABLE]


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


def row(cells: Sequence[object]) -> str:
    """A Markdown table's row; a cell's `|` escaped, its line breaks made spaces."""
    return "| " + " | ".join(str(c).replace("|", "\\|").replace("\n", " ") for c in cells) + " |"
