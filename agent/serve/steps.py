"""The served turn's steps, recorded as it runs (DBOS): each request to the model and each tool call is a
step of the turn's workflow (agent/serve/durable.py), whose result is kept when it ends. A turn run
again after its process died — recovered with nobody waiting for it — takes a finished step's result
from the record instead of running it again.

A tool call is at most once. Before it runs, a mark says it started; a call found marked but not
finished was running when the process died, and nobody knows whether it acted. It runs again only when
that is safe — the tool only reads, is idempotent, or its service deduplicates the call's Idempotency-
Key (the same call has the same key) — and otherwise the turn stops and asks the person whether it
runs again (approvals.OutcomeUnknown), as it asks to approve a call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from dbos import DBOS
from langchain_core.messages import AIMessage

from agent.serve.approvals import OutcomeUnknown, rerun_answer
from agent.steps import Steps
from agent.tools import Executed, ToolRegistry
from agent.types import AwaitingApproval, ToolContext

T = TypeVar("T")
UNKNOWN = "outcome_unknown"  # the audit's decision for a call that may or may not have run
NOT_AGAIN = (
    "the person chose not to run this call again: it was running when the server stopped, and may or "
    "may not have taken effect"
)


def record(name: str, run: Callable[..., T], *args: Any) -> T:
    """`run(*args)` as a step of the turn's workflow: its result kept, and given back when the turn runs
    again (outside a workflow, simply run)."""
    return DBOS.run_step({"name": name}, run, *args)


@dataclass(frozen=True)
class Waiting:
    """A call that waits for the person (AwaitingApproval), as a step's kept result."""

    name: str
    arguments: dict[str, Any]
    call_id: str
    run_id: str
    unknown: bool = False  # it waits because its outcome is unknown, not for an approval

    def error(self) -> AwaitingApproval:
        if self.unknown:
            return OutcomeUnknown(self.name, self.arguments, self.call_id, self.run_id)
        waiting = AwaitingApproval(self.name, self.arguments)
        waiting.call_id, waiting.run_id = self.call_id, self.run_id
        return waiting


class RecordedSteps(Steps):
    concurrent = False  # a workflow's steps are numbered in the order they run: one after another

    def __init__(self, registry: ToolRegistry) -> None:
        self.registry = registry

    def model(self, request: Callable[[], AIMessage]) -> AIMessage:
        return record("model", request)

    def tool(self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[], Executed]) -> Executed:
        name = call.get("name") or ""
        tool, fresh = self.registry.get(name), True
        if tool is not None and not tool.repeatable:  # a call that must not act twice is marked as it starts
            made: list[bool] = []  # filled when the mark is made now, not found kept from before
            record(f"start {name}", _mark, made)
            fresh = bool(made)
        done = record(f"call {name}", self._call, ctx, call, run, fresh)
        if isinstance(done, Waiting):
            raise done.error()
        return done

    def _call(
        self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[], Executed], fresh: bool
    ) -> Executed | Waiting:
        """The call's step: run, unless it was started before (not `fresh`) and the person has not said
        to run it again."""
        call_id, name = call.get("id") or "", call.get("name") or ""
        args = call.get("args")
        arguments: dict[str, Any] = dict(args) if isinstance(args, dict) else {}
        again = rerun_answer(call_id, name, arguments)
        if again is False:
            return Executed(self.registry.refuse(ctx, call, NOT_AGAIN, "not_run_again"), False)
        if not fresh and again is None:
            self.registry.refuse(ctx, call, "the call may or may not have run; the person is asked", UNKNOWN)
            return Waiting(name, arguments, call_id, ctx.run_id, unknown=True)
        try:
            return run()
        except AwaitingApproval as waiting:
            return Waiting(waiting.name, waiting.arguments, waiting.call_id, waiting.run_id)


def _mark(fresh: list[bool]) -> bool:
    fresh.append(True)
    return True
