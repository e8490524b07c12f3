"""The conformance suite's fixtures, written as this project's own tools, prompts and resources.

`make conformance` starts `python -m app.mcp_server --http PORT --with-fixtures conformance.fixtures`:
the suite's server scenarios call these by the names of its reference server, and every call goes
through our machinery (the ToolRegistry's validation, envelope and audit; log messages, progress and
questions through `ctx.channel`). Names, arguments and texts are the ones the scenarios ask for.
"""

from __future__ import annotations

import json
import time
from typing import Any

import mcp_types as types

from agent.function_tool import FunctionTool
from agent.types import ToolContext, ToolError
from app.mcp_server.extras import Extras
from app.mcp_server.prompts import Task
from app.mcp_server.resources import TextResource

NO_ARGUMENTS: dict[str, Any] = {"type": "object", "properties": {}}


class SimpleTextTool(FunctionTool):
    name = "test_simple_text"
    description = "Answers with a fixed text."
    parameters = NO_ARGUMENTS
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return "This is a simple text response for testing."


class ErrorTool(FunctionTool):
    name = "test_error_handling"
    description = "Always fails."
    parameters = NO_ARGUMENTS
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        raise ToolError("This tool intentionally returns an error for testing")


class LoggingTool(FunctionTool):
    name = "test_tool_with_logging"
    description = "Sends three log messages while it runs."
    parameters = NO_ARGUMENTS
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        ctx.channel.log("info", "Tool execution started")
        time.sleep(0.05)
        ctx.channel.log("info", "Tool processing data")
        time.sleep(0.05)
        ctx.channel.log("info", "Tool execution completed")
        return "Logged three messages."


class ProgressTool(FunctionTool):
    name = "test_tool_with_progress"
    description = "Reports its progress: 0, 50 and 100 of 100."
    parameters = NO_ARGUMENTS
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        for done in (0, 50, 100):
            ctx.channel.progress(done, 100)
            time.sleep(0.05)
        return "Reported progress 0, 50 and 100 of 100."


class FormTool(FunctionTool):
    """Asks the person to fill in `form` and says what came back."""

    parameters = NO_ARGUMENTS
    effect = "read"
    question: str
    form: dict[str, Any]

    def call(self, ctx: ToolContext, input: str) -> str:
        action, content = ctx.channel.ask(self.question, self.form)
        return f"Elicitation completed: action={action}, content={json.dumps(content)}"


class ElicitationTool(FunctionTool):
    name = "test_elicitation"
    description = "Asks the person for a user name and an e-mail address, with the given message."
    parameters = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}
    effect = "read"
    form = {
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        action, content = ctx.channel.ask(json.loads(input)["message"], self.form)
        return f"User response: action={action}, content={json.dumps(content)}"


class DefaultsFormTool(FormTool):
    name = "test_elicitation_sep1034_defaults"
    description = "Asks the person a form whose fields all have defaults (SEP-1034)."
    question = "Please review and update the form fields with defaults"
    form = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        },
    }


def _titled(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"const": value, "title": title} for value, title in pairs]


class EnumsFormTool(FormTool):
    name = "test_elicitation_sep1330_enums"
    description = "Asks the person a form with the five kinds of choice (SEP-1330)."
    question = "Please choose"
    form = {
        "type": "object",
        "properties": {
            "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
            "titledSingle": {
                "type": "string",
                "oneOf": _titled(("value1", "First Option"), ("value2", "Second Option")),
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "items": {"anyOf": _titled(("value1", "First Choice"), ("value2", "Second Choice"))},
            },
        },
    }


class Schema2020Tool(FunctionTool):
    name = "json_schema_2020_12_tool"
    description = "Tool with JSON Schema 2020-12 features"
    parameters = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            }
        },
        "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return f"Received {input}"


def _template_data(id: str) -> str:
    return json.dumps({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


def _argument(name: str) -> types.PromptArgument:
    return types.PromptArgument(name=name, description=f"{name} of the prompt", required=True)


EXTRAS = Extras(
    tools=(
        SimpleTextTool(),
        ErrorTool(),
        LoggingTool(),
        ProgressTool(),
        ElicitationTool(),
        DefaultsFormTool(),
        EnumsFormTool(),
        Schema2020Tool(),
    ),
    prompts={
        "test_simple_prompt": Task("A prompt without arguments", (), "This is a simple prompt for testing."),
        "test_prompt_with_arguments": Task(
            "A prompt with two arguments",
            (_argument("arg1"), _argument("arg2")),
            "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'",
        ),
    },
    resources=(
        TextResource(
            "test://static-text",
            "static-text",
            "A fixed text",
            "text/plain",
            lambda: "This is the content of the static text resource.",
        ),
        TextResource(  # the subscribe scenarios subscribe to it (and unsubscribe); it never changes
            "test://watched-resource",
            "watched-resource",
            "A resource to subscribe to",
            "text/plain",
            lambda: "This resource can be subscribed to.",
        ),
        TextResource(
            "test://template/{id}/data", "template-data", "Data for an id", "application/json", _template_data
        ),
    ),
)
