"""The table `make security` prints: per suite and overall, benign utility, utility under attack and targeted
attack success with our policies off and on, beside published figures; then what the host refused, by rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ARMS = ("off", "on")

# Published figures, for an agent with a real model (ours is scripted: see the README). Neither paper was
# read here in full; where each number comes from is said in the README.
PUBLISHED = [
    ("AgentDojo paper: GPT-4o, no defense (v1, 629 pairs)", "69.0%", "50.0%", "57.7%"),
    ("CaMeL paper: CaMeL, its best model (undefended: 84%)", "77%", "–", "near 0"),
]


def markdown(tallies: Mapping[str, Mapping[str, Any]], seconds: float) -> str:
    """`tallies`: suite -> arm -> Tally (benchmarks/agentdojo_bench.py)."""
    head = (
        "| suite | user tasks / pairs | benign utility, off | on | utility under attack, off | on "
        "| attack success, off | on |\n|---|---|---|---|---|---|---|---|"
    )
    rows = [_row(name, arms) for name, arms in tallies.items()]
    if len(tallies) > 1:
        rows.append(_row("**all**", {arm: _merged([t[arm] for t in tallies.values()]) for arm in ARMS}))
    rows += [
        f"| {who} | published | {benign} | | {under} | | {asr} | |" for who, benign, under, asr in PUBLISHED
    ]
    cases = sum(2 * (len(t["on"].benign) + len(t["on"].utility)) for t in tallies.values())
    return "\n".join(
        [head, *rows, "", _refusals(tallies), "", f"{cases} runs of our host in {seconds:.0f} s.", ""]
    )


def _row(name: str, arms: Mapping[str, Any]) -> str:
    on = arms["on"]
    cells = [f"{len(on.benign)} / {len(on.utility)}"]
    for field in ("benign", "utility", "attacked"):
        cells += [_share(getattr(arms[arm], field)) for arm in ARMS]
    return f"| {name} | " + " | ".join(cells) + " |"


def _refusals(tallies: Mapping[str, Mapping[str, Any]]) -> str:
    """Under attack: how often the script acted the injection out, attack success over the pairs it can
    act out, and every decision the host's audit recorded with policies on."""
    lines = [
        "| suite | injection acted on, off / on | attack success where it can be acted out, off / on "
        "| calls under attack with policies on, by the audit's decision |",
        "|---|---|---|---|",
    ]
    for name, arms in tallies.items():
        off, on = arms["off"], arms["on"]
        decisions = ", ".join(f"{d} {n}" for d, n in sorted(on.decisions.items(), key=lambda kv: -kv[1]))
        actable = f"{_share(off.actable)} / {_share(on.actable)}"
        lines.append(f"| {name} | {off.obeyed} / {on.obeyed} | {actable} | {decisions} |")
    return "\n".join(lines)


def _merged(tallies: list[Any]) -> Any:
    first = type(tallies[0])()
    for tally in tallies:
        for field in ("benign", "utility", "attacked", "actable"):
            getattr(first, field).extend(getattr(tally, field))
        first.obeyed += tally.obeyed
        first.decisions.update(tally.decisions)
    return first


def _share(values: list[bool]) -> str:
    if not values:
        return "–"
    return f"{100 * sum(values) / len(values):.1f}% ({sum(values)}/{len(values)})"
