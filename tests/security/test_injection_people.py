"""MCP under `serve`, with several people: each call acts for its person, an `mcp:<server>` permission
is checked, and a server that does not say whom it acts for is refused before serving starts. Each
attack has its benign twin.

The server is a notes server (`tests/support/mcp_notes_server.py`) that keeps each person's notes by
AGENT_USER.
Served on one shared connection, as before, the notes of alice would reach bob, and carol, who may use
no server, would write through it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import openai
import pytest

from app.mcp.client import load_servers
from app.mcp.people import check_several_people
from tests.conftest import ROOT, clean_env
from tests.support.fake_llm import FakeLLM, call, text, tool_calls
from tests.support.serve_support import ServedAgent
from tests.support.zygote import helper_server

PERMISSIONS = {
    "default": [],
    "users": {"alice": ["mcp:notes", "mcp:bad"], "bob": ["mcp:notes"], "carol": []},
}
SECRET = "alice-pin-4321"


def notes_server(notes_file, users: str | None) -> dict:
    entry = {
        **helper_server("mcp_notes_server"),
        "env": {"NOTES_FILE": str(notes_file), "AGENT_USER": "whoever-the-entry-says"},
        "trusted": True,
        "allow": ["write_note", "read_notes"],
    }
    return {**entry, "users": users} if users else entry


def configure(tmp_path, users: str | None) -> dict[str, str]:
    (tmp_path / "permissions.json").write_text(json.dumps(PERMISSIONS))
    changing = {  # a server that adds a tool when `grow` is called, and changes `morph` when it is
        **helper_server("mcp_misbehaving_server"),
        "trusted": True,
        "allow": ["grow", "morph", "echo"],
        "users": "shared",
    }
    servers = {"mcpServers": {"notes": notes_server(tmp_path / "notes.json", users), "bad": changing}}
    (tmp_path / "mcp_servers.json").write_text(json.dumps(servers))
    return {"PERMISSIONS_FILE": str(tmp_path / "permissions.json"), "AGENT_USER": "operator"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("people")
    env = configure(tmp, "per-person")
    with FakeLLM() as llm, ServedAgent(llm.url, tmp, str(tmp / "agent.db"), **env) as agent:
        agent.llm = llm
        agent.keys = {user: agent.key(user) for user in ("alice", "bob", "carol")}
        yield agent


def turn(agent: ServedAgent, user: str, tool: str, args: dict, server: str = "notes") -> dict:
    """One turn of `user` in which the model calls `server`'s `tool`: the call as the host ran it."""
    agent.llm.add(tool_calls(call(f"{server}__{tool}", args, f"c_{user}")), text("Done."))
    client = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=agent.keys[user], max_retries=0)
    answer = client.chat.completions.create(
        model="tool-use-agent", messages=[{"role": "user", "content": f"{tool} {json.dumps(args)}"}]
    )
    [ran] = answer.model_extra["agent_tool_calls"]
    return ran["result"]


def notes(agent: ServedAgent) -> dict:
    path = agent.cwd / "notes.json"
    return json.loads(path.read_text()) if path.exists() else {}


def test_each_person_reaches_only_their_own_notes(served):
    written = turn(served, "alice", "write_note", {"text": SECRET})
    assert written["ok"], written
    assert notes(served) == {"alice": [SECRET]}  # as alice: not the operator, not what the entry says

    twin = turn(served, "alice", "read_notes", {})  # the benign twin: alice reads hers
    assert twin["ok"] and SECRET in json.dumps(twin["data"])

    attack = turn(served, "bob", "read_notes", {})  # bob asks the same server for "the notes"
    assert attack["ok"], attack
    assert SECRET not in json.dumps(attack["data"])


def test_a_person_without_the_servers_permission_is_refused_and_nothing_is_written(served):
    before = notes(served)
    refused = turn(served, "carol", "write_note", {"text": "carol was here"})
    assert not refused["ok"] and "mcp:notes" in refused["error"], refused
    assert notes(served) == before

    twin = turn(served, "bob", "write_note", {"text": "bob's note"})  # bob holds mcp:notes
    assert twin["ok"] and notes(served)["bob"] == ["bob's note"]


def test_tools_a_server_adds_or_changes_while_serving_are_not_offered(served):
    assert turn(served, "alice", "grow", {}, "bad")["ok"]  # the attack: a trusted server adds `surprise`
    assert turn(served, "alice", "morph", {}, "bad")["ok"]  # and rewrites `morph`'s description
    time.sleep(1)  # the change notifications arrive on the server's stream
    added = turn(served, "alice", "surprise", {}, "bad")
    changed = turn(served, "alice", "morph", {}, "bad")
    assert not added["ok"] and not changed["ok"], (added, changed)
    assert "tools not offered" in served.log() and "surprise" in served.log()
    assert turn(served, "alice", "echo", {"text": "hi"}, "bad")["ok"]  # the twin: an unchanged tool runs


def test_a_server_that_does_not_say_whom_it_acts_for_is_refused_by_serve(tmp_path):
    env = clean_env(LLM_BASE_URL="http://127.0.0.1:9/v1", AGENT_DB=str(tmp_path / "agent.db"))
    env.update(configure(tmp_path, None))
    command = [sys.executable, str(ROOT / "main.py"), "serve", "--port", "0"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "MCP server 'notes'" in line and '"users": "per-person"' in line and '"shared"' in line


def test_a_shared_server_serves_everyone_as_the_operator(tmp_path):
    env = configure(tmp_path, "shared")
    with FakeLLM() as llm, ServedAgent(llm.url, tmp_path, str(tmp_path / "agent.db"), **env) as agent:
        agent.llm = llm
        agent.keys = {user: agent.key(user) for user in ("alice", "bob")}
        assert turn(agent, "alice", "write_note", {"text": "for the team"})["ok"]
        assert notes(agent) == {"operator": ["for the team"]}
        shared = turn(agent, "bob", "read_notes", {})
        assert shared["ok"] and "for the team" in json.dumps(shared["data"])


@pytest.mark.parametrize("page", ["mcp.md", "mcp.en.md"])
def test_the_docs_example_is_what_serve_accepts(tmp_path, page):
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    [example] = [b for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL) if '"users"' in b]
    (tmp_path / "mcp_servers.json").write_text(example)
    servers = load_servers(tmp_path / "mcp_servers.json")
    check_several_people(servers, "mcp_servers.json")
    assert {s.name: s.users for s in servers} == {"time": "shared", "devices": "per-person"}
