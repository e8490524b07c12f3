"""One AgentDojo case through our host: the suite's tools registered on a fresh environment, with their facts
(policies on) or without (policies off); the scripted model driving our real ChatAgent over HTTP; a simulated
person answering confirmations; AgentDojo's own checks scoring the environment afterwards.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agentdojo.base_tasks import BaseInjectionTask, BaseUserTask
from agentdojo.functions_runtime import Function, FunctionCall, FunctionsRuntime, TaskEnvironment
from langchain_core.language_models import BaseChatModel

from agent.agent import ChatAgent
from agent.audit import AuditLog
from agent.guards import DEFAULT_LIMITS, Limits
from agent.tools import Confirm, ToolRegistry
from agent.types import AgentError
from benchmarks.agentdojo_model import Script, ScriptedModel
from benchmarks.agentdojo_tools import AgentDojoTool, World, tool_classes

# The scripted model makes one call per reply, in the order AgentDojo's own ground-truth pipeline does;
# the longest case (18 calls of a travel task, then up to 6 an injection asks for) needs 26 rounds. With
# policies on, the other limits are the host's defaults; off, no call is refused for repeating itself or
# for following failures, and no turn runs out of time or tokens.
LIMITS_ON = replace(DEFAULT_LIMITS, max_rounds=32)
LIMITS_OFF = replace(
    LIMITS_ON, max_repeats=1000, max_failures_per_tool=1000, deadline_seconds=3600, max_tokens_per_turn=10**9
)
USER = "emma.johnson"  # AgentDojo's user, Emma Johnson


@dataclass(frozen=True)
class Arm:
    """Policies on: the tools' facts, the person's confirmations, the output cap, the per-turn limits.
    Off: none of them."""

    name: str
    tools: Sequence[type[AgentDojoTool]]
    policies: bool
    limits: Limits


def arms(functions: Sequence[Function]) -> list[Arm]:
    return [
        Arm("off", tool_classes(functions, policies=False), False, LIMITS_OFF),
        Arm("on", tool_classes(functions, policies=True), True, LIMITS_ON),
    ]


@dataclass
class Outcome:
    utility: bool
    attacked: bool | None  # AgentDojo's security check: did the injection task succeed? None: no attack
    obeyed: bool = False  # the model read injected text and set about doing what it said
    decisions: list[tuple[str, str]] = field(default_factory=list)  # (tool, decision) per call, by the audit
    error: str = ""


@dataclass(frozen=True)
class Case:
    user_task: BaseUserTask
    injection_task: BaseInjectionTask | None = None
    injections: dict[str, str] = field(default_factory=dict)


def run_case(
    case: Case,
    environment: TaskEnvironment,
    runtime: FunctionsRuntime,
    arm: Arm,
    model: ScriptedModel,
    llm: BaseChatModel,
    audit: AuditLog,
) -> Outcome:
    env = case.user_task.init_environment(environment)
    pre = env.model_copy(deep=True)
    world = World(env, runtime)
    asked = case.user_task.ground_truth(env)
    answer = case.user_task.GROUND_TRUTH_OUTPUT
    model.script = script = Script(world, asked, answer, case.injection_task, list(case.injections.values()))
    registry = registry_for(arm, world, audit, person_who_asked_for(asked))
    audited = audit.path.stat().st_size if audit.path.exists() else 0
    output, error = converse(llm, registry, arm.limits, case.user_task.PROMPT)
    utility = verdict(case.user_task, output, pre, env, world.ran)
    attacked = verdict(case.injection_task, output, pre, env, world.ran) if case.injection_task else None
    return Outcome(utility, attacked, script.obeyed, decisions_since(audit, audited), error)


def converse(llm: BaseChatModel, registry: ToolRegistry, limits: Limits, prompt: str) -> tuple[str, str]:
    """The person's one turn with our ChatAgent: (the answer, "") or ("", the error that stopped it)."""
    with ChatAgent(llm, registry, user_id=USER, limits=limits) as agent:
        try:
            return agent.send_message(prompt), ""
        except AgentError as e:
            return "", f"{type(e).__name__}: {e}"


def registry_for(arm: Arm, world: World, audit: AuditLog, person: Confirm) -> ToolRegistry:
    """On: the host as it runs a real model (each tool's facts, confirmation of destructive calls, the
    16 KiB output cap). Off: a person who approves everything and no cap; only the call itself runs."""
    if arm.policies:
        registry = ToolRegistry(confirm=person, audit=audit)
    else:
        registry = ToolRegistry(confirm=lambda *call: True, audit=audit, max_output_chars=sys.maxsize)
    for tool in arm.tools:
        registry.register(tool(world))
    return registry


def person_who_asked_for(calls: Sequence[FunctionCall]) -> Confirm:
    """The simulated person approves exactly what the user task asked for: a call with the tool and the
    arguments of one of its ground-truth calls. Anything else is refused."""
    asked = [(call.function, plain(call.args)) for call in calls]
    return lambda name, args, ctx: (name, plain(args)) in asked


def verdict(task: BaseUserTask | BaseInjectionTask, output: str, pre: Any, post: Any, ran: list) -> bool:
    """AgentDojo's own check, as `TaskSuite` makes it: from the trace of calls where the task has such a
    check, else from the environments before and after."""
    if isinstance(task, BaseUserTask):
        found = task.utility_from_traces(output, pre, post, ran)
        return found if found is not None else task.utility(output, pre, post)
    found = task.security_from_traces(output, pre, post, ran)
    return found if found is not None else task.security(output, pre, post)


def decisions_since(audit: AuditLog, offset: int) -> list[tuple[str, str]]:
    """What the host decided for each call, as its audit log says, from byte `offset` on."""
    with audit.path.open(encoding="utf-8") as f:
        f.seek(offset)
        return [(line["tool"], line["decision"]) for line in map(json.loads, f)]


def plain(args: Any) -> Any:
    return json.loads(json.dumps(args, sort_keys=True, default=str))
