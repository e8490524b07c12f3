"""A running tool's channel under our MCP server (log messages, progress, questions to the person), and
what `--with-fixtures` adds: the conformance fixtures, through the official SDK client over stdio."""

from __future__ import annotations

import json
import sys

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from agent.tools import ToolRegistry
from agent.types import ConfigError, ToolContext
from app.mcp_server.extras import Extras, load_extras
from app.mcp_server.tasks import TASKS
from conformance.fixtures import EnumsFormTool, LoggingTool, ProgressTool
from tests.conftest import ROOT, clean_env

FIXTURES = ("--with-fixtures", "conformance.fixtures")
FORM = {
    "type": "object",
    "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"},
    },
    "required": ["username", "email"],
}


def open_client(tmp_path, device_service, *args: str, **callbacks) -> Client:
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.mcp_server", *args],
        cwd=str(ROOT),
        env=clean_env(**env),
    )
    return Client(stdio_client(params), mode="legacy", **callbacks)


def test_a_tools_log_messages_progress_and_questions_reach_the_client(tmp_path, device_service):
    logs, progress, asked = [], [], []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.logger, params.data))

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def person(context, params: types.ElicitRequestFormParams) -> types.ElicitResult:
        asked.append((params.message, params.requested_schema))
        return types.ElicitResult(action="accept", content={"username": "ann", "email": "ann@example.com"})

    async def scenario():
        async with open_client(
            tmp_path, device_service, *FIXTURES, logging_callback=on_log, elicitation_callback=person
        ) as client:
            await client.set_logging_level("debug")
            logged = await client.call_tool("test_tool_with_logging", {})
            await client.set_logging_level("error")
            await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
            answered = await client.call_tool("test_elicitation", {"message": "Who are you?"})
            failed = await client.call_tool("test_error_handling", {})
            return logged, answered, failed

    logged, answered, failed = anyio.run(scenario)
    assert logs == [
        ("info", "tools", {"tool": "test_tool_with_logging", "event": "called"}),
        ("info", "test_tool_with_logging", "Tool execution started"),
        ("info", "test_tool_with_logging", "Tool processing data"),
        ("info", "test_tool_with_logging", "Tool execution completed"),
        ("info", "tools", {"tool": "test_tool_with_logging", "event": "done"}),
    ]  # nothing at "info" or "warning" once the level is "error"
    assert logged.content[0].text == "Logged three messages." and logged.is_error is False
    # the host's start, then the tool's own figures; its 0 does not increase on the start's, so it is dropped
    assert progress == [(0, None, "test_tool_with_progress: started"), (50, 100, None), (100, 100, None)]
    assert asked == [("Who are you?", FORM)]
    assert answered.content[0].text == (
        'User response: action=accept, content={"username": "ann", "email": "ann@example.com"}'
    )
    assert failed.is_error is True
    assert failed.content[0].text == "This tool intentionally returns an error for testing"
    audit = [json.loads(line) for line in (tmp_path / "audit.jsonl").read_text().splitlines()]
    assert [(r["tool"], r["decision"]) for r in audit] == [
        ("test_tool_with_logging", "ran"),
        ("test_tool_with_progress", "ran"),
        ("test_elicitation", "ran"),
        ("test_error_handling", "ran"),
    ]


def test_a_tool_cannot_ask_through_a_client_that_cannot_ask_its_person(tmp_path, device_service):
    async def scenario():
        async with open_client(tmp_path, device_service, *FIXTURES) as client:
            return await client.call_tool("test_elicitation_sep1034_defaults", {})

    result = anyio.run(scenario)
    assert result.is_error is True
    assert result.content[0].text == (
        "test_elicitation_sep1034_defaults needs to ask the person, "
        "and this MCP client cannot (no elicitation)"
    )


