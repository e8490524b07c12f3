"""A tools file's scorer (app/eval/tools_file.py, tools_verdict.py), run as a person runs it — `python
main.py eval --part --tools-file FILE` — on a small file written here, against a scripted model on loopback
that makes the calls each prompt is given: right calls pass (strings trimmed and in any case, numbers as
numbers, several calls in the model's order); a wrong argument, an optional argument nobody gave, an
unrequested write, a device row nobody asked for, a question that asks nothing and a tool called in small
talk each fail, and are counted; an expected call the host refuses is beyond any model, and the scripted
ideal model passes all the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.eval.tools_file import read
from tests.conftest import ROOT
from tests.support.fake_llm import FakeLLM, Reply, call, streamed, text, tool_calls
from tests.support.scorecard_runs import scorecard

TOOLS = """
seed: {PHZ110: "OPPO Find X7"}
tools:
  - name: "get_ticket"
    description: "Look up a support ticket by its id (read only)."
    effect: "read"
    grounded: ["ticket_id"]
    parameters: {type: "object", properties: {ticket_id: {type: "string", pattern: "^TK-[0-9]{4}$"},
      verbose: {type: "boolean"}}, required: ["ticket_id"], additionalProperties: false}
    returns: {status: "open"}
  - name: "file_ticket"
    description: "File a support ticket (a write)."
    effect: "write"
    grounded: ["ticket_id"]
    parameters: {type: "object", properties: {ticket_id: {type: "string", pattern: "^TK-[0-9]{4}$"},
      priority: {type: "string", enum: ["low", "high"]}, count: {type: "integer", minimum: 1, maximum: 9},
      note: {type: "string"}}, required: ["ticket_id", "priority", "count"], additionalProperties: false}
    returns: {ok: true}
prompts:
"""
GET, FILE, ADD = "get_ticket", "file_ticket", "add_device_model"
# (kind, text, expected calls, the scripted model's calls, its words, passes)
CASES: list[tuple[str, str, list, list, str, bool]] = [
    (
        "call",
        "look up TK-0001",
        [(GET, {"ticket_id": "TK-0001"})],
        [(GET, {"ticket_id": "TK-0001"})],
        "",
        True,
    ),
    (
        "call",
        "file TK-0002, high priority, 3 units, note: rush",
        [(FILE, {"ticket_id": "TK-0002", "priority": "high", "count": 3, "note": "rush"})],
        [(FILE, {"ticket_id": "TK-0002", "priority": "high", "count": 3.0, "note": " Rush "})],
        "",
        True,
    ),
    (
        "call",  # a wrong argument: a write nobody asked for
        "file TK-0003, low priority, 2 units",
        [(FILE, {"ticket_id": "TK-0003", "priority": "low", "count": 2})],
        [(FILE, {"ticket_id": "TK-0003", "priority": "high", "count": 2})],
        "",
        False,
    ),
    (
        "call",  # the right call, and a device row nobody asked for
        "look up TK-0004",
        [(GET, {"ticket_id": "TK-0004"})],
        [(GET, {"ticket_id": "TK-0004"}), (ADD, {"model": "TK-0004"})],
        "",
        False,
    ),
    (
        "call",  # an optional argument nobody gave
        "look up TK-0005",
        [(GET, {"ticket_id": "TK-0005"})],
        [(GET, {"ticket_id": "TK-0005", "verbose": False})],
        "",
        False,
    ),
    (
        "call",  # two calls in one reply, in the model's order whatever order they end in
        "look up TK-0006 and TK-0007",
        [(GET, {"ticket_id": "TK-0006"}), (GET, {"ticket_id": "TK-0007"})],
        [(GET, {"ticket_id": "TK-0006"}), (GET, {"ticket_id": "TK-0007"})],
        "",
        True,
    ),
    ("ask", "file a ticket", [], [], "Which ticket, and how urgent?", True),
    ("ask", "look something up", [], [], "Sure.", False),
    ("no_write", "is TK-0008 filed already", [], [(GET, {"ticket_id": "TK-0008"})], "It is open.", True),
    (
        "no_write",
        "should TK-0009 be filed",
        [],
        [(FILE, {"ticket_id": "TK-0009", "priority": "low", "count": 1})],
        "",
        False,
    ),
    ("cannot", "close ticket TK-0010", [], [], "I cannot close tickets.", True),
    (
        "chat",
        "thanks!",
        [],
        [(GET, {"ticket_id": "TK-0001"})],
        "You're welcome.",
        False,
    ),  # refused, still called
    (
        "call",  # the expected id is not in the person's words: the host refuses it, whatever the model
        "file ticket twelve, high priority, 2 units",
        [(FILE, {"ticket_id": "TK-0012", "priority": "high", "count": 2})],
        [(FILE, {"ticket_id": "TK-0012", "priority": "high", "count": 2})],
        "",
        False,
    ),
]


def tools_file(folder: Path) -> Path:
    lines = []
    for kind, said, expected, _, _, _ in CASES:
        calls = [{"tool": name, "args": args} for name, args in expected]
        lines.append(
            "  - "
            + json.dumps({"kind": kind, "lang": "en", "text": said, **({"calls": calls} if calls else {})})
        )
    path = folder / "synthetic_tools.yaml"
    path.write_text(TOOLS + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def scripted(request: dict[str, Any]) -> Reply:
    """The model: each prompt's calls in one reply, then its words."""
    messages = request["messages"]
    last = max(i for i, m in enumerate(messages) if m["role"] == "user")
    _, _, _, calls, words, _ = next(case for case in CASES if case[1] == messages[last]["content"])
    done = any(m["role"] == "tool" for m in messages[last:])
    made = [call(name, args, f"call_{i}") for i, (name, args) in enumerate(calls)]
    body = tool_calls(*made) if made and not done else text(words or "Done.")
    return streamed(body) if request.get("stream") else Reply(body)


