"""The embedded model, for real: llama.cpp's server (xllamacpp) with SmolLM2-135M on loopback, its chat
template as rendered by the runtime, and `main.py` turns with no key (the suite's slow part: it checks
outcomes, never times; the turn deadline of a local model is generous)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
from langchain_core.messages import HumanMessage

from agent.llm_wrapper import CustomLLMWrapper
from app.models.embedded.runtime import LocalModelServer, shipped_model_file
from tests.conftest import ROOT, clean_env, run_main

pytestmark = pytest.mark.local_model

HISTORY = [
    {"role": "system", "content": "You help."},
    {"role": "user", "content": "把机型 CPH2223 添加到数据库"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "add_device_model",
                    "arguments": '{"model": "CPH2223", "marketName": "\\"A\\" <b> & C"}',
                },
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true, "data": {"model": "CPH2223"}}'},
    {"role": "assistant", "content": 'Added "CPH2223" <ok> & done.'},
    {"role": "user", "content": "谢谢"},
]
RENDERED = """<|im_start|>system
You help.<|im_end|>
<|im_start|>user
把机型 CPH2223 添加到数据库<|im_end|>
<|im_start|>assistant
{"tool": "add_device_model", "arguments": {"model": "CPH2223", "marketName": "\\"A\\" <b> & C"}}<|im_end|>
<|im_start|>tool
{"ok": true, "data": {"model": "CPH2223"}}<|im_end|>
<|im_start|>assistant
Added "CPH2223" <ok> & done.<|im_end|>
<|im_start|>user
谢谢<|im_end|>
<|im_start|>assistant
"""


@pytest.fixture(scope="module")
def server():
    with LocalModelServer() as running:
        yield running


def render(server: LocalModelServer, **kwargs) -> str:
    root = server.base_url.removesuffix("/v1")
    return requests.post(f"{root}/apply-template", json={"messages": HISTORY, **kwargs}, timeout=60).json()[
        "prompt"
    ]


def test_llama_cpp_runs_one_thread_per_core(server):
    """docs/embedded: one thread per core (of those this process may run on), as llama.cpp's log says."""
    server.log.seek(0)
    said = re.findall(r"threadpool init, n_threads = (\d+)", server.log.read().decode(errors="replace"))
    assert said and {int(n) for n in said} == {len(os.sched_getaffinity(0))}, said


def test_the_model_file_ships_in_a_package():
    path = shipped_model_file()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000


def test_the_template_shows_earlier_calls_and_results_unescaped(server):
    assert render(server) == RENDERED


def test_any_gguf_runs_the_same_way_with_its_own_template(tmp_path):
    own = tmp_path / "my-model.gguf"
    own.symlink_to(shipped_model_file())  # another file: LOCAL_MODEL's path, with the model's own template
    with LocalModelServer(own) as other:
        assert other.model_name == "my-model"
        prompt = render(other)
        assert prompt.startswith("<|im_start|>system\nYou help.<|im_end|>\n<|im_start|>user\n")
        assert '"tool":' not in prompt  # SmolLM2's own template knows nothing of tools
    with pytest.raises(Exception, match="LOCAL_MODEL=.* is not a file"):
        LocalModelServer(tmp_path / "missing.gguf")


TOOL = {"name": "calculator", "description": "Sums.", "parameters": {"type": "object", "properties": {}}}


def test_a_gguf_without_a_template_runs_with_the_one_local_model_template_names(tmp_path):
    own = tmp_path / "my-model.gguf"
    own.symlink_to(shipped_model_file())
    gemma = ROOT / "benchmarks" / "models" / "gemma3.jinja"  # the third scorecard's (make eval-gemma)
    with LocalModelServer(own, template=gemma) as other:
        prompt = render(other)
        offered = render(other, tools=[{"type": "function", "function": TOOL}])
    assert "<start_of_turn>user\nYou help.\n\n" in prompt and "<|im_start|>" not in prompt.removeprefix(
        "<|im_start|>"
    )
    assert '<start_of_turn>model\n<tool_call>{"name": "add_device_model", "arguments": {' in prompt
    assert prompt.endswith("<start_of_turn>model\n")
    listed = offered.split("<start_of_turn>user\n", 1)[1].split("<end_of_turn>")[0]  # the first user turn
    assert listed.startswith("You help.\n\nYou may call these functions.") and json.dumps(TOOL) in listed
    with pytest.raises(Exception, match="LOCAL_MODEL_TEMPLATE=.* is not a file"):
        LocalModelServer(own, template=tmp_path / "missing.jinja")
    alone = run_main("-m", "hi", cwd=tmp_path, env=clean_env(LOCAL_MODEL_TEMPLATE=str(gemma)), timeout=120)
    said = "error: LOCAL_MODEL_TEMPLATE is the template of the GGUF LOCAL_MODEL names: set LOCAL_MODEL too"
    assert (alone.returncode, alone.stderr.strip().splitlines()) == (2, [said])


