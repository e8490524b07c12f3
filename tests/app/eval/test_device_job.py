"""`make eval` fails when a part falls below its floor (`python main.py eval --floors docs`), the floors are
the figures docs/embedded states, and a turn's rows are judged as the device service stores them
(app/eval/device_job.py)."""

import re
from pathlib import Path

from app.eval import device_job, scorecard
from app.eval.spec import PARTS, blind, part
from tests.conftest import ROOT
from tests.support.scorecard_runs import scorecard as run_scorecard
from tests.support.scorecard_runs import sorry_model


def test_a_planted_regression_fails_make_eval(tmp_path: Path) -> None:
    with sorry_model() as url:  # a model that never calls a tool and answers every prompt the same
        done, card = run_scorecard(url, tmp_path, "--part", "tuned", "--floors", "docs")
    assert done.returncode == 1, done.stdout[-2000:]
    assert re.search(r"eval: the tuned part passed \d+/34, below its floor of 34", done.stderr), done.stderr
    assert card["parts"]["tuned"]["passed"] < 34


def _card(name: str, cases: int, passed: int) -> dict:
    return {"parts": {name: {"cases": cases, "passed": passed}}, "errors": []}


def test_a_part_at_its_floor_passes_and_one_below_it_does_not() -> None:
    size, floor = len(part("remarks held-out")), device_job.FLOORS["remarks held-out"]
    assert scorecard.below_floors(_card("remarks held-out", size, floor), "docs") == []
    assert scorecard.below_floors(_card("remarks held-out", size, floor - 1), "docs") == [
        f"the remarks held-out part passed {floor - 1}/{size}, below its floor of {floor}"
    ]
    assert scorecard.below_floors(_card("remarks held-out", size, size - 1), "all") == [
        f"the remarks held-out part passed {size - 1}/{size}, below its floor of {size}"
    ]


def test_a_part_run_in_part_is_held_to_no_documented_floor() -> None:
    assert scorecard.below_floors(_card("remarks held-out", 3, 0), "docs") == []  # --limit 3


def test_every_floor_is_the_one_the_docs_state() -> None:
    """docs/embedded (both languages) has a row per part with a floor: | `file` | prompts | ... | floor |;
    every part has one but the blind parts, measured before the demo is changed for them."""
    assert set(PARTS) - set(device_job.FLOORS) == {name for name in PARTS if blind(name)}
    for page in ("embedded.en.md", "embedded.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        for name, file in PARTS.items():
            if name not in device_job.FLOORS:
                continue
            row = re.search(rf"^\| `{re.escape(file)}` \|.*\| (\d+) \|$", text, re.MULTILINE)
            assert row, f"{page} has no row for {file}"
            assert int(row[1]) == device_job.FLOORS[name], (page, file)
            assert device_job.FLOORS[name] > 0


def test_rows_are_compared_in_the_services_stored_form() -> None:
    """A seeded or added code with a hyphen ("ELP-AN00") is stored without it (ELPAN00)."""
    from app.eval.spec import Spec

    seed = {"ELP-AN00": "荣耀200 Pro", "PJE110": "一加 Ace 3"}
    stored = {("ELPAN00", "荣耀200 Pro", None), ("PJE110", "一加 Ace 3", None)}
    look = Spec(part="people held-out", kind="query", text="x", tools=("query_device_model",), seed=seed)
    assert device_job.rows_verdict(look, stored) == (True, False)
    add = Spec(
        part="people held-out", kind="add", text="x", tools=(), seed=seed, rows=(("SM-S928B", None, "S"),)
    )
    assert device_job.rows_verdict(add, stored | {("SMS928B", "营销名未解密", "S")}) == (True, False)
    change = Spec(
        part="people held-out", kind="update", text="x", tools=(), seed=seed,
        updates=(("ELP-AN00", "marketNameEn", "HONOR 200 Pro"),),
    )  # fmt: skip
    changed = {("ELPAN00", "荣耀200 Pro", "HONOR 200 Pro"), ("PJE110", "一加 Ace 3", None)}
    assert device_job.rows_verdict(change, changed) == (True, False)


SEED = {"V2309A": "vivo X100", "PHZ110": "OPPO Find X7"}
ROWS = {("V2309A", "vivo X100", None), ("PHZ110", "OPPO Find X7", None)}


def _line(tool: str, decision: str = "ran", **arguments: str) -> dict:
    return {"tool": tool, "decision": decision, "outcome": "ok", "arguments": arguments}


def test_a_delete_passes_when_the_tool_ran_and_the_row_is_gone() -> None:
    from app.eval.spec import Spec

    spec = Spec(
        part="blind lab job", kind="delete", text="delete V2309A", tools=("delete_device_model",), seed=SEED,
        says=("V2309A",),
    )  # fmt: skip
    audit = [_line("delete_device_model", model="V2309A")]
    gone = device_job.score(
        spec, 0.1, "Deleted V2309A.", audit, ROWS - {("V2309A", "vivo X100", None)}, (0, 0)
    )
    assert gone.verdict == "success" and not gone.unrequested_write
    kept = device_job.score(spec, 0.1, "Deleted V2309A.", audit, ROWS, (0, 0))
    assert (kept.verdict, kept.rows_ok, kept.wrong_rows) == ("partial", False, False)
    both = device_job.score(spec, 0.1, "Deleted V2309A.", audit, {("V2309A", "vivo X100", None)}, (0, 0))
    assert both.verdict == "fail" and both.unrequested_write  # PHZ110 went too


def test_a_no_write_fails_when_a_write_was_called_even_one_the_person_refused() -> None:
    from app.eval.spec import Spec

    spec = Spec(
        part="blind lab job",
        kind="no_write",
        text="is V2309A stored?",
        tools=("query_device_model",),
        seed=SEED,
    )
    looked = [_line("query_device_model", keyword="V2309A")]
    assert device_job.score(spec, 0.1, "V2309A is stored.", looked, ROWS, (0, 0)).verdict == "success"
    tried = [*looked, _line("add_device_model", "refused_by_person", model="V2309A")]
    found = device_job.score(spec, 0.1, "V2309A is stored.", tried, ROWS, (0, 0))
    assert found.verdict != "success" and found.writes == ["add_device_model"] and found.unrequested_write
