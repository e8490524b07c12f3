"""The serving page's examples (docs/serving.md and docs/serving.en.md) run against `main.py serve` on the
scripted LLM: its `py` blocks (they need a running server, so the README test, which runs `python` blocks,
leaves them here) print what the page shows, and its curl calls answer in OpenAI's shape."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess

import pytest

from tests.conftest import clean_env
from tests.project.test_readme import PAGES, blocks, every_block
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import ServedAgent, devices

PAGE_URL = "http://127.0.0.1:8080"


@pytest.fixture
def agent(fake_llm, tmp_path, monkeypatch):
    # started as the README starts it: a new interpreter (the other tests fork theirs from the zygote)
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), fresh=True) as agent:
        monkeypatch.setenv("AGENT_KEY", agent.key("alice"))
        yield agent


def examples() -> list[tuple[str, str]]:
    """(code, what the page shows it prints) of each `py` block, on every page."""
    found = []
    for page in PAGES:
        listed = blocks(page)
        for i, (lang, code) in enumerate(listed):
            if lang == "py":
                assert listed[i + 1][0] == "text", page
                found.append((code, listed[i + 1][1]))
    return found


def test_the_python_example_prints_what_the_page_shows(agent, fake_llm):
    shown_in = examples()
    assert len(shown_in) >= 2  # one in each language
    for code, shown in shown_in:
        fake_llm.add(
            tool_calls(call("add_device_model", {"model": "CPH2223"}, "c1")),
            text("Added CPH2223 to the database."),
            text("alice added it."),
        )
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code.replace(PAGE_URL, agent.url), "serving page py block", "exec"), {})
        assert out.getvalue() == shown
        assert devices(agent.database) == [("CPH2223", "alice")]
        assert [m["content"] for m in fake_llm.requests[-1]["messages"] if m["role"] == "user"] == [
            "Add model CPH2223 to the database",
            "Who added it?",
        ]


def test_the_curl_calls_answer_in_openais_shape(agent, fake_llm):
    assert shutil.which("curl"), "curl is missing: `make test` installs it (make curl)"
    bash = [code for lang, code in every_block() if lang == "bash"]
    calls = [code for code in bash if "curl -s http://127.0.0.1:8080/v1/" in code]
    assert len(calls) >= 2  # one in each language
    for code in calls:
        command = code[code.index("curl -s") :].replace(PAGE_URL, agent.url)
        fake_llm.add(text("No models yet."))
        env = clean_env(AGENT_KEY=os.environ["AGENT_KEY"])
        done = subprocess.run(["bash", "-c", command], env=env, capture_output=True, text=True, timeout=60)
        answer = json.loads(done.stdout)
        assert answer["choices"][0]["message"] == {
            "role": "assistant",
            "content": "No models yet.",
            "refusal": None,
        }
        assert answer["conversation_id"].startswith("conv_") and answer["agent_tool_calls"] == []


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
