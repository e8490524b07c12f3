"""BFCL's functions as our FunctionTools: each function of a case becomes a read-only tool class with its
schema in JSON Schema (BFCL writes `dict`, `float`, `tuple`, `any`), its name with `_` for `.` (an
OpenAI-compatible name holds no dot), and, with grounding on, every string parameter grounded: the host
refuses a value that is not in the person's words. A call only records its arguments: BFCL's single-turn
categories judge the calls, not what they return."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from agent.function_tool import FunctionTool
from agent.types import ToolContext

TYPES = {"dict": "object", "float": "number", "tuple": "array"}


class BfclTool(FunctionTool):
    """One BFCL function: it runs nothing and says so."""

    effect: ClassVar[Any] = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"recorded": True, "note": "no result: this function only records the call"})


def tool_classes(functions: list[dict[str, Any]], grounding: bool) -> list[type[BfclTool]]:
    return [tool_class(function, grounding) for function in functions]


def tool_class(function: dict[str, Any], grounding: bool) -> type[BfclTool]:
    parameters = json_schema(function.get("parameters") or {"type": "dict", "properties": {}})
    strings = tuple(
        name for name, spec in parameters.get("properties", {}).items() if spec.get("type") == "string"
    )
    attributes = {
        "name": function["name"].replace(".", "_"),
        "description": function.get("description", ""),
        "parameters": parameters,
        "grounded": strings if grounding else (),
    }
    return type(f"{attributes['name']}_tool", (BfclTool,), attributes)


def json_schema(schema: Any) -> Any:
    """BFCL's schema dialect as JSON Schema, recursively: its own type names mapped, `any` left untyped."""
    if isinstance(schema, list):
        return [json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    found = {key: json_schema(value) for key, value in schema.items() if key != "type"}
    if "properties" in schema:  # property names are not schemas' keys: map only their values
        found["properties"] = {name: json_schema(spec) for name, spec in schema["properties"].items()}
    kind = schema.get("type")
    if isinstance(kind, str) and kind != "any":
        found["type"] = TYPES.get(kind, kind)
    return found
