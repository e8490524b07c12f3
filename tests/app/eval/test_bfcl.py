"""BFCL through our host (app/eval/bfcl_run.py): BFCL's schemas become JSON Schema, grounding on refuses a
value the person never said and grounding off lets it run (a scripted model on loopback, the real host); and,
in the venv `make bfcl-venv` makes, bfcl-eval's own checker scores the scripted ideal calls."""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import ExitStack
from pathlib import Path

import pytest

from agent.config import Settings
from app.eval import bfcl_run
from app.eval.bfcl_tools import json_schema
from app.models.provider import choose_model
from benchmarks import bfcl_control
from tests.conftest import ROOT


def test_bfcl_types_become_json_schema_types_and_a_property_may_be_called_type() -> None:
    bfcl = {
        "type": "dict",
        "properties": {
            "ratio": {"type": "float"},
            "pair": {"type": "tuple", "items": {"type": "integer"}},
            "anything": {"type": "any"},
            "type": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["ratio"],
    }
    assert json_schema(bfcl) == {
        "type": "object",
        "properties": {
            "ratio": {"type": "number"},
            "pair": {"type": "array", "items": {"type": "integer"}},
            "anything": {},
            "type": {"type": "string", "enum": ["a", "b"]},
        },
        "required": ["ratio"],
    }


def _case(said: str, value: str) -> dict:
    function = {
        "name": "weather.current",
        "description": "The current weather of a city.",
        "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }
    question = [{"role": "user", "content": f"What is the weather like in {said} today?"}]
    answer = [{"weather.current": {"city": [value]}}]
    return {
        "id": "w",
        "category": "simple_python",
        "question": question,
        "functions": [function],
        "answer": answer,
    }


@pytest.mark.parametrize(
    ("value", "on", "off"),
    [("Paris", [{"weather_current": {"city": "Paris"}}], [{"weather_current": {"city": "Paris"}}])]
    + [("Paris, France", [], [{"weather_current": {"city": "Paris, France"}}])],
)
def test_grounding_on_refuses_a_value_the_person_never_said(
    value: str, on: list, off: list, tmp_path
) -> None:
    case = _case("Paris", value)
    with bfcl_control.serving([case]) as url, ExitStack() as stack:
        settings = Settings(LLM_BASE_URL=url, AUDIT_LOG=tmp_path / "audit.jsonl")  # type: ignore[call-arg]
        choice = choose_model(settings, stack)
        assert bfcl_run.calls_of(case, settings, choice, grounding=True) == on
        assert bfcl_run.calls_of(case, settings, choice, grounding=False) == off


@pytest.mark.bfcl
def test_bfcl_evals_checker_scores_the_ideal_calls(tmp_path: Path) -> None:
    if not bfcl_run.VENV_PYTHON.exists():
        pytest.skip("the BFCL venv is missing: run `make bfcl-venv` (make test does)")
    out = tmp_path / "bfcl.json"
    command = [sys.executable, "-m", "benchmarks.bfcl_control", "--limit", "4", "--json", str(out)]
    command += ["--category", "simple_python", "parallel", "irrelevance"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    scores = json.loads(out.read_text())
    assert {c: s["accuracy"] for c, s in scores["off"].items()} == {
        "simple_python": 1.0,
        "parallel": 1.0,
        "irrelevance": 1.0,
    }
    assert all(scores["on"][c]["accuracy"] <= scores["off"][c]["accuracy"] for c in scores["off"])
    assert "| simple_python | 4 |" in done.stdout