@pytest.fixture
def model() -> Iterator[str]:
    with FakeLLM(default=scripted) as fake:
        yield fake.url


def test_the_scorer_counts_right_calls_unrequested_writes_and_wrong_answers(
    model: str, tmp_path: Path
) -> None:
    done, card = scorecard(model, tmp_path, "--part", "--tools-file", str(tools_file(tmp_path)))
    assert done.returncode == 0, done.stderr[-2000:]
    found = card["parts"]["synthetic_tools"]
    assert found["status"] == "file of your own" and found["format"] == "tools file"
    assert found["counts"] == {
        "prompts": 13,
        "reachable": 12,
        "passed": 6,
        "calls": 7,
        "right tools": 6,
        "right arguments": 4,
        "unrequested writes": 3,
        "wrong": 7,
    }
    failed = {f["id"]: set(f["failed"]) for f in found["failures"]}
    assert set(failed) == {f"synthetic_tools:{i + 1}" for i, case in enumerate(CASES) if not case[5]}
    assert {"right arguments", "no unrequested write"} <= failed["synthetic_tools:3"]
    assert (
        "no unrequested write" in failed["synthetic_tools:4"]
        and "right arguments" not in failed["synthetic_tools:4"]
    )
    assert (
        "right arguments" in failed["synthetic_tools:5"]
        and "no unrequested write" not in failed["synthetic_tools:5"]
    )
    four = next(f for f in found["failures"] if f["id"] == "synthetic_tools:4")
    assert "row TK0004" in " ".join(four["why"])  # a tools file of one's own is quoted
    assert "| synthetic_tools | 13 | 12 | 6/13 | 7 | 6/7 | 4/7 | 3/13 | 7/13 |" in done.stdout


def test_under_floors_all_a_tools_file_must_pass_what_the_host_lets_a_model_pass(
    model: str, tmp_path: Path
) -> None:
    path = tools_file(tmp_path)
    done, _ = scorecard(model, tmp_path, "--part", "--tools-file", str(path), "--floors", "all")
    assert done.returncode == 1
    assert "eval: the synthetic_tools part passed 6/13, below its floor of 12" in done.stderr
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))} | {
        "PYTHONPATH": str(ROOT)
    }
    command = [sys.executable, "-m", "benchmarks.eval_control", sys.executable, str(ROOT / "main.py"), "eval"]
    command += [
        "--part",
        "--tools-file",
        str(path),
        "--floors",
        "all",
        "--json",
        str(tmp_path / "ideal.json"),
    ]
    ideal = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert ideal.returncode == 0, ideal.stderr[-2000:]
    counts = json.loads((tmp_path / "ideal.json").read_text())["parts"]["synthetic_tools"]["counts"]
    assert counts["passed"] == counts["reachable"] == 12 and counts["unrequested writes"] == 0


def test_a_tools_file_in_error_is_said_in_one_line_before_anything_runs(tmp_path: Path) -> None:
    path = tools_file(tmp_path)
    path.write_text(path.read_text().replace('"tool": "get_ticket"', '"tool": "get_tickets"', 1))
    done, card = scorecard("http://127.0.0.1:9", tmp_path, "--part", "--tools-file", str(path))
    assert done.returncode == 2 and card == {}
    assert done.stderr.splitlines()[-1].endswith("prompt 1 expects a call of no tool: get_tickets")


def test_an_added_tool_is_made_as_the_readme_makes_one(tmp_path: Path) -> None:
    prompt = read(tools_file(tmp_path), "synthetic")[0]
    made = {tool.name: tool for tool in prompt.added_tools()}
    ticket = made["get_ticket"]
    assert type(ticket).__name__ == "GetTicketTool" and ticket.effect == "read"
    assert ticket.grounded == ("ticket_id",) and ticket.parameters["required"] == ["ticket_id"]
    assert json.loads(ticket.call(None, "{}")) == {"status": "open"}  # type: ignore[arg-type]
    assert not prompt.approves and read(tools_file(tmp_path), "synthetic")[1].approves
    assert read(tools_file(tmp_path), "synthetic")[-1].refused() == ["file_ticket"]
