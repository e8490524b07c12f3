"""ToolRegistry: validation with jsonschema, and every mistake of the model returned as an envelope."""

from __future__ import annotations

import json

import pytest
from jsonschema.exceptions import SchemaError

from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext, ToolError

CTX = ToolContext(user_id="alice", run_id="run1")


class Echo(FunctionTool):
    name = "echo"
    description = "Echo the text back."
    parameters = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 1}},
        "required": ["text"],
        "additionalProperties": False,
    }

    def __init__(self) -> None:
        self.seen: list[tuple[ToolContext, str]] = []

    def call(self, ctx: ToolContext, input: str) -> str:
        self.seen.append((ctx, input))
        args = json.loads(input)
        if args["text"] == "boom":
            raise ValueError("kaput")
        if args["text"] == "refuse":
            raise ToolError("not allowed here", retryable=False)
        return json.dumps({"echo": args["text"] * args.get("times", 1)})


@pytest.fixture
def registry_and_tool():
    registry, tool = ToolRegistry(), Echo()
    registry.register(tool)
    return registry, tool


def run(registry: ToolRegistry, name: str, args) -> dict:
    return json.loads(registry.execute_tool_call(CTX, {"name": name, "args": args, "id": "call_1"}))


def test_success_wraps_data_and_passes_context(registry_and_tool):
    registry, tool = registry_and_tool
    assert run(registry, "echo", {"text": "ab", "times": 2}) == {"ok": True, "data": {"echo": "abab"}}
    ctx, raw = tool.seen[0]
    assert (ctx.user_id, ctx.call_id, ctx.idempotency_key) == ("alice", "call_1", "run1:call_1")
    assert json.loads(raw) == {"text": "ab", "times": 2}


def test_langchain_tools_is_openai_format(registry_and_tool):
    registry, _ = registry_and_tool
    assert registry.langchain_tools() == [
        {
            "type": "function",
            "function": {"name": "echo", "description": Echo.description, "parameters": Echo.parameters},
        }
    ]
    assert registry.get("echo") is registry_and_tool[1]
    assert registry.get("nope") is None


def test_unknown_tool(registry_and_tool):
    registry, _ = registry_and_tool
    assert run(registry, "ech0", {}) == {
        "ok": False,
        "error": "unknown tool 'ech0'; available tools: echo",
        "retryable": True,
    }


@pytest.mark.parametrize(
    "raw, expected",
    [
        ('{"text": "a"', "arguments of 'echo' are not valid JSON (Expecting ',' delimiter: line 1 column 13"),
        ("[1]", "arguments of 'echo' must be a JSON object, got list"),
    ],
)
def test_malformed_arguments(registry_and_tool, raw, expected):
    registry, tool = registry_and_tool
    result = run(registry, "echo", raw)
    assert (result["ok"], result["retryable"]) == (False, True)
    assert result["error"].startswith(expected)
    assert tool.seen == []


@pytest.mark.parametrize(
    "args, expected",
    [
        ({}, "invalid arguments for 'echo': 'text' is a required property"),
        ({"text": 3}, "invalid arguments for 'echo': text: 3 is not of type 'string'"),
        ({"text": "a", "times": 0}, "invalid arguments for 'echo': times: 0 is less than the minimum of 1"),
        (
            {"text": "a", "user_id": "x"},
            "invalid arguments for 'echo': Additional properties are not allowed",
        ),
    ],
)
def test_schema_violations_never_reach_the_tool(registry_and_tool, args, expected):
    registry, tool = registry_and_tool
    result = run(registry, "echo", args)
    assert result["error"].startswith(expected)
    assert result["retryable"] is True
    assert tool.seen == []


def test_a_tool_that_raises(registry_and_tool):
    registry, _ = registry_and_tool
    assert run(registry, "echo", {"text": "boom"}) == {
        "ok": False,
        "error": "tool 'echo' failed: ValueError: kaput",
        "retryable": False,
    }
    assert run(registry, "echo", {"text": "refuse"}) == {
        "ok": False,
        "error": "not allowed here",
        "retryable": False,
    }


def test_register_refuses_duplicates_and_bad_schemas(registry_and_tool):
    registry, _ = registry_and_tool
    with pytest.raises(ValueError, match="already registered"):
        registry.register(Echo())

    class Broken(Echo):
        name = "broken"
        parameters = {"type": "objekt"}

    for _ in range(2):  # a schema found invalid is refused again: only valid ones are remembered
        with pytest.raises(SchemaError, match="objekt"):
            ToolRegistry().register(Broken())
    with pytest.raises(SchemaError, match="objekt"):
        registry.register(Broken())
    assert [t["function"]["name"] for t in registry.langchain_tools()] == ["echo"]


def test_a_schema_is_remembered_as_valid_only_as_it_was_written():
    class Listed(Echo):
        name = "listed"
        parameters = {"type": "object", "required": ["text"]}

    class Tupled(Listed):
        name = "tupled"
        parameters = {"type": "object", "required": ("text",)}  # the same in JSON, not a JSON Schema array

    ToolRegistry().register(Listed())
    with pytest.raises(SchemaError, match="is not of type 'array'"):
        ToolRegistry().register(Tupled())


def test_no_idempotency_key_without_a_run_and_a_call_id():
    assert ToolContext(user_id="u").for_call("call_1").idempotency_key == ""
    assert ToolContext(user_id="u", run_id="r").for_call("").idempotency_key == ""
    assert ToolContext(user_id="u", run_id="r").for_call("c").idempotency_key == "r:c"