def test_two_servers_at_once_do_not_collide():
    servers = [LocalModelServer(), LocalModelServer()]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(LocalModelServer.start, servers))
    try:
        assert servers[0].base_url != servers[1].base_url
        for server in servers:
            assert requests.get(f"{server.base_url}/models", timeout=10).ok
    finally:
        for server in servers:
            server.stop()
    assert all(s.process is not None and s.process.poll() is not None for s in servers)


def test_the_server_has_its_own_session_and_comes_back_after_it_is_killed():
    """Ctrl-C goes to the terminal's process group: the server is not in it. Killed anyway, it is
    reported in one line and started again on its port, where the chat model looks."""
    said: list[str] = []
    with LocalModelServer(report=said.append) as server:
        first, url = server.process, server.base_url
        assert first is not None and os.getsid(first.pid) == first.pid != os.getsid(0)
        os.kill(first.pid, signal.SIGKILL)
        give_up_at = time.monotonic() + 60
        while server.restarts == 0 and time.monotonic() < give_up_at:
            time.sleep(0.1)
        assert said == [
            "内置模型服务已退出（SIGKILL），正在重启 / "
            "the embedded model server stopped (SIGKILL); starting it again"
        ]
        assert server.base_url == url and server.process is not first
        reply = CustomLLMWrapper(base_url=url, max_tokens=8).invoke([HumanMessage("Say hi.")])
        assert reply.text.strip()  # the next turn's request is answered
    assert server.process.poll() is not None


def rows(folder: Path) -> list[tuple]:
    db = folder / "data" / "devices.db"
    if not db.exists():
        return []
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT model, marketName, marketNameEn FROM models").fetchall()


def test_no_key_adds_exactly_the_model_asked_for(tmp_path):
    done = run_main("-m", "把机型 CPH2223 添加到数据库", "--yes", cwd=tmp_path, env=clean_env(), timeout=900)
    assert done.returncode == 0, done.stderr
    assert "SmolLM2-135M" in done.stderr
    assert rows(tmp_path) == [("CPH2223", "营销名未解密", None)]
    assert done.stdout == "机型 CPH2223 已添加到数据库（营销名：营销名未解密，即暂无营销名）。\n"


def test_no_key_a_question_writes_nothing_and_answers_truthfully(tmp_path):
    done = run_main("-m", "数据库里有 V2145 吗？", cwd=tmp_path, env=clean_env(), timeout=900)
    assert done.returncode == 0, done.stderr
    assert rows(tmp_path) == []
    assert done.stdout == "数据库里没有匹配 V2145 的机型。\n"


def test_no_key_a_request_that_lacks_a_value_is_asked_about_and_exits_2(tmp_path):
    done = run_main("-m", "把 CPH2451 的营销名改一下", cwd=tmp_path, env=clean_env(), timeout=900)
    assert done.returncode == 2, done.stderr
    assert done.stdout.strip().endswith("是什么？")  # one short question, in the person's language
    assert rows(tmp_path) == []


def test_no_key_a_code_with_a_word_that_says_not_what_to_do_is_one_question_and_exits_2(tmp_path):
    """docs/embedded: "handle" a code is asked about (add it, or look it up?), even with --yes."""
    done = run_main(
        "-m", "could you handle XQ2231 please", "--yes", cwd=tmp_path, env=clean_env(), timeout=900
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout.count("?") == 1 and "add XQ2231" in done.stdout and "look up XQ2231" in done.stdout
    assert rows(tmp_path) == []


def test_no_key_a_write_needs_the_persons_yes(tmp_path):
    done = run_main(
        "-m", "Please add device model CPH2411 to the database", cwd=tmp_path, env=clean_env(), timeout=900
    )
    assert done.returncode == 1, done.stderr
    assert "refused (needs confirmation; use --yes)" in done.stderr
    assert done.stderr.splitlines()[-1] == (
        "error: add_device_model was not run: --yes approves writes in -m mode"
    )
    assert rows(tmp_path) == []
    asked_in_chinese = run_main("-m", "录一下 PJX110", cwd=tmp_path, env=clean_env(), timeout=900)
    assert asked_in_chinese.returncode == 1
    assert asked_in_chinese.stderr.splitlines()[-1] == (
        "error: add_device_model 没有执行：-m 模式下，加 --yes 才会执行写入"
    )
    assert rows(tmp_path) == []
    assert done.stdout == ""
