"""Informational: adds/s, lookups/s and p50/p99 latency of `python -m devicedb` over loopback HTTP.

One run measures SQLite (1 worker) and Postgres (1 and 4 workers) at 1, 8 and 32 concurrent clients
(threads with a keep-alive session each, on the same machine as the service). Postgres is a throwaway
cluster (plumbing/pgcluster.py) with its default durability, as SQLite keeps its own; every add is a new
code, every lookup finds one. Prints a Markdown table.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import requests

from devicedb.workers import ServiceProcess
from plumbing.pgcluster import PostgresCluster

SETUPS = (("SQLite", 1), ("Postgres", 1), ("Postgres", 4))
CLIENTS = (1, 8, 32)
ADDS = 1500
LOOKUPS = 3000


def measure(clients: int, n: int, request: Callable[[requests.Session, int], requests.Response]) -> tuple:
    """(requests/s, p50 ms, p99 ms) of `n` calls of `request` from `clients` threads."""
    sessions: dict[int, requests.Session] = {}
    latencies: list[float] = []

    def one(i: int) -> None:
        session = sessions.setdefault(threading.get_ident(), _loopback_session())
        started = time.perf_counter()
        resp = request(session, i)
        latencies.append(time.perf_counter() - started)
        if resp.status_code not in (200, 201):
            raise SystemExit(f"the device service answered {resp.status_code}: {resp.text[:200]}")

    started = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, range(n)))
    elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100)
    return n / elapsed, cuts[49] * 1000, cuts[98] * 1000


def _loopback_session() -> requests.Session:
    session = requests.Session()
    session.trust_env = False  # no proxy look-up per request
    return session


def row(backend: str, workers: int, clients: int, api: str, prefix: str, token: dict[str, str]) -> str:
    adds = measure(clients, ADDS, lambda s, i: s.post(api, json={"model": f"{prefix}{i:06d}"}, headers=token))
    lookups = measure(clients, LOOKUPS, lambda s, i: s.get(f"{api}/{prefix}{i % ADDS:06d}"))
    figures = (*adds, *lookups)
    return (
        f"| {backend} | {workers} | {clients} | "
        + " | ".join(f"{x:,.0f}" if x >= 100 else f"{x:.1f}" for x in figures)
        + " |"
    )


def main() -> None:
    print(f"devicedb over loopback HTTP, {os.cpu_count()} cores; {ADDS} adds and {LOOKUPS} lookups per row\n")
    columns = ["backend", "workers", "clients", "adds/s", "add p50 ms", "add p99 ms"]
    columns += ["lookups/s", "lookup p50 ms", "lookup p99 ms"]
    print("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        postgres = stack.enter_context(PostgresCluster(durable=True))
        for n, (backend, workers) in enumerate(SETUPS):
            database = str(tmp / "bench.db") if backend == "SQLite" else postgres.create_database(f"bench{n}")
            with ServiceProcess(database, workers=workers) as service:
                for clients in CLIENTS:
                    print(
                        row(
                            backend,
                            workers,
                            clients,
                            f"{service.url}/api/models",
                            f"B{n}C{clients}X",
                            service.headers,
                        ),
                        flush=True,
                    )


if __name__ == "__main__":
    main()
