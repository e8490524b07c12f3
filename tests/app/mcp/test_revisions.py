"""Both eras of MCP: the official SDK client in `auto` (2026-07-28) and `legacy` (2025 handshake) against our
server over stdio and HTTP, and our client against SDK 2.x servers in both eras."""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.subscriptions import ResourcesListChanged

from app.mcp.client import Person
from tests.app.mcp.test_client import BAD, TIME, run, toolset
from tests.app.mcp_server.test_server import add, ours
from tests.conftest import ROOT, clean_env, start_http_server

MODERN, LEGACY = "2026-07-28", "2025-11-25"


def sdk_client(tmp_path, device_service, transport: str, mode: str, **callbacks) -> Client:
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    if transport == "http":
        return Client(start_http_server(tmp_path, env).url or "", mode=mode, **callbacks)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "app.mcp_server"], cwd=str(ROOT), env=clean_env(**env)
    )
    return Client(stdio_client(params), mode=mode, **callbacks)


class Person_:
    """The SDK client's person: answers each question as told, and remembers what it was asked."""

    def __init__(self, answer: str) -> None:
        self.answer, self.asked = answer, []

    async def __call__(self, context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.asked.append(params.message)
        return types.ElicitResult(action=self.answer, content={} if self.answer == "accept" else None)


async def changes_heard(client: Client, mode: str, notices: list[str], write) -> list[str]:
    """Run `write`, and wait for the device list's change: on subscriptions/listen in 2026-07-28, on the
    session (the message handler fills `notices`) in the 2025 revisions."""
    if mode == "legacy":
        await write()
        with anyio.fail_after(5):
            while not notices:
                await anyio.sleep(0.05)
        return notices
    async with client.listen(resources_list_changed=True) as stream:
        await write()
        with anyio.fail_after(5):
            event = await stream.__anext__()
        return ["resources changed" if isinstance(event, ResourcesListChanged) else repr(event)]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_the_official_client_in_both_eras(tmp_path, device_service, transport, mode):
    add(device_service, "CPH2223")
    person, notices, logs = Person_("accept"), [], []

    async def on_message(message) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            notices.append("resources changed")

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async def scenario():
        callbacks = {
            "elicitation_callback": person,
            "message_handler": on_message,
            "logging_callback": on_log,
        }
        async with sdk_client(tmp_path, device_service, transport, mode, log_level="info", **callbacks) as c:
            listed = await c.list_tools()
            added = []

            async def write() -> None:
                added.append(await c.call_tool("add_device_model", {"model": "CPH2999"}))

            heard = await changes_heard(c, mode, notices, write)
            queried = await c.call_tool("query_device_model", {"keyword": "CPH2999"})
            devices = await c.list_resources()
            return c.protocol_version, listed, added[0], queried, devices, heard

    revision, listed, added, queried, devices, heard = anyio.run(scenario)
    assert revision == (MODERN if mode == "auto" else LEGACY)
    assert "add_device_model" in [t.name for t in listed.tools]
    assert person.asked == [
        'Allow add_device_model({"model": "CPH2999", "createdBy": "root"})? Nothing runs unless you accept.'
    ]  # asked once: in a result (2026-07-28) or by elicitation (2025)
    assert added.is_error is False and added.structured_content["model"] == "CPH2999"
    assert device_service.store.get("CPH2999") is not None
    assert "CPH2999" in queried.content[0].text, queried
    assert heard == ["resources changed"]
    assert {"tool": "add_device_model", "event": "done"} in logs
    if mode == "auto":  # cache hints: the tool list keeps, the device list changes with every write
        assert (listed.ttl_ms, listed.cache_scope) == (10 * 60 * 1000, "private")  # the docs' 10 minutes
        assert (devices.ttl_ms, devices.cache_scope) == (0, "private")
        assert [str(r.uri) for r in devices.resources] == [
            "devicedb://models/CPH2223",
            "devicedb://models/CPH2999",
        ]


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_modern_clients_no_adds_nothing_and_one_that_cannot_ask_gets_no_writes(
    tmp_path, device_service, transport
):
    person = Person_("decline")

    async def scenario():
        async with sdk_client(tmp_path, device_service, transport, "auto", elicitation_callback=person) as c:
            declined = await c.call_tool("add_device_model", {"model": "CPH2999"})
        async with sdk_client(tmp_path, device_service, transport, "auto") as mute:
            return declined, [t.name for t in (await mute.list_tools()).tools], mute.protocol_version

    declined, offered_to_mute, revision = anyio.run(scenario)
    assert len(person.asked) == 1 and declined.is_error is True
    assert "the person refused" in declined.content[0].text
    assert device_service.store.get("CPH2999") is None
    assert revision == MODERN
    assert "query_device_model" in offered_to_mute and "add_device_model" not in offered_to_mute


def test_logging_follows_the_revision(tmp_path, device_service):
    """2026-07-28: a request says the level it wants, and without one nothing is logged."""
    heard: dict[str, list] = {"none": [], "debug": []}

    async def scenario():
        for level in heard:

            async def on_log(params: types.LoggingMessageNotificationParams, level=level) -> None:
                heard[level].append(params.data)

            extra = {"log_level": level} if level != "none" else {}
            async with sdk_client(
                tmp_path, device_service, "stdio", "auto", logging_callback=on_log, **extra
            ) as c:
                await c.call_tool("calculator", {"expression": "1+1"})

    anyio.run(scenario)
    assert heard["none"] == []
    assert heard["debug"] == [
        {"tool": "calculator", "event": "called"},
        {"tool": "calculator", "event": "done"},
    ]


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_our_client_with_an_sdk_server_in_both_eras(tmp_path, protocol):
    with toolset(tmp_path, replace(TIME, protocol=protocol)) as mcp:
        revision = mcp.connections["time"].revision
        now = run(mcp.registry, "time__get_current_time", {"timezone": "Asia/Shanghai"})
    assert revision == (MODERN if protocol == "auto" else LEGACY)
    assert now["data"]["structuredContent"]["datetime"].endswith("+08:00")


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_our_client_asks_its_person_for_our_server_in_both_eras(tmp_path, device_service, protocol):
    """The same path as elicitation: the person's time stops the call's clock; nobody there declines."""
    asked = []

    def slow_person(server, request):
        time.sleep(5)  # longer than the server's timeout: the clock waits for the person
        asked.append((server, request.message))
        return "accept", {}

    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    server = replace(ours(env), protocol=protocol)
    with toolset(tmp_path, server, person=Person(ask=slow_person)) as mcp:
        connection = mcp.connections["ours"]
        revision, connection.config = connection.revision, replace(server, timeout=3)  # started: now 3 s
        added = run(mcp.registry, "ours__add_device_model", {"model": "CPH2999"})
    reports: list[str] = []
    with toolset(tmp_path, server, reports=reports) as mcp:  # `-m`, pipes: nobody to ask: declined
        declined = run(mcp.registry, "ours__delete_device_model", {"model": "CPH2999"})
    assert revision == (MODERN if protocol == "auto" else LEGACY)
    assert [s for s, _ in asked] == ["ours"] and added["ok"] is True, added
    assert declined["ok"] is False and "the person refused" in declined["error"], reports
    assert device_service.store.get("CPH2999") is not None


def test_a_tools_own_question_in_a_result(tmp_path, device_service):
    """2026-07-28: a tool that asks mid-run (a conformance fixture) gets the answer of the next round."""
    person = Person_("accept")

    async def answering(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        await person(context, params)
        return types.ElicitResult(action="accept", content={"username": "ann", "email": "ann@example.com"})

    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "app.mcp_server", "--with-fixtures", "conformance.fixtures"],
        cwd=str(ROOT),
        env=clean_env(**env),
    )

    async def scenario():
        async with Client(stdio_client(params), elicitation_callback=answering) as client:
            return await client.call_tool("test_elicitation", {"message": "Who are you?"})

    answered = anyio.run(scenario)
    assert person.asked == ["Who are you?"]
    assert answered.content[0].text == (
        'User response: action=accept, content={"username": "ann", "email": "ann@example.com"}'
    )


