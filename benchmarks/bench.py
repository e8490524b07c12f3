"""`make bench`: this agent against a bare loop and the frameworks people use, on one scripted loopback model.

Prints ms per model round trip (3 tool rounds + an answer per conversation, interleaved batches), a
round of 5 parallel 200 ms tools, import and exit cost (`import_cost.py`), the peak RSS of `main.py -m`,
and tool selection (recall@5 and schema tokens) on tools built from the Python standard library's public
functions.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import scripted_llm
from benchmarks.import_cost import report as import_report
from benchmarks.tool_selection_bench import selection_report

ROOT = Path(__file__).resolve().parent.parent
PEERS = ("langchain", "openai-agents", "pydantic-ai")
REQUESTS_PER_CONVERSATION = scripted_llm.ROUNDS + 1


def start_worker(python: str, framework: str, url: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_PROXY": "127.0.0.1"}
    worker = subprocess.Popen(
        [python, str(ROOT / "benchmarks" / "worker.py"), framework, url],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdout is not None and worker.stdout.readline().strip() == "ready", framework
    return worker


def batch(worker: subprocess.Popen, n: int) -> list[float]:
    assert worker.stdin is not None and worker.stdout is not None
    worker.stdin.write(f"{n}\n")
    worker.stdin.flush()
    return json.loads(worker.stdout.readline())


def round_trips(url: str, peers_python: str, rounds: int, per_batch: int) -> dict[str, float]:
    """Median ms per model round trip for each framework, batches interleaved, order rotated per round."""
    pythons = {"ours": sys.executable, "bare": sys.executable} | {p: peers_python for p in PEERS}
    workers = {name: start_worker(python, name, url) for name, python in pythons.items()}
    samples: dict[str, list[float]] = {name: [] for name in workers}
    try:
        for worker in workers.values():
            batch(worker, per_batch)  # warm-up
        for r in range(rounds):
            names = list(workers)[r % len(workers) :] + list(workers)[: r % len(workers)]
            for name in names:
                samples[name] += batch(workers[name], per_batch)
    finally:
        for worker in workers.values():
            worker.kill()
    return {name: statistics.median(s) * 1000 / REQUESTS_PER_CONVERSATION for name, s in samples.items()}


def parallel_round(url: str, round_trip_ms: float) -> tuple[float, float]:
    """Seconds for one round of 5 parallel 200 ms tools (the turn minus its 2 model round trips)."""
    from agent.agent import ChatAgent
    from agent.llm_wrapper import CustomLLMWrapper
    from agent.tools import FunctionTool, ToolRegistry

    class Sleep200(FunctionTool):
        name, description, parameters = "sleep200", "Wait 200 ms.", {"type": "object", "properties": {}}

        def call(self, ctx: object, input: str) -> str:
            time.sleep(0.2)
            return "ok"

    registry = ToolRegistry()
    registry.register(Sleep200())
    agent = ChatAgent(CustomLLMWrapper(base_url=url, model="parallel"), registry)
    turns = []
    for _ in range(5):
        start = time.perf_counter()
        agent.send_message("five at once")
        turns.append(time.perf_counter() - start)
    tools_round = statistics.median(turns) - 2 * round_trip_ms / 1000
    return tools_round, tools_round / 0.2


def peak_rss_mib(url: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "LLM_BASE_URL": url, "DEVICE_DB": f"{tmp}/d.db", "AUDIT_LOG": f"{tmp}/a.jsonl"}
        env.pop("ADD_MODEL_URL", None)
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "main.py"), "-m", "go"],
            env=env,
            cwd=tmp,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, usage = os.wait4(process.pid, 0)
        assert status == 0, "main.py -m failed"
    return usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--peers-python", default=str(ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"))
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--per-batch", type=int, default=20)
    args = parser.parse_args()
    server, url = scripted_llm.start()
    ms = round_trips(url, args.peers_python, args.rounds, args.per_batch)
    fastest_peer = min(PEERS, key=lambda p: ms[p])
    print(
        f"ms per model round trip (median; {args.rounds} interleaved rounds x {args.per_batch} conversations)"
    )
    for name, value in sorted(ms.items(), key=lambda item: item[1]):
        print(
            f"  {name:<14} {value:7.2f} ms  {value / ms['bare']:5.2f}x bare  {value / ms['ours']:5.2f}x ours"
        )
    print(
        f"  ours / bare = {ms['ours'] / ms['bare']:.2f} (goal <= 2);  ours / fastest peer ({fastest_peer}) = "
        f"{ms['ours'] / ms[fastest_peer]:.2f} (goal <= 0.33)"
    )
    seconds, ratio = parallel_round(url, ms["ours"])
    print(
        f"5 parallel 200 ms tools: a round takes {seconds * 1000:.0f} ms, {ratio:.2f}x one tool (goal: 1.15)"
    )
    print(import_report(args.peers_python))
    print(f"peak RSS of main.py -m (embedded device service, scripted model): {peak_rss_mib(url):.0f} MiB")
    print(selection_report())
    server.shutdown()


if __name__ == "__main__":
    main()
