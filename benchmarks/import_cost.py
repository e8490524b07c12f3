"""Import and exit cost: whole processes that import what a run needs, timed from start to exit against
the peers, with where the time goes (`python -X importtime` by package) and what exit costs.

`python -m benchmarks.import_cost [--peers-python P] [--repeat N]`; `make bench` prints it too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

from benchmarks.worker import RUN_IMPORTS

ROOT = Path(__file__).resolve().parent.parent
PEERS = ("langchain", "openai-agents", "pydantic-ai")
PACKAGES = {"langchain": "langchain.agents", "openai-agents": "agents", "pydantic-ai": "pydantic_ai"}
FLOOR = "langchain_core.language_models.chat_models"  # BaseChatModel: the wrapper is one; no run avoids it


def timed(python: str, modules: str, code_after: str = "") -> tuple[float, float, float]:
    """(whole process, import, exit) seconds of one `python -c "import ..."`, start to exit."""
    after = code_after or "pass"
    code = f"import time; t = time.monotonic(); import {modules}; {after}; print(t, time.monotonic())"
    started = time.monotonic()
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True, env=_env())
    ended = time.monotonic()
    import_start, import_end = map(float, out.stdout.split()[-2:])
    return ended - started, import_end - import_start, ended - import_end


def medians(cases: dict[str, tuple[str, str, str]], repeat: int) -> dict[str, tuple[float, float, float]]:
    """Median (whole, import, exit) per case; runs interleaved, order rotated, so load hits all alike."""
    samples: dict[str, list[tuple[float, float, float]]] = defaultdict(list)
    names = list(cases)
    for r in range(repeat):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            samples[name].append(timed(*cases[name]))
    return {
        name: tuple(statistics.median(s[i] for s in runs) for i in range(3)) for name, runs in samples.items()
    }  # type: ignore[misc]


def by_package(python: str, modules: str) -> dict[str, float]:
    """Seconds of import per top-level package (self times of `python -X importtime`)."""
    run = subprocess.run(
        [python, "-X", "importtime", "-c", f"import {modules}"], capture_output=True, text=True, env=_env()
    )
    totals: dict[str, float] = defaultdict(float)
    for line in run.stderr.splitlines()[1:]:
        _, self_us, _, name = (part.strip() for part in line.replace(":", "|", 1).split("|"))
        totals[name.split(".")[0]] += int(self_us) / 1e6
    return dict(sorted(totals.items(), key=lambda item: -item[1]))


def report(peers_python: str, repeat: int = 11) -> str:
    ours = RUN_IMPORTS["ours"]
    cases = {"ours": (sys.executable, ours, ""), "floor": (sys.executable, FLOOR, "")}
    cases["ours, gc.freeze()"] = (sys.executable, ours, "import gc; gc.freeze()")
    cases |= {f"{p} (package)": (peers_python, PACKAGES[p], "") for p in PEERS}
    cases |= {f"{p} (a run)": (peers_python, RUN_IMPORTS[p], "") for p in PEERS}
    m = medians(cases, repeat)
    lines = [f"whole process, start to exit (median of {repeat}, interleaved runs)"]
    lines += [
        f"  {n:<24} {w * 1000:5.0f} ms  (import {i * 1000:4.0f}, exit {e * 1000:3.0f})"
        for n, (w, i, e) in m.items()
    ]
    fastest = min((n for n in m if n.split(" (")[0] in PEERS), key=lambda n: m[n][0])
    lines.append(
        f"  ours / fastest peer ({fastest}) = {m['ours'][0] / m[fastest][0]:.2f} (goal <= 0.5); the floor, "
        f"BaseChatModel alone, = {m['floor'][0] / m[fastest][0]:.2f}; ours - floor = "
        f"{(m['ours'][0] - m['floor'][0]) * 1000:.0f} ms"
    )
    top = list(by_package(sys.executable, ours).items())[:8]
    lines.append(
        "  where ours goes (import, by package): " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in top)
    )
    return "\n".join(lines)


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers-python", default=str(ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"))
    parser.add_argument("--repeat", type=int, default=11)
    args = parser.parse_args()
    print(report(args.peers_python, args.repeat))
