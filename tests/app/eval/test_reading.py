"""The scorecard a person reads (app/eval/markdown.py, failures.py, groups.py, progress.py, arguments.py),
run as a person runs it against scripted models on loopback: its first line is the result and a command
that gives the same figures again, each failing case says why in words (a held-out one without its
words), each part stands under what it is, `--help` is whole, and the progress is a bar on a terminal
and plain lines in a pipe."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from app.eval.arguments import DESCRIPTION, parse_args, reproduce
from app.eval.progress import EVERY, Lines
from app.eval.spec import FILES, GOLDEN, part
from benchmarks import eval_control, scripted_llm
from tests.conftest import ROOT, clean_env
from tests.support.scorecard_runs import scorecard, sorry_model

HEADLINE = re.compile(r"Scorecard: (\d+)/(\d+) cases passed \((\d+)%\) — reproduce: (.+)")
KEY = "sk-never-shown-0123456789"


@pytest.fixture
def sorry() -> Iterator[str]:
    with sorry_model() as url:
        yield url


def test_the_first_line_is_the_result_and_its_command_gives_the_same_figures(
    sorry: str, tmp_path: Path
) -> None:
    done, card = scorecard(sorry, tmp_path, "--part", GOLDEN, "tuned", "--limit", "3", LLM_API_KEY=KEY)
    assert done.returncode == 0, done.stderr[-2000:]
    found = HEADLINE.fullmatch(done.stdout.splitlines()[0])
    assert found, done.stdout.splitlines()[0]
    assert (int(found[1]), int(found[2])) == (card["passed"], 6) and card["passed"] < 6
    command = found[4]
    assert command == f"LLM_BASE_URL={sorry} python main.py eval --part golden tuned --limit 3"
    assert KEY not in done.stdout + done.stderr
    words = shlex.split(command)  # VAR=value ..., then `python main.py eval ...`, run as written
    env = dict(word.split("=", 1) for word in words[:1]) | {"LLM_API_KEY": KEY}
    again = subprocess.run(
        [sys.executable, *words[2:], "--json", str(tmp_path / "again.json")],
        cwd=ROOT,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.splitlines()[0] == done.stdout.splitlines()[0]


def test_the_command_holds_what_chose_the_model_and_the_cases_never_a_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LLM_BASE_URL", "https://someone:hunter2@models.example/v1")
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("LLM_MODEL", "a model")
    argv = ["--part", GOLDEN, "--k", "2", "--bfcl", "all", "--bfcl-python", sys.executable, "--floors", "all"]
    assert reproduce(parse_args(argv)) == (
        "LLM_BASE_URL=https://models.example/v1 LLM_MODEL='a model' python main.py eval --part golden --k 2 "
        f"--bfcl all --bfcl-python {sys.executable} --floors all"
    )


def test_each_failing_case_says_why_in_words(sorry: str, tmp_path: Path) -> None:
    held = "remarks held-out 3"
    done, card = scorecard(sorry, tmp_path, "--part", GOLDEN, held, "--limit", "4")
    golden = {f["id"]: f for f in card["parts"][GOLDEN]["failures"]}
    two = golden["golden:2"]
    assert two["expected_calls"][0].startswith('add_device_model(model="') and two["calls"] == []
    assert "the device database is not what a correct turn leaves" in " ".join(two["why"])
    assert any(why.startswith("the answer is not true to what happened: does not say") for why in two["why"])
    assert "  - answered: “Sorry, I cannot help with that.”" in done.stdout
    # a held-out case that was to call nothing and called nothing: why it failed, in the scorer's words
    failures = card["parts"][held]["failures"]
    quiet = [f for f in failures if f["expected"] == f["actual"] == []]
    assert quiet and all(f["why"] and f["why"][0].startswith("the answer: it ") for f in quiet)
    for failure in failures:
        assert "prompt" not in failure and "answer" not in failure
        assert not {"a rule of the scorer", "the case's verdict failed"} & set(failure["why"])
        assert f"- **{failure['id']}** ({failure['kind']})\n  - expected: no call\n" in done.stdout


def _swapped(request: dict) -> dict:
    """The ideal reply, with each add's market name in the other column (both are the person's words)."""
    reply = eval_control.reply(request)
    for call in reply["choices"][0]["message"].get("tool_calls", []):
        arguments = json.loads(call["function"]["arguments"])
        names = {"marketName": "marketNameEn", "marketNameEn": "marketName"}
        call["function"]["arguments"] = json.dumps({names.get(k, k): v for k, v in arguments.items()})
    return reply


def test_a_held_out_case_names_the_parameters_that_differ_never_their_values(tmp_path: Path) -> None:
    name = "people held-out 3"
    server, url = scripted_llm.start(_swapped)
    try:
        done, card = scorecard(url, tmp_path, "--part", name, "--limit", "2")
    finally:
        server.shutdown()
    why = {f["id"]: f["why"] for f in card["parts"][name]["failures"]}
    assert why["people_heldout_3:1"][0] == "an expected call had other arguments (marketName)"
    assert why["people_heldout_3:2"][0] == "an expected call had other arguments (marketNameEn)"
    values = [value for spec in part(name)[:2] for row in spec.rows for value in row[1:] if value]
    assert (
        values
        and [value for value in values if value in done.stdout + json.dumps(card, ensure_ascii=False)] == []
    )


def test_each_part_stands_under_what_it_is(tmp_path: Path) -> None:
    names = ["tuned", "held-out", "people held-out 3", "blind lab job", GOLDEN]
    with eval_control.serving() as url:
        done, card = scorecard(url, tmp_path, "--part", *names, "--limit", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    sections = {part.split("\n", 1)[0]: part for part in done.stdout.split("\n## ")[1:]}
    del sections["Blind parts and tools files: per file and in total"]  # the counts, not a group
    where = {name: [h for h, text in sections.items() if f"\n| {name} | " in text] for name in names}
    assert {name: [h.split(":")[0] for h in found] for name, found in where.items()} == {
        "tuned": ["Tuned"],
        "held-out": ["Held out when written, mined since"],
        "people held-out 3": ["Held out"],
        "blind lab job": ["Blind held out"],
        GOLDEN: ["Golden"],
    }
    assert card["parts"]["held-out"]["status"] == "held out, mined since 49811d0"
    assert card["parts"]["held-out"]["held_out"] is True  # its prompts are still never shown
    assert "| held-out | held out, mined since 49811d0 | 1 | 1/1 |" in done.stdout


def test_help_is_whole_and_names_every_part(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "eval", "--help"],
        cwd=tmp_path,
        env=clean_env(COLUMNS="100"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == ""
    said = " ".join(done.stdout.split())
    assert " ".join(DESCRIPTION.split()) in said and DESCRIPTION.endswith("endpoint.")
    assert all(repr(name) in done.stdout for name in FILES)
    assert "held out when written, mined since:\n    'held-out'," in done.stdout


def test_progress_in_a_pipe_is_plain_lines(sorry: str, tmp_path: Path) -> None:
    done, _ = scorecard(sorry, tmp_path, "--part", GOLDEN, "tuned", "--limit", "2")
    lines = [line for line in done.stderr.splitlines() if line.startswith("eval: ")]
    assert lines[0] == "eval: 0/4 cases done, now golden (0 s)"
    assert lines[1].startswith("eval: 2/4 cases done, now tuned (")
    assert lines[-1].startswith("eval: 4/4 cases done, all done (")
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f]", done.stdout + done.stderr)  # no escape, no \r


def test_progress_on_a_terminal_is_a_bar(sorry: str, tmp_path: Path) -> None:
    env = clean_env(LLM_BASE_URL=sorry, TERM="xterm-256color")
    command = [str(ROOT / "main.py"), "eval", "--part", GOLDEN, "--limit", "3"]
    child = pexpect.spawn(sys.executable, command, cwd=str(tmp_path), env=env, encoding="utf-8", timeout=120)
    try:
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    seen = child.before
    assert "━" in seen and "3/3" in seen and "\x1b[" in seen  # rich's bar, redrawn in place
    assert "eval: 0/3 cases done" not in seen and "Scorecard: 0/3 cases passed (0%)" in seen


def test_plain_lines_come_as_parts_begin_and_at_most_every_so_often() -> None:
    now = [0.0]
    out = io.StringIO()
    lines = Lines(4, out, clock=lambda: now[0])
    for seconds, label in ((0, "tuned"), (1, "tuned"), (EVERY + 2, "tuned"), (EVERY + 3, "golden")):
        now[0] = seconds
        lines.begin(label)
        lines.done()
    assert out.getvalue().splitlines() == [
        "eval: 0/4 cases done, now tuned (0 s)",
        "eval: 2/4 cases done, now tuned (32 s)",
        "eval: 3/4 cases done, now golden (33 s)",
        "eval: 4/4 cases done, all done (33 s)",
    ]
