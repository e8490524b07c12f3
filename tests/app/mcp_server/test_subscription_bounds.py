"""The bounds of our MCP server's resource subscriptions, through the official SDK client, counted at the
device service (a recording proxy in front of it): a cap per session (and listen stream) and in all; one
watched model however its URI is spelled, each subscriber told under its own spelling; one request to the
device service per reading of every subscribed model; and a subscriber's models no longer read once it
is gone: its 2025 session deleted or left idle, its 2026-07-28 listen stream closed."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from app.mcp_server.subscriptions import EVERY
from tests.app.mcp_server.test_server import add
from tests.app.mcp_server.test_subscriptions import FIND, RENO, Heard, rename_through_the_service
from tests.conftest import ROOT, clean_env, start_http_server
from tests.support.recording_proxy import RecordingProxy, codes_asked

pytestmark = pytest.mark.filterwarnings("ignore:resources/(un)?subscribe is removed")
QUIET = 3 * EVERY  # the watch reads the subscribed models about three times
OTHERS = [f"RMX30{n:02d}" for n in range(1, 21)]  # twenty more models, one client's subscriptions


@pytest.fixture
def proxy(device_service):
    with RecordingProxy(device_service.url) as recording:
        yield recording


def our_server(tmp_path, proxy: RecordingProxy, **settings: str) -> str:
    """Our MCP server over HTTP, reading the device service through `proxy`; its URL."""
    env = {"ADD_MODEL_URL": f"{proxy.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    return start_http_server(tmp_path, {**env, **settings}).url or ""


def spellings_of_find() -> list[str]:
    """Forty-five ways to write CPH2223's URI: the code's case, separators and region suffixes,
    percent-encoding, the scheme's and the authority's case."""
    cases = ["".join(c) for c in itertools.product(*[(ch, ch.upper()) for ch in "cph"])]
    coded = [f"devicedb://models/{c}2223{s}" for c in cases for s in ("", "IN", "cn", "-eea", " Gl")]
    encoded = ["devicedb://models/CPH%32223", "devicedb://models/%63ph2223", "devicedb://models/CPH%202223"]
    return [*coded, *encoded, "DEVICEDB://models/CPH2223", "devicedb://MODELS/cph2223"]


async def reading_of(proxy: RecordingProxy, seconds: float = QUIET) -> list[tuple[str, str]]:
    """The requests our server made of the device service in the next `seconds`."""
    start = time.monotonic()
    await anyio.sleep(seconds)
    return proxy.since(start)


def codes_in(asked: list[tuple[str, str]]) -> set[str]:
    return {code for _, path in asked for code in codes_asked(path)}


def each_a_lookup_of(asked: list[tuple[str, str]], codes: set[str]) -> bool:
    """Every request is one GET naming each of `codes` once, and there are no more than the readings."""
    passes = QUIET / EVERY + 1
    one_each = all(m == "GET" and sorted(codes_asked(p)) == sorted(codes) for m, p in asked)
    return one_each and 1 <= len(asked) <= passes


def test_subscriptions_are_capped_per_session_per_stream_and_in_all(tmp_path, device_service, proxy):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    url = our_server(tmp_path, proxy, MCP_SUBSCRIPTIONS_PER_SESSION="3", MCP_SUBSCRIPTIONS="5")
    find = spellings_of_find()

    async def scenario():
        refused = []
        async with Client(url, mode="legacy") as first, Client(url, mode="auto") as second:
            for uri in find[:3]:
                await first.subscribe_resource(uri)
            await first.subscribe_resource(find[0])  # already held: no second place
            with pytest.raises(MCPError) as per_session:
                await first.subscribe_resource(find[3])
            refused.append(per_session.value)
            with pytest.raises(MCPError) as per_stream:
                async with second.listen(resource_subscriptions=[RENO, *find[4:7]]):
                    pass
            refused.append(per_stream.value)
            async with (
                second.listen(resource_subscriptions=[RENO, find[8]]),  # 5 in all now
                Client(url, mode="legacy") as third,
            ):
                with pytest.raises(MCPError) as in_all:
                    await third.subscribe_resource(RENO)
                refused.append(in_all.value)
                await first.unsubscribe_resource(find[1])
                await third.subscribe_resource(RENO)  # a place is free again
        return refused

    per_session, per_stream, in_all = anyio.run(scenario)
    assert per_session.code == per_stream.code == in_all.code == types.INVALID_REQUEST
    assert per_session.message == (
        f"Too many subscriptions: a session may hold 3; unsubscribe from one first ({find[3]})"
    )
    assert per_stream.message == "Too many subscriptions: a listen stream may name 3, this one names 4"
    assert in_all.message == "Too many subscriptions: this server holds 5 in all, its most; try again later"
    assert per_session.data == {"limit": 3, "uri": find[3]}


def test_many_spellings_are_one_watched_model_told_under_each_spelling(tmp_path, device_service, proxy):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    url = our_server(tmp_path, proxy)
    find = spellings_of_find()
    heard = Heard()

    async def scenario():
        async with Client(url, mode="legacy", message_handler=heard) as client:
            for uri in [*find, RENO]:
                await client.subscribe_resource(uri)
            asked = await reading_of(proxy)
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2223", "Find N8")
            await heard.wait_for(len(find))
            await anyio.sleep(QUIET)  # nothing more: no second notification of one spelling, none for RENO
            return asked, list(heard.uris)

    asked, uris = anyio.run(scenario)
    print(f"{len(find)} spellings and one more model: {len(asked)} requests in {QUIET:g} s")
    assert len(find) == 45
    assert each_a_lookup_of(asked, {"CPH2223", "CPH2411"}), asked
    assert sorted(uris) == sorted(find)


def test_a_deleted_session_is_no_longer_watched_and_another_hears_in_time(tmp_path, device_service, proxy):
    for model in ["CPH2223", *OTHERS]:
        add(device_service, model)
    add(device_service, "CPH2411", "OPPO Reno")
    url = our_server(tmp_path, proxy)
    heard = Heard()

    async def scenario():
        async with Client(url, mode="legacy", message_handler=heard) as staying:
            await staying.subscribe_resource(RENO)
            async with Client(url, mode="legacy") as leaving:
                for model in ["CPH2223", *OTHERS]:
                    await leaving.subscribe_resource(f"devicedb://models/{model}")
                while_there = await reading_of(proxy)
            await anyio.sleep(EVERY)  # the client has sent its DELETE: a reading already under way ends
            once_gone = await reading_of(proxy)
            renamed = time.monotonic()
            await anyio.to_thread.run_sync(rename_through_the_service, device_service, "CPH2411", "Reno 9")
            await heard.wait_for(1)
            return while_there, once_gone, time.monotonic() - renamed

    while_there, once_gone, waited = anyio.run(scenario)
    print(
        f"requests in {QUIET:g} s: {len(while_there)} with the leaving client, {len(once_gone)} after it;",
        f"the staying client heard its change {waited:.2f} s after it was made",
    )
    assert codes_in(while_there) == {"CPH2411", "CPH2223", *OTHERS}
    assert codes_in(once_gone) == {"CPH2411"}, once_gone
    assert each_a_lookup_of(while_there, {"CPH2411", "CPH2223", *OTHERS}), while_there
    assert each_a_lookup_of(once_gone, {"CPH2411"}), once_gone
    assert waited < 2 * EVERY + 0.5, waited
    assert heard.uris == [RENO]


def test_a_session_left_idle_is_no_longer_watched(tmp_path, device_service, proxy):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    url = our_server(tmp_path, proxy, MCP_SESSION_IDLE_SECONDS="2")

    async def scenario():
        async with Client(url, mode="legacy") as staying:
            await staying.subscribe_resource(RENO)
            async with Client(streamable_http_client(url, terminate_on_close=False), mode="legacy") as gone:
                await gone.subscribe_resource(FIND)  # then it leaves without a DELETE
                while_there = await reading_of(proxy, EVERY * 2)
            await anyio.sleep(2 + 2 * EVERY)  # the idle bound, then a reading already under way
            return while_there, await reading_of(proxy)

    while_there, once_idle = anyio.run(scenario)
    assert "CPH2223" in codes_in(while_there), while_there
    assert codes_in(once_idle) == {"CPH2411"}, once_idle
    assert each_a_lookup_of(once_idle, {"CPH2411"}), once_idle


def test_a_closed_listen_stream_releases_its_models(tmp_path, device_service, proxy):
    add(device_service, "CPH2223")
    add(device_service, "CPH2411", "OPPO Reno")
    url = our_server(tmp_path, proxy)

    async def scenario():
        async with Client(url, mode="auto") as client, client.listen(resource_subscriptions=[RENO]):
            async with client.listen(resource_subscriptions=[FIND, "devicedb://models/cph2223in"]):
                while_open = await reading_of(proxy)
            await anyio.sleep(EVERY)
            return while_open, await reading_of(proxy), client.protocol_version

    while_open, once_closed, revision = anyio.run(scenario)
    assert revision == "2026-07-28"
    assert codes_in(once_closed) == {"CPH2411"}, once_closed
    assert each_a_lookup_of(while_open, {"CPH2223", "CPH2411"}), while_open
    assert each_a_lookup_of(once_closed, {"CPH2411"}), once_closed


def test_a_bound_that_is_no_bound_stops_the_server_in_one_line(tmp_path):
    env = clean_env(MCP_SUBSCRIPTIONS="0", ADD_MODEL_URL="http://127.0.0.1:9/api/models")
    done = subprocess.run(
        [sys.executable, "-m", "app.mcp_server"],
        cwd=ROOT,
        env={**env, "AUDIT_LOG": str(tmp_path / "audit.jsonl")},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: MCP_SUBSCRIPTIONS: Input should be greater than or equal to 1 (given '0')"
    ]
