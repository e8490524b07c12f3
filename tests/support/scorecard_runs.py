"""Helpers of the scorecard's tests: `python main.py eval` run as a person runs it against a model on
loopback, its JSON read back; and a scripted model that calls no tool and says the same to everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from benchmarks import scripted_llm
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


def scorecard(
    url: str, folder: Path, *args: str, **more: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """`python main.py eval --json FILE ARGS...` against the model at `url`, with the variables `more`: the
    process, and the JSON."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_", "ADD_MODEL_URL"))}
    env |= {"LLM_BASE_URL": url, "PYTHONPATH": str(ROOT)} | more
    out = folder / "card.json"
    command = [sys.executable, str(ROOT / "main.py"), "eval", "--json", str(out), *args]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=600)
    return done, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
