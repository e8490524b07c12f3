"""The serving page's examples (docs/serving.md and docs/serving.en.md) run as pasted. "Try it", as a newcomer
runs it: the first terminal's block makes a key with `main.py keys add` and starts `main.py serve` with the
page's arguments, on the embedded demo model (no key, a fresh database); the second terminal's curl answers
in OpenAI's shape, and the `py` block, alone in a new interpreter, prints exactly what the page shows. The
A2A curl, on the scripted LLM: sent twice, the same task, run once."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, clean_env
from tests.project.test_readme import blocks, every_block
from tests.support.fake_llm import text
from tests.support.serve_support import ServedAgent, devices

PAGE_URL = "http://127.0.0.1:8080"
PAGES = [ROOT / "docs" / "serving.md", ROOT / "docs" / "serving.en.md"]
LISTED = {"serving.md": "数据库里还没有机型。", "serving.en.md": "The database has no models yet."}


def try_it(page) -> dict[str, tuple[str, str]]:
    """The page's blocks after "Try it": `serve` (the first terminal's), `curl` (the second's) and `py`,
    each (code, the text block after it)."""
    found = blocks(page)
    shown = {}
    for i, (lang, code) in enumerate(found):
        after = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text" else ""
        if lang == "bash" and "main.py serve" in code:
            shown["serve"] = (code, after)
        elif lang == "bash" and "curl -s " + PAGE_URL + "/v1/" in code:
            shown["curl"] = (code, after)
        elif lang == "py":
            shown["py"] = (code, after)
    assert set(shown) == {"serve", "curl", "py"}, page
    return shown


@pytest.fixture(params=PAGES, ids=lambda page: page.name)
def page(request):
    return request.param


def test_the_pages_try_it_runs_against_a_real_served_agent(page, tmp_path):
    """Issues: the page did not say the curl needs a second terminal, its Python example showed a scripted
    model's output (the demo asks for approval first), and the English page spoke of two curl calls."""
    examples = try_it(page)
    serve, _ = examples["serve"]
    lines = [line.split("#")[0].strip() for line in serve.strip().splitlines()]
    assert lines[0] == ". .venv/bin/activate" and lines[-1].startswith("python main.py serve")  # runs on
    assert "curl" not in serve and "export AGENT_KEY=" in examples["curl"][0]  # in a second terminal
    arguments = shlex.split(lines[-1])[3:]
    assert arguments[:2] == ["--port", "8080"], arguments
    workers = int(arguments[arguments.index("--workers") + 1]) if "--workers" in arguments else 1
    with ServedAgent("", tmp_path, str(tmp_path / "agent.db"), workers=workers, fresh=True) as agent:
        key = keys_add(serve, agent)
        said = curl(examples["curl"][0], agent, key)
        assert said == LISTED[page.name]
        code, shown = examples["py"]
        done = subprocess.run(
            [sys.executable, "-c", code.replace(PAGE_URL, agent.url)],
            env=clean_env(AGENT_KEY=key),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout == shown
        assert devices(agent.database) == [("CPH2223", "alice")]


def keys_add(serve: str, agent: ServedAgent) -> str:
    """The key `python main.py keys add alice` prints on its last line, as the page runs it."""
    command = next(line for line in serve.splitlines() if "main.py keys add" in line).split("#")[0]
    argv = shlex.split(command)
    assert argv[:2] == ["python", "main.py"], command
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *argv[2:]],
        cwd=agent.cwd,
        env=agent.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    key = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"sk-agent-\S+", key), done.stdout
    return key


def curl(block: str, agent: ServedAgent, key: str) -> str:
    """The answer's text of the page's curl call, checked to be in OpenAI's shape."""
    assert shutil.which("curl"), "curl is missing: `make test` installs it (make curl)"
    command = block[block.index("curl -s") :].replace(PAGE_URL, agent.url)
    done = subprocess.run(
        ["bash", "-c", command], env=clean_env(AGENT_KEY=key), capture_output=True, text=True, timeout=120
    )
    answer = json.loads(done.stdout)
    message = answer["choices"][0]["message"]
    assert (message["role"], message["refusal"]) == ("assistant", None)
    assert answer["conversation_id"].startswith("conv_") and answer["agent_tool_calls"][0]["result"]["ok"]
    return message["content"]


@pytest.fixture
def agent(fake_llm, tmp_path, monkeypatch):
    # started as the README starts it: a new interpreter (the other tests fork theirs from the zygote)
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), fresh=True) as agent:
        monkeypatch.setenv("AGENT_KEY", agent.key("alice"))
        yield agent


def test_the_a2a_curl_works_as_pasted_and_sent_again_answers_with_the_same_task(agent, fake_llm):
    calls = [code for lang, code in every_block() if lang == "bash" and "8080/a2a" in code]
    assert len(calls) >= 2  # one in each language
    for code in calls:
        command = code[code.index("curl -s") :].replace(PAGE_URL, agent.url)
        command = command.replace('"msg-1"', f'"msg-{len(fake_llm.requests)}"')  # each page its own task
        env = clean_env(AGENT_KEY=os.environ["AGENT_KEY"])
        fake_llm.add(text("No models yet."))
        asked = len(fake_llm.requests)
        tasks = []
        for _ in range(2):  # pasted twice: the same task, run once
            pasted = subprocess.run(["bash", "-c", command], env=env, capture_output=True, timeout=60)
            tasks.append(json.loads(pasted.stdout)["result"]["task"])
        assert tasks[0]["status"]["state"] == "TASK_STATE_COMPLETED"
        assert tasks[0]["artifacts"][0]["parts"] == [{"text": "No models yet."}]
        assert (tasks[1]["id"], tasks[1]["contextId"]) == (tasks[0]["id"], tasks[0]["contextId"])
        assert len(fake_llm.requests) == asked + 1
        headless = command.replace('-H "A2A-Version: 1.0"', "")
        done = subprocess.run(["bash", "-c", headless], env=env, capture_output=True, text=True, timeout=60)
        assert json.loads(done.stdout)["error"]["code"] == -32009  # what the page says the header is for
