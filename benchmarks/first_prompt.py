"""Informational: seconds from `make run` on a warm install to the chat's first prompt — the newcomer's
wait — measured in a pseudo-terminal, each run in a fresh data folder, then /exit.

`python -m benchmarks.first_prompt [--runs N]` (the install must be there: `make install` first)."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
PROMPT = re.compile(r"(You|你):")
DROP = ("LLM_", "OPENAI_", "ADD_MODEL_URL", "DEVICE_DB", "DATABASE_URL", "LOCAL_MODEL", "AUDIT_LOG")


def one_start(folder: Path) -> float:
    """Seconds until the prompt shows, for `make run` with its data in `folder`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROP)}
    env |= {"TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1", "DEVICE_DB": str(folder / "devices.db")}
    env |= {"AUDIT_LOG": str(folder / "audit.jsonl")}
    started = time.perf_counter()
    child = pexpect.spawn("make", ["--no-print-directory", "run"], cwd=str(ROOT), env=env, encoding="utf-8")
    try:
        child.expect(PROMPT, timeout=300)
        seconds = time.perf_counter() - started
        time.sleep(0.5)
        child.sendline("/exit")
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    if not (ROOT / ".venv" / ".installed").exists():
        raise SystemExit("no warm install: run `make install` first")
    times = []
    for _ in range(runs):
        folder = Path(tempfile.mkdtemp(prefix="first-prompt-"))
        try:
            times.append(one_start(folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    shown = " ".join(f"{t:.2f}" for t in times)
    p50 = statistics.median(times)
    print(f"make run -> first prompt (warm install, {runs} runs)  p50 {p50:.2f} s  [{shown}]")


if __name__ == "__main__":
    main()
