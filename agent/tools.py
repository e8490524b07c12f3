"""The FunctionTool interface and the ToolRegistry that validates and runs the model's tool calls.

Mirrors `agent/tools.go` of the tutorial: `FunctionTool` (Name, Description, Parameters, Call) and
`ToolRegistry` (Register, GetLangChainTools, ExecuteToolCall). Unlike the Go code, a mistake of the
model never becomes an exception here: it comes back as an envelope the model can read and fix.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from agent.types import ToolContext, ToolError, fail, ok


class FunctionTool(ABC):
    """A tool the model may call. Subclasses set the three attributes and implement `call`."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments object

    @abstractmethod
    def call(self, ctx: ToolContext, input: str) -> str:
        """Run the tool. `input` is the validated JSON arguments; raise ToolError for failures."""


class ToolRegistry:
    def __init__(self) -> None:
        self._tools: dict[str, FunctionTool] = {}
        self._validators: dict[str, Draft202012Validator] = {}

    def register(self, tool: FunctionTool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        Draft202012Validator.check_schema(tool.parameters)
        self._tools[tool.name] = tool
        self._validators[tool.name] = Draft202012Validator(tool.parameters)

    def get(self, name: str) -> FunctionTool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def langchain_tools(self) -> list[dict[str, Any]]:
        """The tool definitions in OpenAI format, ready for `llm.bind_tools(...)`."""
        return [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
            }
            for t in self._tools.values()
        ]

    def execute_tool_call(self, ctx: ToolContext, tool_call: Mapping[str, Any]) -> str:
        """Run one LangChain ToolCall (or InvalidToolCall) and return the envelope the model reads."""
        name = tool_call.get("name") or ""
        tool = self._tools.get(name)
        if tool is None:
            return fail(f"unknown tool {name!r}; available tools: {', '.join(self._tools)}", retryable=True)
        args, problem = self._checked_arguments(name, tool_call.get("args"))
        if problem:
            return fail(problem, retryable=True)
        try:
            result = tool.call(ctx.for_call(tool_call.get("id") or ""), json.dumps(args, ensure_ascii=False))
        except ToolError as e:
            return fail(str(e), retryable=e.retryable)
        except Exception as e:
            return fail(f"tool {name!r} failed: {type(e).__name__}: {e}", retryable=False)
        return ok(_as_data(result))

    def _checked_arguments(self, name: str, raw: Any) -> tuple[dict[str, Any], str]:
        """Parse (if still a string) and validate the arguments; return them or a message for the model."""
        if raw is None or raw == "":
            raw = {}
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except json.JSONDecodeError as e:
                return {}, f"arguments of {name!r} are not valid JSON ({e}); send one JSON object"
        if not isinstance(raw, dict):
            return {}, f"arguments of {name!r} must be a JSON object, got {type(raw).__name__}"
        errors = sorted(self._validators[name].iter_errors(raw), key=lambda e: list(e.path))
        if errors:
            return {}, f"invalid arguments for {name!r}: " + "; ".join(_describe(e) for e in errors[:3])
        return raw, ""


def _describe(error: Any) -> str:
    where = "/".join(str(p) for p in error.path)
    return f"{where}: {error.message}" if where else error.message


def _as_data(result: str) -> Any:
    try:
        return json.loads(result)
    except (json.JSONDecodeError, TypeError):
        return result
