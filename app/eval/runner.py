"""One case of the scorecard, run (`python main.py eval`): a fresh device database seeded as the case says,
a host around the model chosen once — of the built-in tools, and of a tools file's added tools beside them
as a developer registers theirs — which asks the person to confirm and hears them approve exactly what
they asked for, one turn through the real registry (validation, grounding, confirmation), and what it
left: the answer, the audit log, the rows, and the rounds and tokens it took (as pydantic-evals metrics)."""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import requests
from pydantic_evals.dataset import increment_eval_metric

from agent.config import Settings
from agent.types import AgentError
from app.eval.device_job import stored
from app.eval.events import TurnSpans
from app.eval.progress import Tracker
from app.eval.spec import Spec
from app.eval.tools_file import ToolPrompt
from app.host import Front, host_for
from app.models.choice import ModelChoice
from devicedb.server import BackgroundService
from tools import default_tools

USER = "eval"  # the signed-in person of every case, with the default permissions


@dataclass(frozen=True)
class Turn:
    """What one case's turn left."""

    answer: str
    audit: list[dict[str, Any]]  # the audit log's lines: each call, the host's decision and its outcome
    rows: frozenset[tuple[Any, ...]]  # the device database afterwards: (model, marketName, marketNameEn)
    when: tuple[float, float]  # the turn's start and end (epoch seconds): a time answer is of then
    span: Any = None  # the turn's `invoke_agent` span context, which the results' events are parented to
    registered: frozenset[str] = frozenset()  # the names of the tools the host had
    seeded: frozenset[tuple[Any, ...]] = frozenset()  # the device database before the turn

    @property
    def ran(self) -> list[str]:
        """The tools that ran and succeeded, in order."""
        return [line["tool"] for line in self.audit if line["decision"] == "ran" and line["outcome"] == "ok"]

    @property
    def attempted(self) -> list[str]:
        """Every tool the model called, whatever the host decided."""
        return [line["tool"] for line in self.audit]


@dataclass(frozen=True)
class CaseRunner:
    """The scorecard's task: a case's spec in, its Turn out, against `choice` (started once)."""

    settings: Settings
    choice: ModelChoice
    turns: TurnSpans | None = None  # where the turn's span is noted
    progress: Tracker | None = None  # told as each case begins and ends

    def __call__(self, spec: Spec | ToolPrompt) -> Turn:
        if self.progress:
            self.progress.begin(spec.part)
        try:
            return self._case(spec)
        finally:
            if self.progress:
                self.progress.done()

    def _case(self, spec: Spec | ToolPrompt) -> Turn:
        with tempfile.TemporaryDirectory() as folder:
            db = Path(folder) / "devices.db"
            with BackgroundService(db) as service:
                for code, name in spec.seed.items():
                    answer = requests.post(f"{service.url}/api/models", json=_row(code, name), timeout=10)
                    answer.raise_for_status()
                seeded = frozenset(stored(db))
                turn = self._turn(spec, f"{service.url}/api/models", Path(folder) / "audit.jsonl")
            return replace(turn, rows=frozenset(stored(db)), seeded=seeded)

    def _turn(self, spec: Spec | ToolPrompt, url: str, audit: Path) -> Turn:
        settings = self.settings.model_copy(update={"audit_log": audit})
        front = Front(confirm=lambda name, arguments, ctx: spec.approves, report=lambda line: None)
        added = spec.added_tools() if isinstance(spec, ToolPrompt) else []
        host = host_for(settings, [*default_tools(url), *added], front, self.choice)
        started = time.time()
        if self.turns:
            self.turns.last = None  # the turn's own span, once it has ended, and no earlier one
        with host.agent(USER) as agent:
            try:
                answer = agent.send_message(spec.text)
            except AgentError as e:  # the endpoint failed, or the turn ran out of its limits
                answer = f"error: {e}"
            history = agent.memory.history()
            _count(history)
        lines = [json.loads(line) for line in audit.read_text().splitlines()] if audit.exists() else []
        lines = in_call_order(lines, history)
        span = self.turns.last if self.turns else None
        registered = frozenset(tool.name for tool in host.registry.tools())
        return Turn(answer, lines, frozenset(), (started, time.time()), span, registered)


def in_call_order(lines: list[dict[str, Any]], history: list[Any]) -> list[dict[str, Any]]:
    """The audit log's lines in the order the model made the calls: the calls of one reply run side by side
    and are logged as each ends. Each line takes the first place not yet taken of a call with its id (a
    model may use an id again in a later reply); a line of no call stays after those that are."""
    places: dict[str, list[int]] = {}
    ids = [call["id"] for message in history if message.type == "ai" for call in message.tool_calls]
    for place, call_id in enumerate(ids):
        places.setdefault(call_id, []).append(place)
    keys = [
        places[line["call_id"]].pop(0) if places.get(line["call_id"]) else len(ids) + i
        for i, line in enumerate(lines)
    ]
    return [line for _, line in sorted(zip(keys, lines, strict=True), key=lambda pair: pair[0])]


def _row(code: str, name: str) -> dict[str, str]:
    return {"model": code, "marketName": name}


def _count(history: list[Any]) -> None:
    """The turn's rounds (model replies since the person spoke) and tokens, as the case's metrics."""
    said = max((i for i, m in enumerate(history) if m.type == "human"), default=-1)
    replies = [m for m in history[said + 1 :] if m.type == "ai"]
    increment_eval_metric("rounds", len(replies))
    for reply in replies:
        usage = getattr(reply, "usage_metadata", None) or {}
        increment_eval_metric("input_tokens_used", usage.get("input_tokens", 0))
        increment_eval_metric("output_tokens_used", usage.get("output_tokens", 0))
