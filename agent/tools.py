"""The ToolRegistry that checks, runs and audits the model's calls of FunctionTools (the interface is
agent/function_tool.py; both are imported from here).

Mirrors `ToolRegistry` in `agent/tools.go` of the tutorial (Register, GetLangChainTools,
ExecuteToolCall). Unlike the Go code, a mistake of the model never becomes an exception here: it comes
back as an envelope the model can read and fix. Every call passes the same gates, in order: known tool,
valid JSON arguments, host-injected identity, schema, grounded values, provenance (what the model had
read when it decided), permission, the person's confirmation; then the tool runs and the attempt is
audited. Everything about a tool comes from its class: the registry reads, it never asks elsewhere.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from agent import tracing
from agent.audit import AuditLog, redact_text
from agent.function_tool import Effect, FunctionTool
from agent.grounding import grounding_error
from agent.guards import (
    ArgumentsValidator,
    cap_envelope,
    check_schema,
    first_error,
    inject_identity,
    model_schema,
    options,
    permission_error,
)
from agent.llm.tool_calls import parse_arguments
from agent.provenance import CONFIRM, RUN, provenance
from agent.types import AwaitingApproval, ToolContext, ToolError, fail, ok

__all__ = ["Confirm", "Effect", "Executed", "FunctionTool", "Starting", "ToolRegistry"]

# (tool name, exact arguments, the call's context) -> did the person agree? The context says whether the
# model decided the call after reading untrusted text (`ctx.untrusted`). It may raise AwaitingApproval
# instead, when the person cannot be asked now: the turn stops with the call waiting (the HTTP server
# asks in its answer).
Confirm = Callable[[str, dict[str, Any], ToolContext], bool]
RAN_FOR = "_ran_for"  # the seconds the tool itself ran, passed from the run to `Executed`


# The host's last word on a call that may run (valid, permitted, approved), just before the tool acts,
# given its name and final arguments: None to run it, or (the audit's decision, the reason) not to; it may
# raise AwaitingApproval, to ask the person first (agent/steps.py).
Starting = Callable[[str, dict[str, Any]], tuple[str, str] | None]


class Executed(NamedTuple):
    envelope: str
    ran: bool  # the tool itself ran: the envelope holds what it said
    seconds: float = 0.0  # how long the tool itself ran: not the checks, nor the wait for the person's yes


class ToolRegistry:
    def __init__(
        self,
        confirm: Confirm | None = None,
        audit: AuditLog | None = None,
        max_output_chars: int = 16 * 1024,
        confirm_effects: frozenset[Effect] = frozenset(),
    ) -> None:
        self.confirm = confirm
        self.audit = audit
        self.max_output_chars = max_output_chars
        self.confirm_effects = confirm_effects  # effects confirmed for every tool, beyond each tool's own
        self._tools: dict[str, FunctionTool] = {}
        self._validators: dict[str, Any] = {}
        self._options: dict[str, dict[str, frozenset[str]]] = {}  # tool -> parameter -> its schema's values

    def register(self, tool: FunctionTool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        check_schema(tool.parameters)
        if not set(tool.addressees) <= set(tool.grounded):
            raise ValueError(f"{tool.name!r}: an addressee must be a grounded parameter")
        self._tools[tool.name] = tool
        self._validators[tool.name] = ArgumentsValidator(tool.parameters)
        self._options[tool.name] = options(tool.parameters) if tool.trusted else {}  # else its schema is data

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)
        self._validators.pop(name, None)
        self._options.pop(name, None)

    def runs_concurrently(self, name: str) -> bool:
        """May a call of this tool run alongside the other calls of a reply? (Unknown names: yes.)"""
        tool = self._tools.get(name)
        return tool is None or not (tool.sequential or self.needs_confirmation(tool))

    def needs_confirmation(self, tool: FunctionTool) -> bool:
        return tool.needs_confirmation or tool.effect in self.confirm_effects

    def get(self, name: str) -> FunctionTool | None:
        return self._tools.get(name)

    def tools(self) -> list[FunctionTool]:
        return list(self._tools.values())

    def langchain_tools(self) -> list[dict[str, Any]]:
        """The tool definitions in OpenAI format, ready for `llm.bind_tools(...)`."""
        return [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": self.model_schema(t),
                },
            }
            for t in self._tools.values()
        ]

    @staticmethod
    def model_schema(tool: FunctionTool) -> dict[str, Any]:
        """The arguments' schema as the model sees it: without what the host fills in."""
        return model_schema(tool.parameters, tool.injected)

    def execute_tool_call(self, ctx: ToolContext, tool_call: Mapping[str, Any]) -> str:
        """Run one LangChain ToolCall (or InvalidToolCall) and return the envelope the model reads."""
        return self.execute(ctx, tool_call).envelope

    @tracing.execute_tool
    def execute(
        self, ctx: ToolContext, tool_call: Mapping[str, Any], starting: Starting | None = None
    ) -> Executed:
        """`execute_tool_call`, also saying whether the tool ran (its output is then data from outside
        this host; a refusal is the host's own words). `starting`: the host's last word before it runs."""
        started = time.monotonic()
        ctx = ctx.for_call(tool_call.get("id") or "")
        try:
            decision, envelope, extra = self._decide_and_run(ctx, tool_call, starting)
        except AwaitingApproval as waiting:  # not run: the turn stops until the person answers
            waiting.call_id, waiting.run_id = ctx.call_id, ctx.run_id
            self._audit(ctx, tool_call, waiting.decision, fail(str(waiting), retryable=False), 0.0)
            raise
        ran_for = extra.pop(RAN_FOR, 0.0)
        envelope = cap_envelope(envelope, self.max_output_chars)
        self._audit(ctx, tool_call, decision, envelope, time.monotonic() - started, **extra)
        return Executed(envelope, ran=decision == "ran", seconds=ran_for)

    @tracing.execute_tool
    def refuse(self, ctx: ToolContext, tool_call: Mapping[str, Any], reason: str) -> str:
        """Answer a call the loop will not run (limits), auditing it like any other attempt."""
        envelope = fail(reason, retryable=False)
        self._audit(ctx.for_call(tool_call.get("id") or ""), tool_call, "refused_by_limits", envelope, 0.0)
        return envelope

    def _decide_and_run(
        self, ctx: ToolContext, tool_call: Mapping[str, Any], starting: Starting | None
    ) -> tuple[str, str, dict]:
        name = tool_call.get("name") or ""
        tool = self._tools.get(name)
        if tool is None:
            return (
                "unknown_tool",
                fail(f"unknown tool {name!r}; available tools: {', '.join(self._tools)}", retryable=True),
                {},
            )
        args, problem = parse_arguments(tool_call.get("args"), subject=f"arguments of {name!r}")
        if tool_call.get("error"):  # an InvalidToolCall (bad or cut-off arguments) never runs
            problem = f"call of {name!r} not run: {tool_call['error']}"
        args, overridden = inject_identity(args, tool.injected, ctx)
        extra = {"overridden_by_host": overridden} if overridden else {}
        problem = problem or self._schema_problem(name, args)
        if problem:
            return "invalid_arguments", fail(problem, retryable=True), extra
        ungrounded = grounding_error(
            args, tool.grounded, ctx, tool.canonical, tool.addressees, tool.from_results, tool.aliases
        )
        if ungrounded:
            return "not_grounded", fail(ungrounded, retryable=True), extra
        chosen = self._chosen(tool, args)
        verdict = provenance(tool.effect, tool.outward, tool.from_results, chosen, ctx, tool.addressees)
        if verdict not in (RUN, CONFIRM):
            return "taken_from_untrusted_data", fail(verdict, retryable=False), extra
        denied = permission_error(tool.permission, ctx)
        if denied:
            return "permission_denied", fail(denied, retryable=False), extra
        asks = verdict == CONFIRM or self.needs_confirmation(tool)
        if asks and not (self.confirm and self.confirm(name, args, ctx)):
            return (
                "refused_by_person",
                fail(f"the person refused to run {name!r}; do not retry it", retryable=False),
                extra,
            )
        if starting is not None and (stopped := starting(name, args)) is not None:
            decision, reason = stopped
            return decision, fail(reason, retryable=False), extra
        started = time.monotonic()
        envelope = self._run(ctx, tool, args)
        return "ran", envelope, {**extra, RAN_FOR: time.monotonic() - started}

    def _chosen(self, tool: FunctionTool, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments whose provenance counts: not those the host filled in, nor a value that a trusted
        tool's schema lists for its parameter (a permission "r" or "rw"): the model picked one of the
        tool's own words, and finding the same word in what it read does not make it taken from there."""
        listed = self._options[tool.name]
        return {
            k: v
            for k, v in args.items()
            if k not in tool.injected and not (type(v) in (str, int, float) and str(v) in listed.get(k, ()))
        }

    @staticmethod
    def _run(ctx: ToolContext, tool: FunctionTool, args: dict[str, Any]) -> str:
        try:
            return ok(_as_data(tool.call(ctx, json.dumps(args, ensure_ascii=False))))
        except ToolError as e:
            return fail(redact_text(str(e)), retryable=e.retryable)
        except Exception as e:
            return fail(redact_text(f"tool {tool.name!r} failed: {type(e).__name__}: {e}"), retryable=False)

    def _schema_problem(self, name: str, args: dict[str, Any]) -> str:
        error = first_error(self._validators[name], args)
        return f"invalid arguments for {name!r}: {_describe(error)}" if error else ""

    def _audit(
        self,
        ctx: ToolContext,
        tool_call: Mapping[str, Any],
        decision: str,
        envelope: str,
        seconds: float,
        **extra: Any,
    ) -> None:
        if self.audit is None:
            return
        body = json.loads(envelope)
        self.audit.record(
            run_id=ctx.run_id,
            user=ctx.user_id,
            tool=tool_call.get("name"),
            call_id=ctx.call_id,
            arguments=tool_call.get("args"),
            decision=decision,
            outcome="ok" if body["ok"] else body["error"],
            duration_ms=round(seconds * 1000, 1),
            idempotency_key=ctx.idempotency_key,
            **extra,
        )


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.path)
    return f"{where}: {error.message}" if where else error.message


def _as_data(result: str) -> Any:
    try:
        return json.loads(result)
    except (json.JSONDecodeError, TypeError):
        return result
