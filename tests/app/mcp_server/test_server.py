"""Our MCP server through the official SDK client, over stdio and HTTP: resources, prompts, completion,
logging, progress, the protocol error for an unknown tool, confirmation by elicitation, resumable HTTP."""

from __future__ import annotations

import json
import sys

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from agent.tools import ToolRegistry
from app.mcp.toolset import McpToolset
from app.mcp_server.serve import RETRY_MS
from tests.app.mcp.test_client import ours
from tests.conftest import ROOT, clean_env, start_http_server


def add(device_service, model: str, name: str = "OPPO Find N6") -> None:
    device_service.store.add({"model": model, "marketName": name, "createdBy": "t"}, None, "")


def open_client(tmp_path, device_service, transport: str, **callbacks):
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    if transport == "http":
        return Client(start_http_server(tmp_path, env).url or "", mode="legacy", **callbacks)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "app.mcp_server"], cwd=str(ROOT), env=clean_env(**env)
    )
    return Client(stdio_client(params), mode="legacy", **callbacks)


def run(coroutine_fn, *args):
    return anyio.run(coroutine_fn, *args)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_resources_prompts_and_completion(tmp_path, device_service, transport):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")

    async def scenario():
        async with open_client(tmp_path, device_service, transport) as client:
            listed = await client.list_resources()
            templates = await client.list_resource_templates()
            read = await client.read_resource("devicedb://models/CPH2411")
            with pytest.raises(MCPError) as missing:
                await client.read_resource("devicedb://models/NOPE1")
            prompts = await client.list_prompts()
            prompt = await client.get_prompt(
                "add_device_model", {"model": "CPH2555", "market_name": "Find X"}
            )
            ref = types.ResourceTemplateReference(uri="devicedb://models/{model}")
            by_template = await client.complete(ref, {"name": "model", "value": "CPH24"})
            by_prompt = await client.complete(
                types.PromptReference(name="check_device_model"), {"name": "model", "value": "CPH"}
            )
            return listed, templates, read, missing.value, prompts, prompt, by_template, by_prompt

    listed, templates, read, missing, prompts, prompt, by_template, by_prompt = run(scenario)
    assert [(str(r.uri), r.title) for r in listed.resources] == [
        ("devicedb://models/CPH2223", "OPPO Find N6"),
        ("devicedb://models/CPH2411", "OPPO Reno"),
    ]
    assert [t.uri_template for t in templates.resource_templates] == ["devicedb://models/{model}"]
    assert json.loads(read.contents[0].text)["marketName"] == "OPPO Reno"
    assert (missing.code, missing.message) == (-32002, "Resource not found: devicedb://models/NOPE1")
    assert [p.name for p in prompts.prompts] == ["add_device_model", "check_device_model"]
    assert prompt.messages[0].content.text == "请把机型 CPH2555 添加到数据库，营销名 Find X。"
    assert by_template.completion.values == ["CPH2411"]
    assert by_prompt.completion.values == ["CPH2223", "CPH2411"]


def test_logging_progress_change_notifications_and_unknown_tool(tmp_path, device_service):
    logs, progress, notices = [], [], []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append((params.level, params.data))

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            notices.append("resources changed")

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def scenario():
        async with open_client(
            tmp_path,
            device_service,
            "http",
            logging_callback=on_log,
            message_handler=on_message,
            elicitation_callback=approving,  # the person approves the add it is shown
        ) as client:
            await client.set_logging_level("info")
            added = await client.call_tool(
                "add_device_model", {"model": "CPH2999"}, progress_callback=on_progress
            )
            await client.set_logging_level("error")
            await client.call_tool("calculator", {"expression": "1+1"})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            await anyio.sleep(0.2)
            return added, unknown.value

    added, unknown = run(scenario)
    assert added.is_error is False and added.structured_content["model"] == "CPH2999"
    assert logs == [
        ("info", {"tool": "add_device_model", "event": "called"}),
        ("info", {"tool": "add_device_model", "event": "done"}),
    ]  # nothing at "info" once the level is "error"
    assert progress[0] == (0, None, "add_device_model: started")
    assert progress[-1][0] == progress[-1][1] and progress[-1][2] == "add_device_model: done"
    assert notices == ["resources changed"]
    assert (unknown.code, unknown.message) == (-32602, "Unknown tool: no_such_tool")


@pytest.mark.parametrize("answer", ["accept", "decline"])
def test_delete_is_confirmed_by_the_persons_answer(tmp_path, device_service, answer):
    add(device_service, "CPH2223")
    asked = []

    def person(server, request):
        asked.append((server, request.message))
        return answer, {} if answer == "accept" else None

    from app.mcp.client import Person

    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    server = ours(env)
    registry = ToolRegistry(confirm=lambda *a: True)
    with McpToolset([server], registry, tmp_path, print, Person(ask=person)):
        call = {"name": "ours__delete_device_model", "args": {"model": "CPH2223"}, "id": "c1"}
        from agent.types import ToolContext

        result = json.loads(registry.execute_tool_call(ToolContext(user_id="alice"), call))
    assert asked == [
        ("ours", 'Allow delete_device_model({"model": "CPH2223"})? Nothing runs unless you accept.')
    ]
    if answer == "accept":
        assert result["ok"] is True and device_service.store.get("CPH2223") is None
    else:
        assert result["ok"] is False and "the person refused" in result["error"]
        assert device_service.store.get("CPH2223") is not None


async def approving(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={})


def test_a_client_that_cannot_ask_its_person_is_offered_no_write(tmp_path, device_service):
    async def scenario():
        async with open_client(tmp_path, device_service, "stdio") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            with pytest.raises(MCPError) as refused:
                await client.call_tool("delete_device_model", {"model": "CPH2223"})
            return names, refused.value

    names, refused = run(scenario)
    assert "delete_device_model" not in names and "add_device_model" not in names
    assert "query_device_model" in names
    assert refused.code == -32602


def test_http_streams_are_resumable(tmp_path, device_service):
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    url = start_http_server(tmp_path, env).url or ""
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    with httpx2.Client(timeout=10) as http:
        first = http.post(url, json=init, headers=headers)
        session = {**headers, "Mcp-Session-Id": first.headers["mcp-session-id"]}
        http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "calculator", "arguments": {"expression": "6*7"}},
        }
        events = http.post(url, json=call, headers=session).text
        priming_id = events.split("id: ", 1)[1].split()[0]  # the first event: before any message
        with http.stream("GET", url, headers={**session, "Last-Event-ID": priming_id}) as again:
            replayed = next(line for line in again.iter_lines() if '"id":2' in line.replace(" ", ""))
    assert f"retry: {RETRY_MS}" in events  # the client is told when to reconnect
    assert json.loads(replayed.removeprefix("data:"))["result"]["structuredContent"]["result"] == 42
