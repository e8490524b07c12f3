"""Informational: adds/s and lookups/s of the device service (`python -m devicedb`) over loopback HTTP."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from agent.llm.local_model import free_port

N = 2000


def rate(label: str, fn: Callable[[requests.Session, int], object], n: int, threads: int) -> None:
    sessions: dict[int, requests.Session] = {}

    def run(i: int) -> None:
        fn(sessions.setdefault(threading.get_ident(), requests.Session()), i)

    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(run, range(n)))
    print(
        f"{label:<28} {n / (time.perf_counter() - start):8.0f} /s   ({n} requests, {threads} client threads)"
    )


def start_service(db: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "devicedb", "--port", str(port), "--db", str(db)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/models"
    for _ in range(200):
        try:
            requests.get(url, timeout=1)
            return proc, url
        except requests.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the device service did not start")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, api = start_service(Path(tmp) / "bench.db")
        try:
            for threads in (1, 8):
                base = threads * N
                rate(
                    "add (new code)",
                    lambda s, i, b=base: s.post(api, json={"model": f"BM{b + i:06d}"}),
                    N,
                    threads,
                )
                rate(
                    "add (existing code)",
                    lambda s, i, b=base: s.post(api, json={"model": f"BM{b + i:06d}"}),
                    N,
                    threads,
                )
                rate("lookup by code", lambda s, i, b=base: s.get(f"{api}/BM{b + i:06d}"), N, threads)
                rate(
                    "search (q=BM00, limit 20)",
                    lambda s, i: s.get(api, params={"q": "BM00"}),
                    N // 4,
                    threads,
                )
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
