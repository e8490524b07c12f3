"""`make load`: the served agent under load, durable turns, as it is deployed — N `python main.py serve`
servers x M workers on one Postgres (`--sqlite`: one server, on an AGENT_DB file), the device service
(`python -m devicedb`, behind ADD_MODEL_URL) they all write to, a scripted LLM (benchmarks/load_llm.py:
each turn one add of the code the person names) — and U users at once over C conversations x T turns
through the OpenAI face (benchmarks/load_client.py).

`--kill-at S --restart-after R`: S seconds into the load, `kill -9` of the first server's process group,
started again R seconds later on its port (`--no-restart`: never); `--apart` runs it as if on a machine
of its own (a PID namespace of its own), whose end its peers learn only from its silence. The writes are
counted at the device service afterwards (benchmarks/load_count.py); the figures are printed as a
Markdown table. `--before DIR`: the same load, in the same run, on another checkout (`git worktree add DIR
COMMIT` with its own `make install`), side by side.

    python -m benchmarks.load --servers 2 --workers 4 --users 32 --conversations 100 --turns 4
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load_client import Turn, drive
from benchmarks.load_count import Figures, table, writes_at
from benchmarks.load_fleet import Checkout, Killer, Process, Server, cpu_seconds
from benchmarks.serve_bench import KEYS_SCRIPT
from devicedb.workers import ServiceProcess
from plumbing.pgcluster import PostgresCluster

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = (  # settings a server must not take from the environment this runs in
    *("LLM_", "OPENAI_", "ADD_MODEL_URL", "DEVICE_", "DATABASE_URL", "LOCAL_MODEL", "AUDIT_LOG"),
    *("MCP_CONFIG", "AGENT_", "SERVE_", "TURN_SECONDS", "PERMISSIONS_FILE"),
)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--servers", type=int, default=2, help="`main.py serve` processes (default 2)")
    parser.add_argument("--workers", type=int, default=4, help="workers of each server (default 4)")
    parser.add_argument("--users", type=int, default=32, help="users at once (default 32)")
    parser.add_argument("--conversations", type=int, default=100, help="conversations in all (default 100)")
    parser.add_argument("--turns", type=int, default=4, help="turns of each conversation (default 4)")
    parser.add_argument("--device-workers", type=int, default=1, help="the device service's workers")
    parser.add_argument("--kill-at", type=float, help="seconds into the load: kill -9 of the first server")
    parser.add_argument("--restart-after", type=float, default=6.0, help="seconds until it starts again")
    parser.add_argument("--no-restart", action="store_true", help="the killed server never starts again")
    parser.add_argument(
        "--apart", action="store_true", help="the killed server as if on a machine of its own (root: unshare)"
    )
    parser.add_argument(
        "--sqlite", action="store_true", help="the agent's database an AGENT_DB file (one server only)"
    )
    parser.add_argument(
        "--before", type=Path, help="another checkout (its own .venv): the same load on it too"
    )
    parser.add_argument(
        "--keep", type=Path, help="a folder to keep the servers' logs and each turn in (turns.jsonl)"
    )
    args = parser.parse_args(argv)
    if min(args.servers, args.workers, args.users, args.conversations, args.turns) < 1:
        parser.error("--servers, --workers, --users, --conversations and --turns must be at least 1")
    if args.sqlite and args.servers != 1:
        parser.error("--sqlite: one server only (servers share a database through Postgres)")
    if args.before and not (args.before / ".venv" / "bin" / "python").exists():
        parser.error(f"--before {args.before}: no .venv/bin/python there (run `make install` in it)")
    return args


def server_env(database: dict[str, str], llm_url: str, device: ServiceProcess, audit: Path) -> dict[str, str]:
    """A server's environment: nothing from the outside about models, databases or services but its
    `database` (DATABASE_URL, or AGENT_DB), and limits that let one user send as fast as the load does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(OUTSIDE)}
    return (
        env
        | database
        | {
            "LLM_BASE_URL": llm_url,
            "LLM_STREAM": "0",
            "ADD_MODEL_URL": f"{device.url}/api/models",
            "DEVICE_TOKEN": device.token,
            "AUDIT_LOG": str(audit),
            "SERVE_REQUESTS_PER_MINUTE": "1000000",
            "SERVE_RUNS_PER_USER": "64",
            "NO_PROXY": "127.0.0.1,localhost",
            "PYTHONIOENCODING": "utf-8",
        }
    )


def make_keys(checkout: Checkout, env: dict[str, str], users: int, cwd: Path) -> list[str]:
    """One API key per user (user0, user1...), made by the checkout's own code; this also migrates the
    agent's database once, before any server starts."""
    command = [checkout.python, "-c", KEYS_SCRIPT, str(users)]
    env = env | {"PYTHONPATH": str(checkout.root)}
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"making the users' keys failed: {done.stderr[-2000:]}")
    return done.stdout.split()


