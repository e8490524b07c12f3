"""The demo's start-up, with no key, against the floor every run pays: a planned tool turn of `main.py -m`
(the calculator; the host plans it, so no model server starts) and `make run` to the chat's first prompt,
each as a whole process, as ratios against `python -c "import agent.agent"` measured in the same run,
interleaved so that load hits all alike. Goals: the -m turn's median at most 1.2 s, the first prompt at
most 2 s, on the 2-core machine.

`python -m benchmarks.demo_start [--runs N]` (after `make install`); `make bench` prints it too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.first_prompt import DROP, one_start

ROOT = Path(__file__).resolve().parent.parent
PLANNED = "12 乘以 (3 加 4) 等于几？"  # the README's: a planned calculator turn


def _env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROP)}
    return env | {"DEVICE_DB": str(folder / "devices.db"), "AUDIT_LOG": str(folder / "audit.jsonl")}


def floor(folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import agent.agent"], cwd=ROOT, env=_env(folder), check=True)
    return time.perf_counter() - started


def planned_turn(folder: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "-m", PLANNED],
        cwd=folder,
        env=_env(folder),
        capture_output=True,
        text=True,
        check=True,
    )
    seconds = time.perf_counter() - started
    assert "84" in done.stdout, done.stdout + done.stderr
    return seconds


def first_prompt(folder: Path) -> float:
    return one_start(folder)


CASES: dict[str, tuple[Callable[[Path], float], float | None]] = {
    'python -c "import agent.agent"': (floor, None),
    f"main.py -m {PLANNED!r} (whole process)": (planned_turn, 1.2),
    "make run -> first prompt": (first_prompt, 2.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    if not (ROOT / ".venv" / ".installed").exists():
        raise SystemExit("no warm install: run `make install` first")
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for i in range(runs):
        names = list(CASES)[i % len(CASES) :] + list(CASES)[: i % len(CASES)]  # the order rotates
        for name in names:
            folder = Path(tempfile.mkdtemp(prefix="demo-start-"))
            try:
                samples[name].append(CASES[name][0](folder))
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    base = statistics.median(samples[next(iter(CASES))])
    print(f"the demo's start-up, no key (median of {runs} interleaved runs, whole processes)")
    for name, (_, goal) in CASES.items():
        median = statistics.median(samples[name])
        aim = f"  (goal <= {goal:.1f} s)" if goal else ""
        print(f"  {name:<58} {median:6.2f} s  {median / base:5.2f}x the floor{aim}")


if __name__ == "__main__":
    main()
