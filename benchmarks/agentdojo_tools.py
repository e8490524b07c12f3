"""AgentDojo's tools as our FunctionTools: each suite `Function` becomes a FunctionTool class whose class
attributes are its declared facts (`benchmarks/agentdojo_facts.py`); each instance acts on one case's
environment and records the calls that really ran there, in order, for AgentDojo's checks.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from agentdojo.agent_pipeline.tool_execution import tool_result_to_str
from agentdojo.functions_runtime import Function, FunctionCall, FunctionsRuntime, TaskEnvironment

from agent.function_tool import FunctionTool
from agent.types import ToolContext, ToolError
from benchmarks.agentdojo_facts import FACTS, Facts, facts_problems


@dataclass
class World:
    """The environment one case acts on, and every call that ran in it."""

    env: TaskEnvironment
    runtime: FunctionsRuntime
    ran: list[FunctionCall] = field(default_factory=list)


class AgentDojoTool(FunctionTool):
    """One AgentDojo function, run on the world's environment; its facts are class attributes."""

    outward: ClassVar[bool] = False  # a call sends its arguments beyond this host
    from_results: ClassVar[tuple[str, ...]] = ()  # parameters whose values may come from tool results
    sequential = True  # the tools of a suite share one in-memory environment, without locks

    def __init__(self, world: World) -> None:
        self.world = world

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        self.world.ran.append(FunctionCall(function=self.name, args=args))
        result, error = self.world.runtime.run_function(self.world.env, self.name, args)
        if error:
            raise ToolError(error)
        return tool_result_to_str(result)


def tool_classes(functions: Sequence[Function], policies: bool) -> list[type[AgentDojoTool]]:
    """A FunctionTool class per function: with its declared facts, or with none when policies are off
    (its effect stays: that is what the tool does, not a rule; and any argument may come from anywhere,
    so the provenance rule refuses no value; every confirmation is approved)."""
    return [tool_class(f, FACTS[f.name] if policies else _unguarded(f)) for f in functions]


def _unguarded(function: Function) -> Facts:
    everything = tuple(function.parameters.model_json_schema().get("properties", {}))
    return Facts(FACTS[function.name].effect, from_results=everything)


def tool_class(function: Function, facts: Facts) -> type[AgentDojoTool]:
    attributes = {
        "name": function.name,
        "description": function.description,
        "parameters": function.parameters.model_json_schema(),
        "effect": facts.effect,
        "grounded": facts.grounded,
        "outward": facts.outward,
        "from_results": facts.from_results,
        "addressees": facts.addressees,
    }
    return type(f"{function.name}_tool", (AgentDojoTool,), attributes)


def check_facts(functions: Sequence[Function]) -> None:
    """Every function has a row of facts, and the row names only its own parameters."""
    problems = [
        problem
        for f in functions
        for problem in facts_problems(f.name, set(f.parameters.model_json_schema().get("properties", {})))
    ]
    if problems:
        raise ValueError("benchmarks/agentdojo_facts.py: " + "; ".join(problems))
