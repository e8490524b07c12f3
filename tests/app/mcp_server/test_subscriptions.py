"""Resource subscriptions on our MCP server, through the official SDK client: a subscriber hears its device
model's change, made by our tool or through the device service directly, and nothing after it
unsubscribes; a client that did not subscribe hears nothing; a URI nobody serves is refused. The 2025
revisions (resources/subscribe over stdio and HTTP) and 2026-07-28 (subscriptions/listen)."""

from __future__ import annotations

import anyio
import mcp_types as types
import pytest
import requests
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated
from mcp.shared.exceptions import MCPError

from app.mcp_server.subscriptions import EVERY
from tests.app.mcp.test_revisions import sdk_client
from tests.app.mcp_server.test_server import add, approving
from tests.conftest import start_http_server

# the SDK's client warns that resources/subscribe is gone in 2026-07-28: these tests mean the 2025 revisions
pytestmark = pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
FIND, RENO = "devicedb://models/CPH2223", "devicedb://models/CPH2411"
QUIET = 3 * EVERY  # long enough for the server's watch to have read the resources twice


def rename_through_the_service(device_service, model: str, name: str) -> None:
    """Another client of the device service renames `model`: our MCP server is not told."""
    resp = requests.patch(f"{device_service.url}/api/models/{model}", json={"marketName": name}, timeout=10)
    resp.raise_for_status()


def delete_through_the_service(device_service, model: str) -> None:
    resp = requests.delete(f"{device_service.url}/api/models/{model}", timeout=10)
    resp.raise_for_status()


class Heard:
    """The URIs of the notifications/resources/updated a 2025 client's session receives."""

    def __init__(self) -> None:
        self.uris: list[str] = []

    async def __call__(self, message: object) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            self.uris.append(str(message.params.uri))

    async def wait_for(self, count: int) -> list[str]:
        with anyio.fail_after(10):
            while len(self.uris) < count:
                await anyio.sleep(0.05)
        return self.uris


async def rename_with_our_tool(client: Client, model: str, name: str) -> None:
    result = await client.call_tool("update_market_name", {"model": model, "marketName": name})
    assert result.is_error is False, result


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_2025_subscriber_hears_its_model_change_by_anyone_until_it_unsubscribes(
    tmp_path, device_service, transport
):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    heard = Heard()

    async def scenario():
        async with sdk_client(
            tmp_path,
            device_service,
            transport,
            "legacy",
            message_handler=heard,
            elicitation_callback=approving,
        ) as client:
            with pytest.raises(MCPError) as unknown:
                await client.subscribe_resource("devicedb://models/NOPE1")
            await client.subscribe_resource(FIND)
            await rename_with_our_tool(client, "CPH2223", "OPPO Find N7")
            by_tool = list(await heard.wait_for(1))
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "Find N8")
            by_service = list(await heard.wait_for(2))
            await rename_with_our_tool(client, "CPH2411", "OPPO Reno 2")  # not subscribed to
            await client.unsubscribe_resource(FIND)
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "Find N9")
            await rename_with_our_tool(client, "CPH2223", "OPPO Find N10")
            await anyio.sleep(QUIET)
            quiet = list(heard.uris)
            await client.subscribe_resource(RENO)
            await anyio.to_thread.run_sync(delete_through_the_service, device_service, "CPH2411")
            await heard.wait_for(3)
            await anyio.sleep(QUIET)
            capabilities = client.server_capabilities
            return unknown.value, by_tool, by_service, quiet, list(heard.uris), capabilities

    unknown, by_tool, by_service, quiet, in_all, capabilities = anyio.run(scenario)
    assert (unknown.code, unknown.message) == (-32002, "Resource not found: devicedb://models/NOPE1")
    assert EVERY == 1.0  # the docs' "every second"
    assert by_tool == [FIND]
    assert by_service == [FIND, FIND]
    assert quiet == [FIND, FIND]  # nothing for CPH2411, nothing after unsubscribing
    assert in_all == [FIND, FIND, RENO]  # a deletion is a change, told once
    assert capabilities.resources is not None and capabilities.resources.subscribe is True
    assert device_service.store.get("CPH2223")["marketName"] == "OPPO Find N10"


def test_a_second_http_session_that_did_not_subscribe_hears_nothing(tmp_path, device_service):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    subscriber, bystander = Heard(), Heard()
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    url = start_http_server(tmp_path, env).url or ""

    async def scenario():
        async with (
            Client(url, mode="legacy", message_handler=subscriber) as first,
            Client(url, mode="legacy", message_handler=bystander) as second,
        ):
            await first.subscribe_resource(FIND)
            await second.subscribe_resource(RENO)
            await second.unsubscribe_resource(FIND)  # never subscribed: the first session's stays
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "Find N8")
            await subscriber.wait_for(1)
            await anyio.sleep(QUIET)

    anyio.run(scenario)
    assert subscriber.uris == [FIND]
    assert bystander.uris == []


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_2026_listener_hears_the_models_it_names_while_its_stream_is_open(
    tmp_path, device_service, transport
):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")

    async def scenario():
        async with sdk_client(
            tmp_path, device_service, transport, "auto", elicitation_callback=approving
        ) as c:
            with pytest.raises(MCPError) as unknown:
                async with c.listen(resource_subscriptions=["devicedb://models/NOPE1"]):
                    pass
            async with (
                c.listen(resource_subscriptions=[FIND]) as find,
                c.listen(resource_subscriptions=[RENO]) as reno,
            ):
                await rename_with_our_tool(c, "CPH2223", "OPPO Find N7")
                with anyio.fail_after(10):
                    by_tool = await find.__anext__()
                await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "N8")
                with anyio.fail_after(10):
                    by_service = await find.__anext__()
                with anyio.move_on_after(QUIET):
                    return unknown.value, by_tool, by_service, await reno.__anext__()
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "N9")
            async with c.listen(resource_subscriptions=[FIND]) as again:  # closing the stream unsubscribed
                with anyio.move_on_after(QUIET):
                    return unknown.value, by_tool, by_service, await again.__anext__()
            return unknown.value, by_tool, by_service, c.protocol_version

    unknown, by_tool, by_service, revision = anyio.run(scenario)
    assert (unknown.code, unknown.message) == (-32002, "Resource not found: devicedb://models/NOPE1")
    assert by_tool == by_service == ResourceUpdated(uri=FIND)
    assert revision == "2026-07-28"  # not an event: CPH2411's stream heard nothing, nor the stream after
