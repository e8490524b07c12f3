"""`python main.py eval` (app/eval/scorecard.py), run as a person runs it, against scripted models on
loopback: the scripted ideal model passes the golden trajectories in every category (the regression gate),
a model that never calls a tool fails them and the gate says so, `--limit N` runs N cases of each part,
`--k` runs each case k times, and a held-out part's prompts never appear in what the scorecard writes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.eval import bfcl_run
from app.eval.spec import GOLDEN, PROMPTS, TOOL_PARTS, part
from app.eval.tools_file import read
from benchmarks import eval_control
from tests.conftest import ROOT
from tests.support.scorecard_runs import scorecard, sorry_model

# What the golden set covers: a gate that covered less could pass on a model that cannot do the rest.
CATEGORIES = {"add", "query", "list", "update", "arithmetic", "time", "smalltalk", "thanks"}


@pytest.fixture
def ideal() -> Iterator[str]:
    with eval_control.serving() as url:
        yield url


@pytest.fixture
def sorry() -> Iterator[str]:
    with sorry_model() as url:
        yield url


def test_the_ideal_model_passes_every_golden_category(ideal: str, tmp_path: Path) -> None:
    done, card = scorecard(ideal, tmp_path, "--part", GOLDEN, "--floors", "all")
    assert done.returncode == 0, done.stderr[-2000:]
    golden = card["parts"][GOLDEN]
    assert golden["cases"] == golden["passed"] == len(part(GOLDEN))
    assert set(golden["categories"]) == CATEGORIES
    for kind, scores in golden["categories"].items():
        for check in ("success", "pass^1", "trajectory exact", "trajectory in_order", "trajectory any_order"):
            assert scores[check] == 1.0, (kind, check)
        assert scores["arguments"] in (None, 1.0) and scores["abstention"] in (None, 1.0), kind
    assert golden["scores"]["arguments"] == golden["scores"]["abstention"] == 1.0
    assert "| golden | golden | 14 | 14/14 | 100% |" in done.stdout


def test_a_model_that_calls_no_tool_fails_the_gate(sorry: str, tmp_path: Path) -> None:
    done, card = scorecard(sorry, tmp_path, "--part", GOLDEN, "--floors", "all")
    assert done.returncode == 1
    assert "eval: the golden part passed 3/14, below its floor of 14" in done.stderr
    golden = card["parts"][GOLDEN]
    assert golden["categories"]["add"]["trajectory exact"] == 0.0
    assert golden["categories"]["smalltalk"]["abstention"] == 1.0  # it was right to call none there
    two = next(f for f in golden["failures"] if f["id"] == "golden:2")
    assert (two["expected"], two["actual"]) == (["add_device_model", "add_device_model"], [])
    assert "- **golden:2** (add)" in done.stdout and "  - made: no call" in done.stdout


def test_limit_runs_that_many_cases_of_each_part_and_k_runs_each_k_times(ideal: str, tmp_path: Path) -> None:
    done, card = scorecard(ideal, tmp_path, "--part", "tuned", GOLDEN, "--limit", "2", "--k", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert {name: p["cases"] for name, p in card["parts"].items()} == {"tuned": 2, GOLDEN: 2}
    assert card["cases"] == 4 and card["k"] == 2
    assert all(p["scores"]["pass^2"] == 1.0 and p["runs"] == 2 for p in card["parts"].values())
    assert "4 cases, the first 2 of each part, k = 2." in done.stdout


def test_a_held_out_part_is_reported_by_case_ids_never_by_its_prompts(sorry: str, tmp_path: Path) -> None:
    name = "remarks held-out 3"
    done, card = scorecard(sorry, tmp_path, "--part", name, "--limit", "5")
    written = done.stdout + done.stderr + json.dumps(card, ensure_ascii=False)
    texts = {f"remarks_heldout_3:{i + 1}": spec.text for i, spec in enumerate(part(name)[:5])}
    assert card["parts"][name]["status"] == "held out"
    failing = [f["id"] for f in card["parts"][name]["failures"]]
    assert failing, "the model that calls no tool should fail some of them"
    assert all(f"- **{case}** " in done.stdout for case in failing)
    assert [case for case, text in texts.items() if text in written] == []
    assert all("prompt" not in f and "answer" not in f for f in card["parts"][name]["failures"])


def test_the_blind_parts_are_held_out_and_counted_per_file_and_in_total(sorry: str, tmp_path: Path) -> None:
    names = ["blind lab job", "blind lab tools"]
    done, card = scorecard(sorry, tmp_path, "--part", *names, "--limit", "3")
    assert done.returncode == 0, done.stderr[-2000:]
    written = done.stdout + done.stderr + json.dumps(card, ensure_ascii=False)
    texts = [spec.text for spec in part("blind lab job")[:3]]
    texts += [p.text for p in read(PROMPTS / TOOL_PARTS["blind lab tools"], "blind lab tools")[:3]]
    assert [text for text in texts if text in written] == []
    assert all(card["parts"][name]["status"] == "blind, held out" for name in names)
    assert card["parts"]["blind lab tools"]["counts"]["calls"] == 3  # its first three prompts are calls
    beyond = next(f for f in card["parts"]["blind lab tools"]["failures"] if f["id"] == "lab_tools:2")
    assert beyond["why"][0].startswith("the host refuses an expected call with the person's words")
    assert beyond["why"][0].endswith("no model passes it (log_test_sample)")  # a tool's name, no value
    assert "## Blind parts and tools files: per file and in total" in done.stdout
    assert "| **total, tools files** | 3 |" in done.stdout and "| **total** | 6 |" in done.stdout


def test_bad_arguments_are_refused_in_one_line(tmp_path: Path) -> None:
    command = [sys.executable, str(ROOT / "main.py"), "eval", "--limit", "0"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "'0' is not a whole number of 1 or more" in done.stderr


def test_bfcl_needs_its_venv_and_says_so_in_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "no-venv" / "python"
    done, card = scorecard("http://127.0.0.1:9", tmp_path, "--bfcl", "3", "--bfcl-python", str(missing))
    assert (done.returncode, done.stderr) == (
        2,
        "eval: BFCL runs in a venv of its own, which is missing: run `make bfcl-venv` in a checkout, or name "
        "its python with --bfcl-python\n",
    )
    assert card == {}


def test_naming_no_part_without_bfcl_is_an_error_not_an_empty_card(tmp_path: Path) -> None:
    done, card = scorecard("http://127.0.0.1:9", tmp_path, "--part", "--floors", "all")
    assert done.returncode == 2 and card == {}
    assert done.stderr.splitlines()[-1].endswith(
        "--part names no part, and neither --tools-file, --job-file nor --bfcl is given: there is nothing "
        "to run"
    )


@pytest.mark.bfcl
def test_bfcl_runs_in_the_scorecard_and_the_ideal_model_scores_100_with_grounding_off(tmp_path: Path) -> None:
    if not bfcl_run.VENV_PYTHON.exists():
        pytest.skip("the BFCL venv is missing: run `make bfcl-venv` (make test does)")
    found = bfcl_run.load(bfcl_run.VENV_PYTHON, list(bfcl_run.CATEGORIES), 3)
    with eval_control.serving(found) as url:
        done, card = scorecard(url, tmp_path, "--part", "--bfcl", "3", "--floors", "all")
    assert done.returncode == 0, done.stderr[-2000:]
    assert card["parts"] == {} and card["cases"] == 0  # no device part named: BFCL alone
    for grounding in ("on", "off"):
        assert {c: f["cases"] for c, f in card["bfcl"][grounding].items()} == dict.fromkeys(
            bfcl_run.CATEGORIES, 3
        )
    assert {c: f["accuracy"] for c, f in card["bfcl"]["off"].items()} == dict.fromkeys(
        bfcl_run.CATEGORIES, 1.0
    )
    assert "## BFCL single-turn, through the host" in done.stdout and "| multiple | 3 |" in done.stdout


@pytest.mark.bfcl
def test_a_model_that_calls_no_tool_fails_bfcl_under_the_controls_floors(sorry: str, tmp_path: Path) -> None:
    if not bfcl_run.VENV_PYTHON.exists():
        pytest.skip("the BFCL venv is missing: run `make bfcl-venv` (make test does)")
    done, card = scorecard(sorry, tmp_path, "--part", "--bfcl", "2", "--floors", "all")
    assert done.returncode == 1
    assert card["bfcl"]["off"]["irrelevance"]["accuracy"] == 1.0  # calling nothing is right there
    for category in ("simple_python", "multiple", "parallel"):
        assert card["bfcl"]["off"][category]["accuracy"] == 0.0
        assert f"eval: BFCL {category} (without grounding) scored 0.0%, not 100%" in done.stderr
