"""The scorecard's cases: each prompt spec as a pydantic-evals `Case`, named by its id (its file and number,
never its text), scored by the library's evaluators over the turn's OpenTelemetry spans — the trajectory
(exact, in order, in any order), the expected calls' arguments, abstention where no tool fits — and by
the device job's own verdict (`device_job.score`: the rows, the answer's truth, grounded arguments). A
tools file's prompts (`tools_file`: the blind parts' added tools, or `--tools-file`) are scored by their
own verdict instead (`tools_verdict.judge`); a device job file's (`--job-file`), as the device job's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic_evals import Case
from pydantic_evals.evaluators import (
    ArgumentCorrectness,
    EvaluationReason,
    Evaluator,
    EvaluatorContext,
    ToolCorrectness,
    TrajectoryMatch,
)

from app.eval import tools_file
from app.eval.device_job import score
from app.eval.expected import certain
from app.eval.runner import Turn
from app.eval.spec import FILES, PROMPTS, TOOL_PARTS, Spec, job_file, part
from app.eval.tools_file import ToolPrompt
from app.eval.tools_verdict import judge

ORDERS: tuple[Literal["exact", "in_order", "any_order"], ...] = ("exact", "in_order", "any_order")


def case_id(name: str, index: int) -> str:
    """A case's id: its file's stem and its number there ("tuned:3"); an id says nothing of its prompt."""
    return f"{Path(FILES.get(name, name)).stem}:{index + 1}"


def prompts(name: str, files: dict[str, Path]) -> Sequence[Spec | ToolPrompt]:
    """A part's prompts: a device job's, or a tools file's (a part of TOOL_PARTS, or one of `files`: a
    tools file, or a device job file of one's own, which declares no tools)."""
    if name in files and not tools_file.declares_tools(files[name]):
        return job_file(files[name], name)
    if name in files or name in TOOL_PARTS:
        return tools_file.read(files.get(name) or PROMPTS / TOOL_PARTS[name], name)
    return part(name)


def cases(
    names: list[str], limit: int | None, files: dict[str, Path] | None = None
) -> Iterator[Case[Spec | ToolPrompt, Turn, dict[str, str]]]:
    """The first `limit` cases (all: None) of each part named, then of each file of one's own of `files` (its
    part's name -> its path)."""
    files = files or {}
    for name in [*names, *files]:
        for index, spec in enumerate(prompts(name, files)[:limit]):
            metadata = {"part": name, "kind": spec.kind}
            if isinstance(spec, ToolPrompt) and (refused := spec.refused()):  # beyond any model here
                metadata["refused"] = ", ".join(refused)
            found: list[Evaluator[Any, Any, Any]] = [
                *(tool_evaluators(spec) if isinstance(spec, ToolPrompt) else evaluators(spec))
            ]
            yield Case(name=case_id(name, index), inputs=spec, metadata=metadata, evaluators=tuple(found))


def evaluators(spec: Spec) -> list[Evaluator[Spec, Turn, dict[str, str]]]:
    found: list[Evaluator[Any, Any, Any]] = [
        TrajectoryMatch(list(spec.tools), order, evaluation_name=f"trajectory {order}") for order in ORDERS
    ]
    if calls := certain(spec):
        found.append(Arguments(calls))
    if not spec.tools:  # no tool fits: the model should call none, not even one the host refuses
        found.append(ToolCorrectness([], include_failed=True, evaluation_name="abstention"))
    found.append(DeviceJob())
    return found


def tool_evaluators(prompt: ToolPrompt) -> list[Evaluator[ToolPrompt, Turn, dict[str, str]]]:
    found: list[Evaluator[Any, Any, Any]] = []
    if prompt.kind == "call":
        found += [TrajectoryMatch(list(prompt.tools), o, evaluation_name=f"trajectory {o}") for o in ORDERS]
    if prompt.kind in ("ask", "cannot", "chat"):
        found.append(ToolCorrectness([], include_failed=True, evaluation_name="abstention"))
    return [*found, AddedTools()]


@dataclass(repr=False)
class Arguments(Evaluator[Spec, Turn, dict[str, str]]):
    """Each expected call's arguments, in the person's values (the library's ArgumentCorrectness, subset
    mode: a call may say more), the n-th call of a tool against the n-th expected of it."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def evaluate(self, ctx: EvaluatorContext[Spec, Turn, dict[str, str]]) -> EvaluationReason:
        seen: dict[str, int] = {}
        problems = []
        for name, arguments in self.calls:
            check = ArgumentCorrectness(name, arguments, occurrence=seen.get(name, 0))
            seen[name] = seen.get(name, 0) + 1
            verdict = check.evaluate(ctx)  # type: ignore[arg-type]
            if not verdict.value:
                problems.append(verdict.reason or name)
        return EvaluationReason(not problems, "; ".join(problems) or None)

    def get_default_evaluation_name(self) -> str:
        return "arguments"


@dataclass(repr=False)
class DeviceJob(Evaluator[Spec, Turn, dict[str, str]]):
    """The device job's verdict, as `make eval` has always scored it: success is the right rows, the right
    tools, a true answer and every argument in the person's words."""

    def evaluate(self, ctx: EvaluatorContext[Spec, Turn, dict[str, str]]) -> dict[str, EvaluationReason]:
        turn, spec = ctx.output, ctx.inputs
        seconds = turn.when[1] - turn.when[0]
        found = score(spec, seconds, turn.answer, turn.audit, set(turn.rows), turn.when)
        why = "; ".join([*found.answer_problems, *found.ungrounded]) or None
        return {
            "success": EvaluationReason(found.verdict == "success", why),
            "rows": EvaluationReason(found.rows_ok),
            "answer": EvaluationReason(found.answer_ok, "; ".join(found.answer_problems) or None),
            "grounded": EvaluationReason(not found.ungrounded, "; ".join(found.ungrounded) or None),
            "no unrequested write": EvaluationReason(not found.unrequested_write),
        }


@dataclass(repr=False)
class AddedTools(Evaluator[ToolPrompt, Turn, dict[str, str]]):
    """A tools file's verdict (`tools_verdict`): success; for a call prompt, whether the expected tools ran
    and with the expected arguments; whether the turn wrote anything nobody asked for."""

    def evaluate(
        self, ctx: EvaluatorContext[ToolPrompt, Turn, dict[str, str]]
    ) -> dict[str, EvaluationReason]:
        turn = ctx.output
        found = judge(ctx.inputs, turn.answer, turn.audit, turn.seeded, turn.rows)
        checks = {
            "success": EvaluationReason(found.passed, "; ".join(found.problems) or None),
            "no unrequested write": EvaluationReason(
                not found.unrequested, ", ".join(found.unrequested) or None
            ),
        }
        if found.right_tools is not None and found.right_arguments is not None:
            checks["right tools"] = EvaluationReason(found.right_tools)
            checks["right arguments"] = EvaluationReason(found.right_arguments)
        return checks
