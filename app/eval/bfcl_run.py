"""`python main.py eval --bfcl N`: BFCL's single-turn categories (simple, multiple, parallel, irrelevance)
through our host — the registry, schema validation, grounding — against the configured model, twice:
grounding on (every string argument must be in the person's words) and off; each case's calls that ran
are scored by bfcl-eval's own AST checker. bfcl-eval pins numpy and pulls many SDKs, so it lives in a venv
of its own (`make bfcl-venv`): this process asks it for the cases and the scores (`bfcl_check.py`, run
there as a script) and never imports it. A model's first two rounds count: one to call, one (without
tools) to answer."""

from __future__ import annotations

import json
import subprocess
import tempfile
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent.config import Settings
from agent.types import AgentError
from app.eval.bfcl_tools import tool_classes
from app.eval.progress import Tracker
from app.host import Front, host_for
from app.models.choice import ModelChoice

ROOT = Path(__file__).resolve().parents[2]  # the checkout, when the project is installed from one
CHECK = Path(__file__).with_name("bfcl_check.py")
CATEGORIES = ("simple_python", "multiple", "parallel", "irrelevance")
VENV_PYTHON = ROOT / "benchmarks" / ".venv-bfcl" / "bin" / "python"


def bfcl(python: Path, *args: str) -> str:
    """What bfcl_check.py prints, run by BFCL's venv."""
    done = subprocess.run([str(python), str(CHECK), *args], capture_output=True, text=True, timeout=600)
    if done.returncode:
        raise SystemExit(f"bfcl_check {args[0]} failed: {done.stderr.strip()[-500:]}")
    return done.stdout


def load(python: Path, categories: list[str], limit: int | None) -> list[dict[str, Any]]:
    """The first `limit` cases of each category (all with None), asked of BFCL's venv once."""
    found = [json.loads(line) for line in bfcl(python, "cases", *categories).splitlines()]
    each = {category: [case for case in found if case["category"] == category] for category in categories}
    return [case for category in categories for case in each[category][:limit]]


def calls_of(case: dict[str, Any], settings: Settings, choice: ModelChoice, grounding: bool) -> list[Any]:
    """The calls of one case that the host ran, as BFCL writes them: [{name: arguments}]."""
    with tempfile.TemporaryDirectory() as folder:
        audit = Path(folder) / "audit.jsonl"
        tools = [cls() for cls in tool_classes(case["functions"], grounding)]
        front = Front(confirm=lambda name, arguments, ctx: True, report=lambda line: None)
        host = host_for(settings.model_copy(update={"audit_log": audit}), tools, front, choice)
        with host.agent("bfcl") as agent, suppress(AgentError):  # what ran before it stands
            agent.send_message(question(case))
        lines = [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
    return [{line["tool"]: line["arguments"]} for line in lines if _ran(line)]


def _ran(line: dict[str, Any]) -> bool:
    return line["decision"] == "ran" and line["outcome"] == "ok"


def question(case: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in case["question"] if m["role"] == "user")


def run(
    cases: list[dict[str, Any]],
    settings: Settings,
    choice: ModelChoice,
    python: Path,
    progress: Tracker | None = None,
) -> dict[str, Any]:
    """{"on": scores, "off": scores}: bfcl-eval's verdicts of the same cases, grounding on and off;
    `progress` told as each case begins and ends."""
    choice = replace(choice, limits=replace(choice.limits, max_rounds=2, max_calls_per_reply=10))
    with tempfile.TemporaryDirectory() as folder:
        files = [Path(folder) / "on.jsonl", Path(folder) / "off.jsonl"]
        for file, grounding in zip(files, (True, False), strict=True):
            lines = []
            for case in cases:
                if progress:
                    progress.begin(f"BFCL {case['category']}, {('without', 'with')[grounding]} grounding")
                lines.append(_result(case, calls_of(case, settings, choice, grounding)))
                if progress:
                    progress.done()
            file.write_text("".join(lines), encoding="utf-8")
        on, off = json.loads(bfcl(python, "score", *map(str, files)))
    return {"on": on, "off": off}


def _result(case: dict[str, Any], calls: list[Any]) -> str:
    """One line of what bfcl_check scores: the case and the calls it made."""
    return (
        json.dumps({"id": case["id"], "category": case["category"], "calls": calls}, ensure_ascii=False)
        + "\n"
    )


def table(scores: dict[str, Any]) -> list[str]:
    """bfcl-eval's accuracy per category, with grounding and without, as Markdown rows."""
    lines = ["| category | cases | with grounding | without grounding |", "| --- | --- | --- | --- |"]
    for category, off in scores["off"].items():
        on = scores["on"][category]
        lines.append(f"| {category} | {off['cases']} | {on['accuracy']:.1%} | {off['accuracy']:.1%} |")
    return lines