@dataclass
class Fleet:
    """One side's running processes: its servers, the device service (and its database), the users' keys."""

    servers: list[Server]
    device: ServiceProcess
    devices: str  # the device service's database URL
    keys: list[str]
    folder: Path  # the servers' working folder: their logs, the audit log

    def cpu_readers(self, llm: Process) -> dict[str, Callable[[], float]]:
        """CPU seconds so far, by process: each read twice, around the load."""
        device_pid = self.device._proc.pid  # type: ignore[union-attr]  # its first process
        return {
            "servers": lambda: sum(s.cpu() for s in self.servers),
            "device service": lambda: cpu_seconds(device_pid),
            "LLM stub": lambda: cpu_seconds(llm.pid),
            "client": lambda: sum(os.times()[:2]),
        }


def start_fleet(
    stack: ExitStack, checkout: Checkout, args: argparse.Namespace, postgres: PostgresCluster, llm: Process
) -> Fleet:
    """The device service and the servers of one checkout, on databases of their own, stopped with `stack`."""
    side = f"{checkout.name.replace('-', '_').lower()}_{os.getpid()}"
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="load-")))
    if args.keep:
        folder = args.keep.resolve() / side
        folder.mkdir(parents=True)
    devices = postgres.create_database(f"devices_{side}")
    database = (
        {"AGENT_DB": str(folder / "agent.db")}
        if args.sqlite
        else {"DATABASE_URL": postgres.create_database(f"agent_{side}")}
    )
    device = stack.enter_context(ServiceProcess(devices, workers=args.device_workers))
    env = server_env(database, llm.url, device, folder / "audit.jsonl")
    keys = make_keys(checkout, env, args.users, folder)
    servers = [
        Server(checkout, env, args.workers, folder, args.apart and i == 0) for i in range(args.servers)
    ]
    for server in servers:  # one after the other: the first makes DBOS's tables
        stack.callback(server.stop)
        server.start().wait_up()
    return Fleet(servers, device, devices, keys, folder)


def run_side(
    checkout: Checkout, args: argparse.Namespace, postgres: PostgresCluster, llm: Process
) -> Figures:
    """The load on one checkout; its figures."""
    with ExitStack() as stack:
        fleet = start_fleet(stack, checkout, args, postgres, llm)
        readers = fleet.cpu_readers(llm)
        before = {name: read() for name, read in readers.items()}
        record: list[Turn] = []
        after = None if args.no_restart else args.restart_after
        killer = Killer(fleet.servers[0], args.kill_at, after) if args.kill_at else None
        started = time.monotonic()
        if killer:
            killer.start()
        drive(fleet.keys, [s.url for s in fleet.servers], args.conversations, args.turns, record)
        seconds = time.monotonic() - started
        if killer:
            killer.finished.set()
            killer.join()
        cpu = {name: read() - before[name] for name, read in readers.items()}
        name, asked = f"{checkout.name} ({revision(checkout.root)})", args.conversations * args.turns
        figures = Figures(name, args.users, asked, seconds, record, writes_at(fleet.devices), cpu)
        if killer:
            figures.killed_at, figures.back_at = killer.killed_at, killer.back_at
        if args.keep:
            keep_turns(fleet.folder / "turns.jsonl", record, started, figures.killed_at)
        return figures


def keep_turns(path: Path, record: list[Turn], started: float, killed_at: float | None) -> None:
    """Each turn as a JSON line, its times in seconds from the load's start (and the kill's, if any)."""
    with path.open("w") as out:
        if killed_at is not None:
            out.write(json.dumps({"killed": round(killed_at - started, 3)}) + "\n")
        for turn in record:
            times = {
                "started": round(turn.started - started, 3),
                "ended": round(turn.ended - started, 3) if turn.ended else None,
            }
            line: dict[str, object] = {
                "conversation": turn.conversation,
                "turn": turn.turn,
                "code": turn.code,
            }
            line |= times
            line |= {"outcome": turn.outcome, "resent": dict(turn.resent), "approvals": turn.approvals}
            out.write(json.dumps(line) + "\n")


def revision(root: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() or "?"


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    sides = [Checkout(ROOT, sys.executable)]
    if args.before:
        before = args.before.resolve()
        sides.append(Checkout(before, str(before / ".venv" / "bin" / "python")))
    back = "never back" if args.no_restart else f"back after {args.restart_after:g} s"
    where = " (as if on a machine of its own)" if args.apart else ""
    kill = f", kill -9 of a server{where} at {args.kill_at:g} s, {back}" if args.kill_at else ""
    on = "one SQLite file" if args.sqlite else "one Postgres"
    print(
        f"load: {args.servers} server(s) x {args.workers} worker(s) on {on}, durable turns, "
        f"{args.users} users over {args.conversations} conversations x {args.turns} turns{kill}\n",
        flush=True,
    )
    with ExitStack() as stack:
        postgres = stack.enter_context(PostgresCluster(durable=True))
        llm = Process([sys.executable, "-m", "benchmarks.load_llm"])
        stack.callback(llm.stop)
        runs = [run_side(checkout, args, postgres, llm) for checkout in sides]
    print(table(runs), flush=True)


if __name__ == "__main__":
    main()
