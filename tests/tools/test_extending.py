"""The README's "add a tool" steps, followed literally on a copy of `tools/`: the new tool reaches the
model in a chat turn, the embedded demo model (no key) calls it on a plain request for it and asks for the
city when none is given, `/tools` lists it, and the MCP server publishes it with the right annotations."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agent.guards import envelope_of
from agent.tools import ToolRegistry
from agent.types import ToolContext
from app.mcp.client import ServerConfig
from app.mcp.toolset import McpToolset
from tests.conftest import ROOT, clean_env
from tests.project.test_readme import blocks
from tests.support.fake_llm import call, text, tool_calls


def readme_steps() -> tuple[str, str, str]:
    """(the new file's path, its code, the diff for tools/__init__.py), as the README shows them (in its
    中文 part; the English part points to the same blocks)."""
    path, code = next(
        (code.split("\n", 1)[0][2:], code) for lang, code in blocks() if lang == "python" and code[:2] == "# "
    )
    diff = next(code for lang, code in blocks() if lang == "diff")
    return path, code, diff


def apply(diff: str, original: str) -> str:
    """Apply a diff made of context lines, `+` lines and `@@` hunk separators (what the README uses)."""
    lines, at = original.split("\n"), -1
    for line in diff.rstrip("\n").split("\n"):
        if line.startswith("@@"):
            continue
        if line.startswith("+"):
            at += 1
            lines.insert(at, line[1:])
        else:
            at = lines.index(line[1:], at + 1)  # the context must be there, in order
    return "\n".join(lines)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A folder whose `tools/` is the project's, with the README's two steps done to it."""
    root = tmp_path_factory.mktemp("extended")
    shutil.copytree(ROOT / "tools", root / "tools", ignore=shutil.ignore_patterns("__pycache__"))
    path, code, diff = readme_steps()
    assert path == "tools/weather.py"
    (root / path).write_text(code, encoding="utf-8")
    init = root / "tools" / "__init__.py"
    init.write_text(apply(diff, init.read_text(encoding="utf-8")), encoding="utf-8")
    return root


def run_chat(project: Path, *args: str, env: dict[str, str], stdin: str | None = None):
    """main.py run from `project`, so `import tools` finds the extended copy first."""
    return subprocess.run(
        [sys.executable, "-c", "import sys, main; sys.exit(main.main(sys.argv[1:]))", *args],
        cwd=project,
        env={**env, "PYTHONPATH": f"{project}:{ROOT}"},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_diff_adds_an_import_and_one_line_to_the_list(project):
    changed = (project / "tools" / "__init__.py").read_text(encoding="utf-8")
    assert "from tools.weather import WeatherTool\n" in changed
    assert re.search(r"CurrentTimeTool\(\),\n +WeatherTool\(\),\n +\]", changed)


def test_a_chat_turn_offers_and_calls_the_new_tool(project, fake_llm, tmp_path):
    fake_llm.add(tool_calls(call("get_weather", {"city": "北京"}, "call_w1")), text("北京今天晴，22°C。"))
    env = clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db"))
    done = run_chat(project, "-m", "北京今天天气怎么样？", env=env)
    assert (done.returncode, done.stdout) == (0, "北京今天晴，22°C。\n"), done.stderr
    first = fake_llm.requests[0]
    assert "get_weather" in [t["function"]["name"] for t in first["tools"]]
    assert "- get_weather: 查询指定城市的实时天气" in first["messages"][0]["content"]
    result = fake_llm.requests[1]["messages"][-1]
    assert (result["role"], result["tool_call_id"]) == ("tool", "call_w1")
    assert envelope_of(result["content"]) == {
        "ok": True,
        "data": {"city": "北京", "weather": "晴", "temperature_c": 22},
    }


@pytest.mark.parametrize(
    "said, city",
    [
        ("北京天气怎么样？", "北京"),
        ("weather in Paris please", "Paris"),
        ("帮我看看 London 的天气", "London"),
    ],
)
def test_the_demo_model_calls_the_new_tool_with_no_key(project, tmp_path, said, city):
    done = run_chat(project, "-m", said, env=clean_env(DEVICE_DB=str(tmp_path / "d.db")))
    assert done.returncode == 0, done.stderr
    assert f'get_weather({{"city": "{city}"}})' in done.stderr  # the call, as the chat shows it
    zh = any("\u3400" <= ch <= "\u9fff" for ch in said)  # the result in the person's language, no JSON
    colon, sep = ("：", "，") if zh else (": ", ", ")
    assert f"get_weather{colon}city {city}{sep}weather 晴{sep}temperature_c 22" in done.stdout


def test_the_demo_model_asks_for_the_city_and_runs_nothing(project, tmp_path):
    done = run_chat(
        project, "-m", "what's the weather like?", env=clean_env(DEVICE_DB=str(tmp_path / "d.db"))
    )
    assert done.returncode == 2, done.stderr  # -m: the question on stdout, exit 2
    assert done.stdout == "To get weather, what is the city?\n" and "get_weather(" not in done.stderr


def test_slash_tools_lists_the_new_tool(project, fake_llm, tmp_path):
    env = clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db"))
    done = run_chat(project, env=env, stdin="/tools\n")
    assert done.returncode == 0, done.stderr
    assert (
        "  get_weather: 查询指定城市的实时天气。用户问天气时使用；不要用它查其他信息。"
        in done.stdout.splitlines()
    )


def test_the_mcp_server_publishes_the_new_tool_as_read_only(project, tmp_path):
    server = ServerConfig(
        name="ours",
        command=sys.executable,
        args=["-m", "app.mcp_server"],
        cwd=str(project),
        env={**clean_env(DEVICE_DB=str(tmp_path / "d.db")), "PYTHONPATH": f"{project}:{ROOT}"},
        trusted=True,
        timeout=30,
    )
    registry = ToolRegistry()
    with McpToolset([server], registry, tmp_path, print) as mcp:
        weather = mcp.tools["ours__get_weather"]
        hints = weather.remote.annotations
        assert (hints.read_only_hint, hints.destructive_hint) == (True, False)
        assert weather.needs_confirmation is False
        ctx = ToolContext(user_id="alice", run_id="r1")
        answer = registry.execute_tool_call(
            ctx, {"name": "ours__get_weather", "args": {"city": "北京"}, "id": "c1"}
        )
    assert json.loads(answer)["data"]["structuredContent"] == {
        "city": "北京",
        "weather": "晴",
        "temperature_c": 22,
    }
