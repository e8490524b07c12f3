"""`make eval`: the agent evaluation. Each prompt of `benchmarks/eval_cases.py` runs through
`main.py -m` against a fresh, seeded database, and is scored by the database's final state, the tools
that ran (from the audit log) and the answer's truthfulness.

`python -m benchmarks.agent_eval` runs the embedded default model; `--control` runs a scripted model
that always makes the ideal call and answers from the tool's result, to show the scorer can reach 100%.
The person approves exactly the writes they asked for (`--yes` only for add prompts).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import requests

from benchmarks import eval_control
from benchmarks.eval_cases import CASES, SEED, Case
from devicedb.schema import DEFAULT_MARKET_NAME
from devicedb.server import BackgroundService

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Outcome:
    case: Case
    seconds: float
    answer: str
    ran: list[str]  # tools that ran and succeeded
    attempted: list[str]  # every tool the model called
    rows_ok: bool
    wrong_rows: bool
    tool_ok: bool
    answer_ok: bool

    @property
    def verdict(self) -> str:
        if self.rows_ok and self.tool_ok and self.answer_ok:
            return "success"
        return "partial" if not self.wrong_rows and (self.tool_ok or self.answer_ok) else "fail"


def seed(db: Path) -> None:
    with BackgroundService(db) as service:
        for code, name in SEED.items():
            requests.post(f"{service.url}/api/models", json={"model": code, "marketName": name}, timeout=10)


def rows(db: Path) -> set[tuple]:
    with sqlite3.connect(db) as conn:
        return set(conn.execute("SELECT model, marketName, marketNameEn FROM models"))


def run(case: Case, env: dict[str, str]) -> Outcome:
    with tempfile.TemporaryDirectory() as folder:
        db, audit = Path(folder) / "devices.db", Path(folder) / "audit.jsonl"
        seed(db)
        command = [
            sys.executable,
            str(ROOT / "main.py"),
            "-m",
            case.text,
            *(["--yes"] if case.writes else []),
        ]
        env = {**env, "DEVICE_DB": str(db), "AUDIT_LOG": str(audit), "AGENT_USER": "eval"}
        started = time.perf_counter()
        done = subprocess.run(command, env=env, cwd=folder, capture_output=True, text=True, timeout=900)
        seconds = time.perf_counter() - started
        lines = [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
        return score(case, seconds, done.stdout.strip() or done.stderr.strip()[-300:], lines, rows(db))


def score(case: Case, seconds: float, answer: str, audit: list[dict], found: set[tuple]) -> Outcome:
    expected = {(code, name, None) for code, name in SEED.items()}
    if case.adds:
        expected.add((case.adds, DEFAULT_MARKET_NAME, None))
    ran = [line["tool"] for line in audit if line["decision"] == "ran" and line["outcome"] == "ok"]
    attempted = [line["tool"] for line in audit]
    tool_ok = ran == [case.tool] if case.tool else not attempted
    answer_ok = (
        bool(answer)
        and all(s in answer for s in case.says)
        and (not case.says_one_of or any(s in answer for s in case.says_one_of))
        and not any(s in answer for s in case.never_says)
    )
    wrong = bool(found - expected) or not {r for r in expected if r[0] in SEED} <= found
    return Outcome(case, seconds, answer, ran, attempted, found == expected, wrong, tool_ok, answer_ok)


def report(outcomes: list[Outcome], label: str) -> None:
    print(f"\n## {label}: {len(outcomes)} prompts\n")
    print("| kind | prompts | success | partial | fail |\n|---|---|---|---|---|")
    for kind in dict.fromkeys(o.case.kind for o in outcomes):
        tally = Counter(o.verdict for o in outcomes if o.case.kind == kind)
        print(
            f"| {kind} | {sum(tally.values())} | {tally['success']} | {tally['partial']} | {tally['fail']} |"
        )
    tally = Counter(o.verdict for o in outcomes)
    print(f"| **all** | {len(outcomes)} | {tally['success']} | {tally['partial']} | {tally['fail']} |")
    core = [o for o in outcomes if o.case.kind in ("add", "normalize", "query", "list")]
    good = sum(o.verdict == "success" for o in core)
    print(f"\nadd / normalize / query / list: {good}/{len(core)} = {good / len(core):.0%} success")
    print(f"prompts that left wrong rows: {[o.case.text for o in outcomes if o.wrong_rows] or 'none'}")
    times = sorted(o.seconds for o in outcomes)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"turn latency (whole `main.py -m` process): p50 {statistics.median(times):.1f} s, p95 {p95:.1f} s")
    for o in outcomes:
        if o.verdict != "success":
            print(f"  {o.verdict:7} {o.case.text!r}: tools {o.attempted} -> {o.answer[:120]!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--control", action="store_true", help="run the scripted ideal model instead")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "ADD_MODEL_URL"))}
    if args.control:
        with eval_control.serving() as url:
            outcomes = [run(case, {**env, "LLM_BASE_URL": url}) for case in CASES]
        report(outcomes, "scripted control model")
    else:
        report([run(case, env) for case in CASES], "embedded default model (SmolLM2-135M)")


if __name__ == "__main__":
    main()
