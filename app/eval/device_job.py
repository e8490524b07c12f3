"""The device job's verdict on one turn, as `make eval` scores it: the database's final state (the rows a
correct turn adds or changes, none lost or made up), the tools that ran (from the audit log), whether every
argument of every call was in the person's words, and the answer's truth (`truth`); and the floors
each part must reach on the embedded model. `python main.py eval` (scorecard.py) runs the
parts of `prompts/` and scores each turn with this, beside pydantic-evals' own evaluators.

The parts: the tuned part (`tuned.yaml`) was written while the demo model's policies were tuned; the
held-out parts (`heldout.yaml`, `chat_heldout.yaml`, `remarks_heldout*.yaml`, `people_heldout*.yaml`) were
written before they changed for them and are never edited. Those later mined into the demo's examples and
rules (`MINED`, and docs/embedded, say since when) are tuned parts now. The blind parts (`blind/*_job.yaml`)
are held out too, measured without a floor; their kind `no_write` passes only when no write or destructive
tool was called at all, and `delete` when the delete tool ran and the row is gone.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from app.eval.spec import Spec
from app.eval.truth import answer_problems, effect_of, ungrounded_arguments
from devicedb.schema import DEFAULT_MARKET_NAME, normalize_code

# The prompts each part must pass on the embedded model, as docs/embedded states them: the figure measured
# after the demo's last change of reading (5318b19), less one where the 135M model's own words are scored;
# lowered where the demo came to run a delete the person confirms, which those parts' prompts were written
# to expect it could not (three in heldout.yaml, two in each people part).
FLOORS = {
    "tuned": 34,
    "held-out": 40,
    "chat held-out": 34,
    "remarks held-out": 9,
    "remarks held-out 2": 23,
    "remarks held-out 3": 29,
    "people held-out": 67,
    "people held-out 2": 54,
    "people held-out 3": 57,
}


@dataclass
class Outcome:
    spec: Spec
    seconds: float
    answer: str
    ran: list[str]  # tools that ran and succeeded
    attempted: list[str]  # every tool the model called
    rows_ok: bool
    wrong_rows: bool
    tool_ok: bool
    answer_problems: list[str]
    ungrounded: list[str]
    writes: list[str]  # the write and destructive tools called that the spec does not run

    @property
    def unrequested_write(self) -> bool:
        """Did the turn write what nobody asked for: a row made, changed or lost, or a write called?"""
        return self.wrong_rows or bool(self.writes)

    @property
    def answer_ok(self) -> bool:
        return not self.answer_problems

    @property
    def verdict(self) -> str:
        if self.rows_ok and self.tool_ok and self.answer_ok and not self.ungrounded:
            return "success"
        return "partial" if not self.wrong_rows and (self.tool_ok or self.answer_ok) else "fail"


def stored(db: Path) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute("SELECT model, marketName, marketNameEn FROM models"))


def score(spec: Spec, seconds: float, answer: str, audit: list[dict], found: set[tuple], when) -> Outcome:
    ran = [line["tool"] for line in audit if line["decision"] == "ran" and line["outcome"] == "ok"]
    attempted = [line["tool"] for line in audit]
    writes = [name for name in attempted if effect_of(name) != "read" and name not in spec.tools]
    tool_ok = ran == list(spec.tools) and (bool(spec.tools) or not attempted)
    tool_ok = tool_ok and not (spec.kind == "no_write" and writes)  # not even one the person refused
    rows_ok, wrong = rows_verdict(spec, found)
    problems = answer_problems(spec, answer, when)
    ungrounded = ungrounded_arguments(spec.text, audit)
    return Outcome(
        spec, seconds, answer, ran, attempted, rows_ok, wrong, tool_ok, problems, ungrounded, writes
    )


def rows_verdict(spec: Spec, found: set[tuple]) -> tuple[bool, bool]:
    """(the database holds what a correct turn leaves, it holds a row nobody asked for or lost one)"""
    by_code = {row[0]: row for row in found}
    updated = {_stored(change[0]): change[1:] for change in spec.updates}
    gone = {_stored(code) for code in spec.removes}  # a delete's: a row left there is no wrong row
    seeded = {
        (_stored(code), name, None)
        for code, name in spec.seed.items()
        if _stored(code) not in updated and _stored(code) not in gone
    }
    added = {_stored(row[0]): row[1:] for row in spec.rows}
    kept = {c for c, _, _ in seeded} | updated.keys()
    wrong = not seeded <= found or bool(by_code.keys() - kept - added.keys() - gone)
    right = not gone & by_code.keys() and all(
        code in by_code and _holds(by_code[code][1:], expected, code in updated)
        for code, expected in [*added.items(), *updated.items()]
    )
    return right and not wrong and len(found) == len(kept) + len(added), wrong


def _stored(code: object) -> str:
    """A code of a spec as the device service stores it ("ELP-AN00" is ELPAN00)."""
    return normalize_code(str(code)) or str(code)


def _holds(names: tuple, expected: tuple, changed: bool) -> bool:
    """Do a row's (marketName, marketNameEn) hold what the spec expects? One name: in either column (none
    given: the default and no English name). A column and a value: that column. Two names: each column."""
    if len(expected) == 2 and changed:
        return names[0 if expected[0] == "marketName" else 1] == expected[1]
    if len(expected) == 2:
        return names == (expected[0] or DEFAULT_MARKET_NAME, expected[1])
    return names == (DEFAULT_MARKET_NAME, None) if expected[0] is None else expected[0] in names


# Held-out parts whose phrasings were copied into the demo while it was tuned on them: the commit since which
# each is a tuned part.
MINED = {
    "people held-out": "39b8896",  # its failures were read while the demo was changed for people's phrasing
    "held-out": "49811d0",
    "chat held-out": "c9e07cb",
    "remarks held-out": "95521fb",
    "remarks held-out 2": "451e2cb",
}
