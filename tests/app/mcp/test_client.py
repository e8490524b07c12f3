"""MCP: the client against a reference server nobody here wrote, our own server, and a misbehaving one."""

from __future__ import annotations

import json
import sys
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest

from agent.agent import ChatAgent
from agent.guards import envelope_of
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import ToolRegistry
from agent.types import ConfigError, ToolContext
from app.mcp.client import Person, ServerConfig, load_servers
from app.mcp.tool import exposed_name
from app.mcp.toolset import McpToolset
from tests.agent.test_tools import Echo
from tests.conftest import ROOT, clean_env, run_main, start_http_server
from tests.support.fake_llm import call, text, tool_calls
from tests.support.zygote import helper_server

CTX = ToolContext(user_id="alice", run_id="run1")
TIME = ServerConfig(
    name="time",
    command=sys.executable,
    args=["-m", "mcp_server_time", "--local-timezone", "UTC"],
    trusted=True,
    timeout=20,
)
BAD = ServerConfig(
    name="bad",
    **helper_server("mcp_misbehaving_server"),
    cwd=str(ROOT),
    timeout=20,  # its start (a Python process importing the SDK) on a loaded machine, and each request
)


@contextmanager
def toolset(
    tmp_path: Path,
    *servers: ServerConfig,
    registry: ToolRegistry | None = None,
    reports=None,
    approve=True,
    person=None,
):
    """The servers' toolset; with `approve`, the person approves every tool as the chat starts."""
    reports = [] if reports is None else reports
    registry = registry or ToolRegistry(confirm=lambda *a: True)
    with McpToolset(list(servers), registry, tmp_path, reports.append, person) as mcp:
        if approve:
            mcp.sync(lambda server, lines: True)
        yield mcp


def run(registry: ToolRegistry, name: str, args: dict, call_id: str = "c1") -> dict:
    return json.loads(registry.execute_tool_call(CTX, {"name": name, "args": args, "id": call_id}))


def test_reference_time_server_through_the_agent_loop(tmp_path, fake_llm):
    registry = ToolRegistry()
    with toolset(tmp_path, TIME, registry=registry):
        offered = [t["function"]["name"] for t in registry.langchain_tools()]
        assert offered == ["time__get_current_time", "time__convert_time"]
        assert registry.get("time__get_current_time").needs_confirmation is False  # trusted + readOnlyHint
        fake_llm.add(
            tool_calls(call("time__get_current_time", {"timezone": "Asia/Shanghai"}, "call_t")),
            text("It is morning in Shanghai."),
        )
        agent = ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, user_id="alice")
        assert agent.send_message("What time is it in Shanghai?") == "It is morning in Shanghai."
    result = envelope_of(fake_llm.requests[1]["messages"][-1]["content"])
    assert result["ok"] is True
    assert result["data"]["structuredContent"]["timezone"] == "Asia/Shanghai"
    assert result["data"]["structuredContent"]["datetime"].endswith("+08:00")


def test_reference_server_errors_come_back_as_envelopes(tmp_path):
    with toolset(tmp_path, TIME) as mcp:
        bad_zone = run(mcp.registry, "time__get_current_time", {"timezone": "Mars/Base"})
        missing = run(mcp.registry, "time__get_current_time", {})
    assert (bad_zone["ok"], bad_zone["retryable"]) == (False, True)
    assert "Invalid timezone" in bad_zone["error"]
    assert (
        missing["error"]
        == "invalid arguments for 'time__get_current_time': 'timezone' is a required property"
    )


