"""The load test's figures from one run: the writes counted at the device service (a code stored twice, an
add run twice, a turn answered as done whose code is not stored), the turns' latencies and errors, the
recovery after a kill, CPU per turn by process; and the Markdown table of one or two runs side by side."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field

import psycopg

from benchmarks.load_client import Turn


@dataclass(frozen=True)
class Writes:
    """What the device service stored: rows per code, and Idempotency-Keys per code (each key is one add
    the service ran; two keys for one code is an add run twice)."""

    rows: Counter
    keys: Counter


def writes_at(database_url: str) -> Writes:
    with psycopg.connect(database_url) as conn:
        rows = Counter(code for (code,) in conn.execute("SELECT model FROM models"))
        keyed = conn.execute("SELECT model FROM idempotency WHERE model IS NOT NULL")
        return Writes(rows, Counter(code for (code,) in keyed))


@dataclass
class Figures:
    """One run's figures."""

    name: str
    users: int
    asked: int  # conversations x turns
    seconds: float
    turns: list[Turn]
    writes: Writes
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds by process
    killed_at: float | None = None  # time.monotonic() of the kill
    back_at: float | None = None  # ... and of the killed server answering again

    @property
    def done(self) -> list[Turn]:
        return [t for t in self.turns if t.outcome == "done"]

    def duplicates(self) -> int:
        stored_twice = sum(n - 1 for n in self.writes.rows.values() if n > 1)
        return stored_twice + sum(n - 1 for n in self.writes.keys.values() if n > 1)

    def lost(self) -> int:
        """Turns answered as done, whose add did not report an error, and whose code is not stored."""
        return sum(1 for t in self.done if not t.refusal and t.code.upper() not in self.writes.rows)

    def errors(self) -> Counter:
        """Each re-send by its reason, each turn that ended without an answer by how, and each answered
        turn whose add did not run, by the error its answer gave."""
        counted: Counter = Counter()
        for turn in self.turns:
            counted.update({f"{why} (re-sent)": n for why, n in turn.resent.items()})
            if turn.outcome != "done":
                counted[f"{turn.outcome} (failed)"] += 1
            if turn.refusal:
                counted[f"add not run, said the answer: {turn.refusal}"] += 1
        counted["unanswered (never sent)"] = self.asked - len(self.turns)
        return +counted

    def cut(self) -> list[Turn]:
        """The turns the kill cut: in flight then, and sent again after a connection error (a turn in
        flight on a server that lived saw none)."""
        if self.killed_at is None:
            return []
        at = self.killed_at
        return [
            t
            for t in self.turns
            if t.started < at and (not t.ended or t.ended > at) and t.resent["connection"]
        ]

    def recovery(self) -> float | None:
        """Seconds from the kill to the last answer of a turn that was in flight then."""
        if self.killed_at is None:
            return None
        return max((t.ended for t in self.cut() if t.ended), default=self.killed_at) - self.killed_at

    def _since_kill(self, moment: float | None) -> str:
        return "-" if moment is None or self.killed_at is None else f"{moment - self.killed_at:.1f}"

    def latency_ms(self) -> list[float]:
        took = [t.took * 1000 for t in self.done]
        if len(took) < 2:
            return [took[0]] * 3 if took else [0.0] * 3
        cuts = statistics.quantiles(took, n=100)
        return [cuts[49], cuts[94], cuts[98]]

    def rows(self) -> list[tuple[str, str, float | None]]:
        """(figure, as shown, the number a ratio divides or None)."""
        p50, p95, p99 = self.latency_ms()
        rate = len(self.done) / self.seconds if self.seconds else 0.0
        errors = ", ".join(f"{why} {n}" for why, n in sorted(self.errors().items())) or "none"
        recovery = self.recovery()
        shown = [
            ("users", str(self.users), None),
            ("turns answered / asked", f"{len(self.done)} / {self.asked}", None),
            ("codes stored", str(len(self.writes.rows)), None),
            ("approvals answered yes", str(sum(t.approvals for t in self.turns)), None),
            ("turns/s", f"{rate:.1f}", rate),
            ("p50 ms", f"{p50:.0f}", p50),
            ("p95 ms", f"{p95:.0f}", p95),
            ("p99 ms", f"{p99:.0f}", p99),
            ("errors by kind", errors, None),
            ("duplicates", str(self.duplicates()), None),
            ("lost writes", str(self.lost()), None),
            ("turns cut by the kill", "-" if recovery is None else str(len(self.cut())), None),
            ("killed server answering again after s", self._since_kill(self.back_at), None),
            ("recovery s", "-" if recovery is None else f"{recovery:.1f}", recovery),
        ]
        turns = max(len(self.done), 1)
        for process, seconds in self.cpu.items():
            per_turn = seconds * 1000 / turns
            shown.append((f"CPU ms/turn, {process}", f"{per_turn:.1f}", per_turn))
        return shown


def table(runs: list[Figures]) -> str:
    """The figures as a Markdown table: one column per run, and with two, their ratio (first / second)."""
    head = ["figure", *(run.name for run in runs)] + (["ratio"] if len(runs) == 2 else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    columns = [run.rows() for run in runs]
    for cells in zip(*columns, strict=True):
        line = [cells[0][0], *(shown for _, shown, _ in cells)]
        if len(runs) == 2:
            now, before = cells[0][2], cells[1][2]
            line.append(f"{now / before:.2f}x" if now is not None and before else "")
        lines.append("| " + " | ".join(line) + " |")
    return "\n".join(lines)
