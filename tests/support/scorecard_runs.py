"""Helpers of the scorecard's tests: `python main.py eval` run as a person runs it against a model on
loopback, its JSON read back (and, run with an in-memory exporter, the spans it exported); a scripted model
that calls no tool and says the same to everything; and a hostile one, the control with a made-up tool
whose name and call id carry the person's words, terminal escapes and a bidi override, and escapes in
every answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import eval_control, scripted_llm
from tests.conftest import ROOT


def _sorry(request: dict[str, Any]) -> dict[str, Any]:
    message = {"role": "assistant", "content": "Sorry, I cannot help with that."}
    return scripted_llm.completion(message, "sorry")


@contextmanager
def sorry_model() -> Iterator[str]:
    """The base URL of a model that never calls a tool (a planted regression)."""
    server, url = scripted_llm.start(_sorry)
    try:
        yield url
    finally:
        server.shutdown()


ESCAPES = "\x1b[2J\x1b]0;owned\x07\u202e\x9b31m"  # clear the screen, retitle it, reverse the text, CSI in C1
MADE_UP = "made_up_"  # the start of the hostile model's call ids


def _hostile(request: dict[str, Any]) -> dict[str, Any]:
    """The control's reply, as if its made-up call and that call's result were not there; its first reply
    in a turn calls the made-up tool too, every later one ends with escapes."""
    messages = request["messages"]
    said = next(m["content"] for m in reversed(messages) if m["role"] == "user")
    mine = [m for m in messages if m["role"] == "tool" and m.get("tool_call_id", "").startswith(MADE_UP)]
    reply = eval_control.reply({**request, "messages": [m for m in messages if m not in mine]})
    message = reply["choices"][0]["message"]
    if mine:
        message["content"] = (message.get("content") or "") + ESCAPES
        return reply
    made_up = {"name": f"{ESCAPES}{said}", "arguments": "{}"}
    message["tool_calls"] = [
        *message.get("tool_calls", []),
        {"id": f"{MADE_UP}{said}{ESCAPES}", "type": "function", "function": made_up},
    ]
    return reply


@contextmanager
def hostile_model() -> Iterator[str]:
    """The base URL of the hostile model (above)."""
    server, url = scripted_llm.start(_hostile)
    try:
        yield url
    finally:
        server.shutdown()


def scorecard(
    url: str, folder: Path, *args: str, spans: bool = False, **more: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`python main.py eval --json FILE ARGS...` against the model at `url`, with the variables `more`: the
    process, and the JSON. `spans`: run with an in-memory exporter (support/scorecard_memory.py), whose
    spans are in folder/spans.json."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "ADD_MODEL_URL"))}
    env |= {"LLM_BASE_URL": url, "PYTHONPATH": str(ROOT)} | more
    out = folder / "card.json"
    runner = [str(ROOT / "main.py")]
    if spans:
        runner = ["-m", "tests.support.scorecard_memory", str(folder / "spans.json")]
    command = [sys.executable, *runner, "eval", "--json", str(out), *args]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    return done, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