def ours(env: dict[str, str]) -> ServerConfig:
    """This project's MCP server over stdio, as a trusted server of the chat."""
    return ServerConfig(
        name="ours",
        command=sys.executable,
        args=["-m", "app.mcp_server"],
        cwd=str(ROOT),
        env=env,
        trusted=True,
        timeout=20,
    )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_our_server_with_the_official_client(tmp_path, transport, device_service):
    env = {"ADD_MODEL_URL": f"{device_service.url}/api/models", "AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    server = ours(env)
    if transport == "http":
        server = start_http_server(tmp_path, env)
    with toolset(tmp_path, server, person=Person(ask=lambda server, request: ("accept", {}))) as mcp:
        assert sorted(mcp.tools) == [
            "ours__add_device_model",
            "ours__calculator",
            "ours__current_time",
            "ours__delete_device_model",  # offered: this client can ask its person (elicitation)
            "ours__list_device_models",
            "ours__query_device_model",
            "ours__update_market_name",  # offered as the delete is: it overwrites
        ]
        assert mcp.tools["ours__query_device_model"].needs_confirmation is False  # readOnlyHint
        assert mcp.tools["ours__add_device_model"].needs_confirmation is False  # destructiveHint false
        assert "createdBy" not in mcp.tools["ours__add_device_model"].parameters["properties"]
        assert run(mcp.registry, "ours__calculator", {"expression": "6*7"})["data"]["structuredContent"] == {
            "expression": "6*7",
            "result": 42,
        }
        added = run(mcp.registry, "ours__add_device_model", {"model": "CPH2223IN"})
        refused = run(mcp.registry, "ours__calculator", {"expression": "1/0"})
    assert added["data"]["structuredContent"]["model"] == "CPH2223"
    assert device_service.store.get("CPH2223")["createdBy"]
    assert refused == {"ok": False, "error": "cannot compute '1/0': division by zero", "retryable": True}


def test_a_crash_mid_call_is_retryable_and_the_server_comes_back(tmp_path):
    with toolset(tmp_path, BAD) as mcp:
        started = time.monotonic()
        crashed = run(mcp.registry, "bad__crash", {})
        assert time.monotonic() - started < 15  # reported, not waited out
        assert (crashed["ok"], crashed["retryable"]) == (False, True)
        assert "it will be restarted on next use" in crashed["error"]
        assert "not repeated" in crashed["error"]
        assert run(mcp.registry, "bad__echo", {"text": "again"}) == {"ok": True, "data": "echo:again"}


def test_a_hung_call_times_out_and_the_next_call_works(tmp_path):
    with toolset(tmp_path, BAD) as mcp:
        mcp.connections["bad"].config = replace(BAD, timeout=3)  # started: now each request waits 3 s
        started = time.monotonic()
        hung = run(mcp.registry, "bad__hang", {})
        assert 2.5 < time.monotonic() - started < 30  # the 3 s timeout fired
        assert (hung["ok"], hung["retryable"]) == (False, True)
        assert "no answer within 3s" in hung["error"]
        assert run(mcp.registry, "bad__echo", {"text": "x"})["ok"] is True


def test_an_untrusted_servers_tools_wait_for_the_persons_approval_even_at_start(tmp_path):
    asked = []
    with toolset(tmp_path, BAD, approve=False) as mcp:
        assert mcp.tools == {}  # nothing reaches the model before the person says yes
        mcp.sync(lambda server, lines: asked.append((server, lines)) or False)
        assert mcp.tools == {} and asked[0][0] == "bad"
        assert "bad__echo (new): '[MCP server bad] Echo text.'" in asked[0][1]
    with toolset(tmp_path, BAD, approve=False) as mcp:
        mcp.sync(lambda server, lines: True)
        assert "bad__echo" in mcp.tools
    with toolset(tmp_path, BAD, approve=False) as mcp:  # approved definitions are remembered
        assert "bad__echo" in mcp.tools
        mcp.sync(lambda server, lines: pytest.fail("nothing new, nothing to ask"))


def test_new_and_changed_tools_wait_and_the_person_sees_what_changed(tmp_path):
    asked = []
    with toolset(tmp_path, BAD) as mcp:
        assert run(mcp.registry, "bad__grow", {})["ok"] is True
        time.sleep(0.3)
        mcp.sync(lambda server, lines: asked.append(lines) or False)
        assert "bad__surprise" not in mcp.tools
        assert asked == [["bad__surprise (new): '[MCP server bad] New.'"]]
        run(mcp.registry, "bad__morph", {"text": "x"})  # a rug pull: the definition changes after approval
        time.sleep(0.3)
        mcp.sync(lambda server, lines: asked.append(lines) or False)
        assert "bad__morph" not in mcp.tools and mcp.registry.get("bad__morph") is None
        assert asked[-1][0].startswith("bad__morph changed: description '[MCP server bad] Formats text.' ->")
        assert "evil.example" in asked[-1][0]
    morphed = ServerConfig(**{**BAD.__dict__, "env": {"MORPHED": "1"}})
    with toolset(tmp_path, morphed, approve=False) as mcp:  # a restart does not forget
        assert "bad__morph" not in mcp.tools and "bad__echo" in mcp.tools


def test_policy_and_a_poisoned_description(tmp_path):
    allowed = ServerConfig(**{**BAD.__dict__, "allow": ["echo"]})
    with toolset(tmp_path, allowed) as mcp:
        helper = mcp.tools["bad__helper"]
        assert len(helper.description) <= 1024 + 30
        assert "\x07" not in helper.description
        assert helper.description.startswith("[MCP server bad] Helps.")
        assert helper.needs_confirmation is True  # untrusted server: every tool, annotations or not
        assert mcp.tools["bad__echo"].needs_confirmation is False  # allowed by name


def test_names_are_sanitized_deterministic_and_never_shadow_local_tools(tmp_path):
    registry, reports = ToolRegistry(), []

    class Local(Echo):
        name = "bad__echo"

    registry.register(Local())
    with toolset(tmp_path, BAD, registry=registry, reports=reports) as mcp:
        assert isinstance(registry.get("bad__echo"), Local)
        assert reports == ["MCP tool 'bad__echo' skipped: a local tool has that name"]
        assert {mcp.tools[n].remote.name for n in mcp.tools if n.startswith("bad__a_b")} == {"a.b", "a_b"}
    assert (
        exposed_name("bad", "a.b") == exposed_name("bad", "a.b") != exposed_name("bad", "a_b") == "bad__a_b"
    )
    long = exposed_name("s" * 40, "t" * 40)
    assert len(long) == 64 and long == exposed_name("s" * 40, "t" * 40) != exposed_name("s" * 40, "t" * 41)


def test_images_are_described_and_structured_content_kept(tmp_path):
    with toolset(tmp_path, BAD) as mcp:
        data = run(mcp.registry, "bad__picture", {})["data"]
    assert data["content"][0] == "a red dot"
    assert data["content"][1] == "[image: image/png, about 900 bytes, not shown]"
    assert data["structuredContent"] == {"width": 1, "height": 1}


def test_resources_and_prompts(tmp_path):
    with toolset(tmp_path, BAD) as mcp:
        assert [(s, str(r.uri)) for s, r in mcp.resources()] == [
            ("bad", "memo://readme"),
            ("bad", "memo://big"),
        ]
        assert mcp.read("memo://readme") == "remember CPH2223"
        assert [(s, p.name) for s, p in mcp.prompts()] == [("bad", "add")]
        assert mcp.prompt("add", {"model": "CPH2411"}) == [
            ("user", "Please add device model CPH2411 to the database")
        ]


def test_a_resource_or_a_prompt_brings_at_most_16_kib_into_the_conversation(tmp_path):
    with toolset(tmp_path, BAD) as mcp:
        read = mcp.read("memo://big")
        [(role, prompt)] = mcp.prompt("add", {"model": "y" * 100_000})
    for said in (read, prompt):
        kept = said[: said.index("…[truncated")]
        assert len(kept) == 16 * 1024, len(kept)
        assert said.endswith("more characters]") and len(said) < 16 * 1024 + 60


def test_a_server_that_fails_to_start_is_reported_and_skipped(tmp_path):
    reports = []
    broken = ServerConfig(name="broken", command="/nonexistent/server", timeout=3)
    with toolset(tmp_path, broken, TIME, reports=reports) as mcp:
        assert sorted(mcp.tools) == ["time__convert_time", "time__get_current_time"]
    assert len(reports) == 1
    assert reports[0].startswith(
        "MCP server 'broken' skipped: MCP server 'broken' did not start: FileNotFoundError"
    )


def test_config_file_format(tmp_path):
    path = tmp_path / "mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {
                        "command": "python",
                        "args": ["-m", "mcp_server_time"],
                        "trusted": True,
                        "type": "stdio",
                    },
                    "remote": {
                        "url": "http://127.0.0.1:1/mcp",
                        "headers": {"Authorization": "Bearer x"},
                        "allow": ["a"],
                    },
                }
            }
        )
    )
    time_server, remote = load_servers(path)
    assert (time_server.command, time_server.args, time_server.trusted) == (
        "python",
        ["-m", "mcp_server_time"],
        True,
    )
    assert (remote.url, remote.headers, remote.allow, remote.trusted) == (
        "http://127.0.0.1:1/mcp",
        {"Authorization": "Bearer x"},
        ["a"],
        False,
    )
    path.write_text(json.dumps({"mcpServers": {"x": {"args": []}}}))
    with pytest.raises(ConfigError, match='needs a "command" or a "url"'):
        load_servers(path)


def test_main_with_the_reference_time_server(tmp_path, fake_llm):
    config = tmp_path / "mcp_servers.json"
    config.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"], "trusted": True}
                }
            }
        )
    )
    fake_llm.add(
        tool_calls(call("time__get_current_time", {"timezone": "Asia/Shanghai"}, "call_t")),
        text("上海现在是早上。"),
    )
    done = run_main(
        "-m",
        "上海现在几点？",
        cwd=tmp_path,
        env=clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db")),
    )
    assert (done.returncode, done.stdout) == (0, "上海现在是早上。\n"), done.stderr
    assert "time__get_current_time" in [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]
    result = envelope_of(fake_llm.requests[1]["messages"][-1]["content"])
    assert result["data"]["structuredContent"]["timezone"] == "Asia/Shanghai"
    assert result["data"]["structuredContent"]["datetime"].endswith("+08:00")
