"""A device job file of one's own, run as a person runs it — `python main.py eval --part --job-file FILE` —
on a small file written here: scored as the device job is (the rows, the tools, the answer's truth), and
reported as a file of one's own, with its counts and its failures quoted; the scripted ideal model passes
it all, a model that calls no tool fails its requests; a file in error is said in one line before
anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import eval_control
from tests.support.scorecard_runs import scorecard, sorry_model

JOB = """
seed: {PHZ110: "OPPO Find X7"}
prompts:
  - {kind: "add", lang: "en", text: "please add PJD110 to the database", tools: ["add_device_model"],
     rows: [["PJD110", null, null]], says: ["PJD110"]}
  - {kind: "query", lang: "zh", text: "库里有 PHZ110 吗", tools: ["query_device_model"], says: ["PHZ110"]}
  - {kind: "chat", lang: "en", text: "good morning!", tools: []}
"""


@pytest.fixture
def job(tmp_path: Path) -> Path:
    path = tmp_path / "my_job.yaml"
    path.write_text(JOB, encoding="utf-8")
    return path


def test_the_ideal_model_passes_a_job_file_and_it_is_reported_as_ones_own(job: Path, tmp_path: Path) -> None:
    with eval_control.serving(job_files=(job,)) as url:
        done, card = scorecard(url, tmp_path, "--part", "--job-file", str(job), "--floors", "all")
    assert done.returncode == 0, done.stderr[-2000:]
    mine = card["parts"]["my_job"]
    assert (mine["status"], mine["format"], mine["passed"], mine["cases"]) == (
        "file of your own",
        "device job",
        3,
        3,
    )
    assert mine["counts"]["unrequested writes"] == 0
    assert "## Files of your own (`--tools-file`, `--job-file`)" in done.stdout
    assert "--job-file" in card["command"]


def test_a_model_that_calls_no_tool_fails_the_requests_of_a_job_file_quoted(
    job: Path, tmp_path: Path
) -> None:
    with sorry_model() as url:
        done, card = scorecard(url, tmp_path, "--part", "--job-file", str(job))
    assert done.returncode == 0, done.stderr[-2000:]
    failed = {f["id"]: f for f in card["parts"]["my_job"]["failures"]}
    assert set(failed) == {"my_job:1", "my_job:2"}
    assert failed["my_job:1"]["prompt"] == "please add PJD110 to the database"  # one's own: quoted


def test_a_job_file_in_error_is_said_in_one_line_before_anything_runs(job: Path, tmp_path: Path) -> None:
    job.write_text(JOB.replace("seed:", "tools: []\nseed:"), encoding="utf-8")
    done, card = scorecard("http://127.0.0.1:9", tmp_path, "--part", "--job-file", str(job))
    assert done.returncode == 2 and card == {}
    assert done.stderr.splitlines()[-1].endswith("unknown key(s): tools")