def test_fixtures_are_served_only_when_asked_for(tmp_path, device_service):
    device_service.store.add({"model": "CPH2223", "marketName": "OPPO Find N6", "createdBy": "t"}, None, "")

    async def plain():
        async with open_client(tmp_path, device_service) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as no_resource:
                await client.read_resource("test://static-text")
            with pytest.raises(MCPError) as no_prompt:
                await client.get_prompt("test_simple_prompt")
            return names, no_resource.value.code, no_prompt.value.code

    names, no_resource, no_prompt = anyio.run(plain)
    assert not any(name.startswith("test_") for name in names) and "query_device_model" in names
    assert (no_resource, no_prompt) == (-32002, -32602)


def test_the_fixtures_resources_and_prompts_go_the_device_ones_way(tmp_path, device_service):
    device_service.store.add({"model": "CPH2223", "marketName": "OPPO Find N6", "createdBy": "t"}, None, "")

    async def scenario():
        async with open_client(tmp_path, device_service, *FIXTURES) as client:
            listed = [str(r.uri) for r in (await client.list_resources()).resources]
            templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            text = (await client.read_resource("test://static-text")).contents[0]
            data = (await client.read_resource("test://template/123/data")).contents[0]
            prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            with pytest.raises(MCPError) as missing:
                await client.get_prompt("test_prompt_with_arguments", {"arg1": "a"})
            schema = next(
                t for t in (await client.list_tools()).tools if t.name == "json_schema_2020_12_tool"
            )
            return listed, templates, text, data, prompt, missing.value, schema.input_schema

    listed, templates, text, data, prompt, missing, schema = anyio.run(scenario)
    assert listed == ["test://static-text", "test://watched-resource", "devicedb://models/CPH2223"]
    assert templates == ["devicedb://models/{model}", "test://template/{id}/data"]
    assert (text.mime_type, text.text) == ("text/plain", "This is the content of the static text resource.")
    assert json.loads(data.text) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
    assert prompt.messages[0].content.text == "Prompt with arguments: arg1='a', arg2='b'"
    assert (missing.code, missing.message) == (
        -32602,
        "prompt 'test_prompt_with_arguments' needs the argument(s) ['arg2']",
    )
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert (
        schema["$defs"]["address"]["properties"]["city"] == {"type": "string"}
        and not schema["additionalProperties"]
    )


def test_without_a_channel_a_tool_logs_nowhere_and_cannot_ask(tmp_path):
    registry = ToolRegistry()
    for tool in (LoggingTool(), ProgressTool(), EnumsFormTool()):
        registry.register(tool)

    def run(name: str) -> dict:
        return json.loads(
            registry.execute_tool_call(ToolContext(user_id="u"), {"name": name, "args": {}, "id": "c"})
        )

    assert run("test_tool_with_logging") == {"ok": True, "data": "Logged three messages."}
    assert run("test_tool_with_progress") == {"ok": True, "data": "Reported progress 0, 50 and 100 of 100."}
    assert run("test_elicitation_sep1330_enums") == {
        "ok": False,
        "error": "this tool needs to ask the person, and this host has no way to ask",
        "retryable": False,
    }


def test_extras_load_or_say_what_is_wrong(tmp_path, monkeypatch):
    (tmp_path / "not_extras.py").write_text("EXTRAS = {'tools': []}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert load_extras(None) == Extras()
    assert [t.name for t in load_extras("conformance.fixtures").tools][:2] == [
        "test_simple_text",
        "test_error_handling",
    ]
    with pytest.raises(
        ConfigError, match=r"^--with-fixtures no_such_module: cannot load its EXTRAS \(No module"
    ):
        load_extras("no_such_module")
    with pytest.raises(ConfigError, match="^--with-fixtures tools.calculator: cannot load its EXTRAS"):
        load_extras("tools.calculator")
    with pytest.raises(ConfigError, match="EXTRAS is not an app.mcp_server.extras.Extras"):
        load_extras("not_extras")


def test_an_optional_prompt_argument_left_out_leaves_its_words_out():
    assert TASKS["add_device_model"].render({"model": "CPH2223"}) == "请把机型 CPH2223 添加到数据库。"
    assert TASKS["add_device_model"].render({"model": "CPH2223", "market_name": "Find {N6}"}) == (
        "请把机型 CPH2223 添加到数据库，营销名 Find {N6}。"
    )
