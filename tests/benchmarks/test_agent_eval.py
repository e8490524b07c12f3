"""`make eval` fails when a part falls below its floor (benchmarks/agent_eval.py), and the floors are the
figures docs/embedded states."""

import re
import subprocess
import sys
from pathlib import Path

from benchmarks import agent_eval
from benchmarks.eval_spec import PARTS, part
from tests.conftest import ROOT


def test_a_planted_regression_fails_make_eval(tmp_path: Path) -> None:
    planted = tmp_path / "main.py"  # an agent that never calls a tool and answers every prompt the same
    planted.write_text('print("Sorry, I cannot help with that.")\n')
    command = [
        sys.executable,
        "-m",
        "benchmarks.agent_eval",
        "--control",
        "--part",
        "tuned",
        "--main",
        str(planted),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-2000:]
    assert re.search(r"make eval: the tuned part passed \d+/34, below its floor of 34", done.stderr), (
        done.stderr
    )


def outcome(spec, passed: bool) -> agent_eval.Outcome:
    return agent_eval.Outcome(spec, 1.0, "", [], [], passed, False, passed, [], [])


def test_a_part_at_its_floor_passes_and_one_below_it_does_not() -> None:
    specs = part("remarks held-out")
    floor = agent_eval.FLOORS["remarks held-out"]
    at = [outcome(spec, i < floor) for i, spec in enumerate(specs)]
    assert agent_eval.below_floors(at, agent_eval.FLOORS) == []
    below = [outcome(spec, i < floor - 1) for i, spec in enumerate(specs)]
    assert agent_eval.below_floors(below, agent_eval.FLOORS) == [
        f"the remarks held-out part passed {floor - 1}/{len(specs)}, below its floor of {floor}"
    ]


def test_every_floor_is_the_one_the_docs_state() -> None:
    """docs/embedded (both languages) has a row per part: | `file` | prompts | ... | floor |."""
    for page in ("embedded.en.md", "embedded.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        for name, file in PARTS.items():
            row = re.search(rf"^\| `{re.escape(file)}` \|.*\| (\d+) \|$", text, re.MULTILINE)
            assert row, f"{page} has no row for {file}"
            assert int(row[1]) == agent_eval.FLOORS[name], (page, file)
            assert agent_eval.FLOORS[name] > 0


def test_rows_are_compared_in_the_services_stored_form() -> None:
    """A seeded or added code with a hyphen ("ELP-AN00") is stored without it (ELPAN00)."""
    from benchmarks.eval_spec import Spec

    seed = {"ELP-AN00": "荣耀200 Pro", "PJE110": "一加 Ace 3"}
    stored = {("ELPAN00", "荣耀200 Pro", None), ("PJE110", "一加 Ace 3", None)}
    look = Spec(part="people held-out", kind="query", text="x", tools=("query_device_model",), seed=seed)
    assert agent_eval.rows_verdict(look, stored) == (True, False)
    add = Spec(
        part="people held-out", kind="add", text="x", tools=(), seed=seed, rows=(("SM-S928B", None, "S"),)
    )
    assert agent_eval.rows_verdict(add, stored | {("SMS928B", "营销名未解密", "S")}) == (True, False)
    change = Spec(
        part="people held-out", kind="update", text="x", tools=(), seed=seed,
        updates=(("ELP-AN00", "marketNameEn", "HONOR 200 Pro"),),
    )  # fmt: skip
    changed = {("ELPAN00", "荣耀200 Pro", "HONOR 200 Pro"), ("PJE110", "一加 Ace 3", None)}
    assert agent_eval.rows_verdict(change, changed) == (True, False)