@pytest.mark.parametrize("protocol", ["auto", "legacy"])
def test_a_tool_added_later_waits_for_the_person_even_from_a_trusted_server(tmp_path, protocol):
    asked = []
    trusted = replace(BAD, trusted=True, protocol=protocol)
    reports: list[str] = []
    with toolset(tmp_path, trusted, approve=False, reports=reports) as mcp:
        assert "bad__echo" in mcp.tools, (
            reports
        )  # first seen at start-up: a trusted server's tools are approved
        assert run(mcp.registry, "bad__grow", {})["ok"] is True
        anyio.run(anyio.sleep, 0.5)
        mcp.sync(lambda server, lines: asked.append(lines) or False)
        waiting = "bad__surprise" not in mcp.tools
        revision = mcp.connections["bad"].revision
    assert waiting and asked == [["bad__surprise (new): '[MCP server bad] New.'"]]
    assert revision == (MODERN if protocol == "auto" else LEGACY)


def test_a_name_another_server_holds_is_reported_and_skipped(tmp_path):
    reports: list[str] = []
    first = replace(BAD, name="m", env={"EXTRA_TOOL": "x__echo"})
    second = replace(BAD, name="m__x")
    with toolset(tmp_path, first, second, reports=reports) as mcp:
        holder = mcp.tools["m__x__echo"].connection.config.name
    assert holder == "m"
    assert "MCP tool 'm__x__echo' of 'm__x' skipped: 'm' has it" in reports
