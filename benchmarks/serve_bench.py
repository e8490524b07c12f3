"""`make bench`, the served agent: USERS concurrent users x TURNS turns on the scripted LLM (each turn: three
rounds of a no-op tool, then an answer) — turns/s, p50 and p99 turn latency, the server's added cost per
turn against the in-process ChatAgent on the same turns, and memory per open conversation — on SQLite
and Postgres, with 1 and 4 workers; beside it, in the same run, PydanticAI's AG-UI app on the same LLM
with the same tool (benchmarks/serve_peer.py, in the peers' venv). Prints a Markdown table.

Our OpenAI face keeps each conversation server-side (`conversation_id`), and so does our A2A face (a
task a turn, in one context); our AG-UI face and the peer's take a thread whose client sends its history.
A second A2A row sends each turn's message with no contextId (each task keyed on the person and the
message's id, benchmarks/serve_a2a.py); under the table, what that keying adds to one user's turn, measured
with the kinds of A2A turn interleaved. `--faces` and `--setups` measure some rows only.
"added ms" is one user's sequential p50 minus the in-process ChatAgent's p50 on the same turns. "KiB/conv":
after the measured load, USERS more conversations are run and left open; the server processes' RSS growth
over them, per conversation (and, for ours, the bytes its database keeps per conversation).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import requests

from agent.function_tool import FunctionTool
from agent.types import ToolContext
from benchmarks.serve_a2a import a2a_turn, interleaved, keying

ROOT = Path(__file__).resolve().parent.parent
USERS, TURNS, SOLO_TURNS = 32, 10, 60


class Noop(FunctionTool):
    name, description, parameters = "noop", "Do nothing.", {"type": "object", "properties": {}}
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return "ok"


def noop_tools() -> list[FunctionTool]:
    """What each worker registers (picklable: a worker process calls it)."""
    return [Noop()]


def serve_here(port: int, workers: int) -> None:
    """`python -m benchmarks.serve_bench --serve PORT WORKERS`: the served agent with the no-op tool."""
    from agent.config import Settings
    from app.serve.settings import ServeSettings
    from app.serve.workers import serve

    serve(Settings(), ServeSettings(), lambda settings, stack: noop_tools, "127.0.0.1", port, workers)


# --- the clients: one user's conversation, as a list of turn latencies --------------------------------


def openai_user(url: str, key: str, turns: int) -> list[float]:
    session, conversation, took = _session(key), None, []
    for _ in range(turns):
        body: dict[str, Any] = {"model": "bench", "messages": [{"role": "user", "content": "go"}]}
        if conversation:
            body["conversation_id"] = conversation
        started = time.perf_counter()
        answer = session.post(f"{url}/v1/chat/completions", json=body, timeout=120)
        took.append(time.perf_counter() - started)
        _check(answer)
        conversation = answer.json()["conversation_id"]
    return took


def agui_user(url: str, key: str, turns: int) -> list[float]:
    session, thread, messages, took = _session(key), uuid.uuid4().hex, [], []
    for _ in range(turns):
        messages.append({"id": uuid.uuid4().hex, "role": "user", "content": "go"})
        body = {"threadId": thread, "runId": uuid.uuid4().hex, "state": {}, "messages": messages}
        body |= {"tools": [], "context": [], "forwardedProps": {}}
        started = time.perf_counter()
        with session.post(f"{url}/agui", json=body, stream=True, timeout=120) as answer:
            _check(answer)
            text = _agui_text(answer)
        took.append(time.perf_counter() - started)
        messages.append({"id": uuid.uuid4().hex, "role": "assistant", "content": text})
    return took


def a2a_user(url: str, key: str, turns: int, contexts: str = "one") -> list[float]:
    """A2A's JSON-RPC SendMessage, each turn a task: all in one context (the same conversation), or each
    with no contextId (`contexts` "none": keyed on the person and the message's id)."""
    session, context = _session(key), uuid.uuid4().hex
    return [a2a_turn(session, url, contexts, context) for _ in range(turns)]


# each face: its row's name and its client, by the name --faces takes; make bench measures them all
CLIENTS: dict[str, tuple[str, Callable[[str, str, int], list[float]]]] = {
    "openai": ("OpenAI face", openai_user),
    "agui": ("AG-UI face", agui_user),
    "a2a": ("A2A face", a2a_user),
    "a2a-keyed": ("A2A face, no contextId", functools.partial(a2a_user, contexts="none")),
}


def _agui_text(answer: requests.Response) -> str:
    text, finished = "", False
    for line in answer.iter_lines():
        if line.startswith(b"data:"):
            event = json.loads(line[5:])
            text += event.get("delta", "") if event["type"] == "TEXT_MESSAGE_CONTENT" else ""
            finished = finished or event["type"] == "RUN_FINISHED"
    if not finished:
        raise SystemExit(f"a run did not finish: {text[:200]}")
    return text


def inprocess_user(llm_url: str, turns: int) -> list[float]:
    from agent.agent import ChatAgent, TurnObserver
    from agent.llm_wrapper import CustomLLMWrapper

    class Streamed(TurnObserver):
        streams = True

    from agent.tools import ToolRegistry

    registry = ToolRegistry()
    registry.register(Noop())
    llm = CustomLLMWrapper(base_url=llm_url, model="bench")
    agent, took = ChatAgent(llm, registry, observer=Streamed()), []  # streamed, as the server's
    for _ in range(turns):
        started = time.perf_counter()
        agent.send_message("go")
        took.append(time.perf_counter() - started)
    return took


def _session(key: str) -> requests.Session:
    session = requests.Session()
    session.trust_env = False
    session.headers["Authorization"] = f"Bearer {key}"
    return session


def _check(answer: requests.Response) -> None:
    if answer.status_code != 200:
        raise SystemExit(f"the server answered {answer.status_code}: {answer.text[:300]}")


# --- measuring --------------------------------------------------------------------------------------


def under_load(user: Callable[[int], list[float]], users: int) -> tuple[float, float, float]:
    """(turns/s, p50 ms, p99 ms) of `users` conversations at once; `user(i)` runs the i-th."""
    started = time.perf_counter()
    with ThreadPoolExecutor(users) as pool:
        latencies = [t for took in pool.map(user, range(users)) for t in took]
    elapsed = time.perf_counter() - started
    cuts = statistics.quantiles(latencies, n=100)
    return len(latencies) / elapsed, cuts[49] * 1000, cuts[98] * 1000


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its descendants, in KiB."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            parent = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append(int(proc.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo += children.get(current, [])
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS")), 0)
    return total


def wait_for(url: str, process: subprocess.Popen, timeout: float = 120.0) -> None:
    give_up_at = time.monotonic() + timeout
    while True:
        try:
            requests.post(f"{url}/agui", timeout=2)
            return
        except requests.ConnectionError:
            if process.poll() is not None or time.monotonic() > give_up_at:
                raise SystemExit(f"the server at {url} did not start") from None
            time.sleep(0.2)


class Server:
    """A server process (ours or the peer's) on a free port, stopped with its ExitStack."""

    def __init__(self, command: list[str], env: dict[str, str], cwd: Path, url: str) -> None:
        self.url = url
        self.log = (cwd / f"server-{uuid.uuid4().hex[:6]}.log").open("w")
        self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=self.log, stderr=self.log)
        wait_for(url, self.process)

    def stop(self) -> None:
        from plumbing.processes import stop

        stop(self.process, grace=30)
        self.log.close()


def row(name: str, database: str, workers: int, load: tuple, added: float, memory: str) -> str:
    rate, p50, p99 = load
    return (
        f"| {name} | {database} | {workers} | {rate:.0f} | {p50:.0f} | {p99:.0f} | {added:+.1f} | {memory} |"
    )


def ours(
    llm_url: str,
    tmp: Path,
    database: str,
    workers: int,
    solo_p50: float,
    durable: bool,
    root: Path = ROOT,
    faces: tuple[str, ...] = tuple(CLIENTS),
) -> tuple[list[tuple[str, float]], dict[str, float]]:
    """Our rows for one database and worker count, with each turn a durable workflow or run in the
    worker's threads, one for each face of `faces`, each (row, added ms); and with both A2A rows, the p50 of
    each kind of A2A turn, interleaved (serve_a2a.py). `root`: the checkout whose server runs (another one:
    the code before a change, in the same run)."""
    from plumbing.sockets import free_port

    port = free_port()
    where = {"DATABASE_URL": database} if database.startswith("postgresql://") else {"AGENT_DB": database}
    env = {
        **os.environ,
        **where,
        "LLM_BASE_URL": llm_url,
        "LLM_STREAM": "0",
        "AUDIT_LOG": str(tmp / "a.jsonl"),
        "SERVE_DURABLE": "1" if durable else "0",
    }
    env |= {"SERVE_REQUESTS_PER_MINUTE": "1000000", "SERVE_RUNS_PER_USER": "64", "PYTHONPATH": str(root)}
    keys = _keys(env, tmp)
    command = [sys.executable, "-m", "benchmarks.serve_bench", "--serve", str(port), str(workers)]
    server = Server(command, env, tmp, f"http://127.0.0.1:{port}")
    label = "Postgres" if database.startswith("postgresql://") else "SQLite"
    how = ("durable" if durable else "threads") + ("" if root == ROOT else f", {root.name}")
    rows: list[tuple[str, float]] = []
    try:
        for face in faces:
            named, client = CLIENTS[face]
            grown, load, added = measured(server, users_of(client, server.url, keys), solo_p50)
            memory = f"{grown:.0f}"
            if face == "openai":  # the first conversations: the bytes each keeps
                memory += f" ({_stored_kib(env):.1f} stored)"
            rows.append((row(f"ours, {named}, {how}", label, workers, load, added, memory), added))
        keyed = {"a2a", "a2a-keyed"} <= set(faces)
        return rows, interleaved(_session(keys[0]), server.url, SOLO_TURNS) if keyed else {}
    finally:
        server.stop()


def users_of(client: Callable[[str, str, int], list[float]], url: str, keys: list[str]) -> Callable:
    """The i-th user's conversation of TURNS turns on one face."""
    return lambda i: client(url, keys[i], TURNS)


def alone(user: Callable[[int], list[float]]) -> list[float]:
    """The turn latencies of SOLO_TURNS turns of one user, conversation after conversation, after one
    conversation not counted (the server's first requests warm it up)."""
    user(0)
    return [t for _ in range(SOLO_TURNS // TURNS) for t in user(0)]


def measured(
    server: Server, user: Callable[[int], list[float]], solo_p50: float
) -> tuple[float, tuple, float]:
    """(KiB of RSS per conversation, the load's figures, added ms per turn) of one face: one user alone
    (SOLO_TURNS turns), then USERS at once (measured), then USERS more conversations (their RSS growth)."""
    solo = statistics.median(alone(user)) * 1000
    load = under_load(user, USERS)
    before = rss_kib(server.process.pid)
    under_load(user, USERS)
    return (rss_kib(server.process.pid) - before) / USERS, load, solo - solo_p50


def _keys(env: dict[str, str], tmp: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", KEYS_SCRIPT, str(USERS)],
        env=env,
        cwd=tmp,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


KEYS_SCRIPT = """
import sys
from app.serve.database import open_agent_database
from app.serve.keys import KeyStore
from app.serve.settings import ServeSettings
db = open_agent_database(ServeSettings())
print(" ".join(KeyStore(db).add(f"user{i}") for i in range(int(sys.argv[1]))))
db.close()
"""


def _stored_kib(env: dict[str, str]) -> float:
    """The bytes of messages the database keeps per conversation, in KiB."""
    from app.serve.database import open_agent_database
    from app.serve.settings import ServeSettings

    settings = ServeSettings(
        _env_file=None, DATABASE_URL=env.get("DATABASE_URL"), AGENT_DB=env.get("AGENT_DB", "x")
    )
    db = open_agent_database(settings)
    try:
        with db.reading() as cursor:
            size = cursor.execute(
                "SELECT SUM(LENGTH(message)) * 1.0 / COUNT(DISTINCT conversation_id) AS n FROM messages"
            ).fetchone()["n"]
    finally:
        db.close()
    return float(size) / 1024


def peer(llm_url: str, tmp: Path, peers_python: str, workers: int, solo_p50: float) -> str:
    from plumbing.sockets import free_port

    port = free_port()
    command = [peers_python, str(ROOT / "benchmarks" / "serve_peer.py"), llm_url, str(port), str(workers)]
    server = Server(command, {**os.environ, "NO_PROXY": "127.0.0.1"}, tmp, f"http://127.0.0.1:{port}")
    try:
        grown, load, added = measured(server, lambda i: agui_user(server.url, "x", TURNS), solo_p50)
        return row("PydanticAI AG-UI app", "(none)", workers, load, added, f"{grown:.0f}")
    finally:
        server.stop()


SETUPS = {
    "sqlite1": ("SQLite", 1),
    "sqlite4": ("SQLite", 4),
    "postgres1": ("Postgres", 1),
    "postgres4": ("Postgres", 4),
}


def _listed(known: dict) -> Callable[[str], tuple[str, ...]]:
    """An argument's parser: names of `known`, comma-separated, measured in the order given."""

    def parse(given: str) -> tuple[str, ...]:
        names = tuple(dict.fromkeys(name.strip() for name in given.split(",")))
        if unknown := [name for name in names if name not in known]:
            raise argparse.ArgumentTypeError(f"not one of {', '.join(known)}: {', '.join(unknown)}")
        return names

    return parse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--serve", nargs=2, type=int, metavar=("PORT", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--peers-python", default=str(ROOT / "benchmarks" / ".venv-peers" / "bin" / "python"))
    parser.add_argument(
        "--before",
        type=Path,
        help="a checkout of the code before a change (git worktree add DIR COMMIT): its durable rows too, "
        "in the same run, and the ratio of ours to them",
    )
    parser.add_argument("--faces", type=_listed(CLIENTS), default=tuple(CLIENTS), help=", ".join(CLIENTS))
    parser.add_argument("--setups", type=_listed(SETUPS), default=tuple(SETUPS), help=", ".join(SETUPS))
    args = parser.parse_args()
    if args.serve:
        return serve_here(*args.serve)
    from plumbing.pgcluster import PostgresCluster

    with ExitStack() as stack:
        llm = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.scripted_llm"], stdout=subprocess.PIPE, text=True
        )
        stack.callback(llm.kill)
        assert llm.stdout is not None
        llm_url = llm.stdout.readline().strip()
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        postgres = stack.enter_context(PostgresCluster(durable=True))
        solo_p50 = statistics.median(alone(lambda i: inprocess_user(llm_url, TURNS))) * 1000
        inprocess = under_load(lambda i: inprocess_user(llm_url, TURNS), USERS)
        print(f"the served agent: {USERS} users x {TURNS} turns at once, 3 tool rounds + an answer a turn;")
        print(f"the in-process ChatAgent's p50 for one user alone: {solo_p50:.1f} ms a turn\n")
        print("| server | database | workers | turns/s | p50 ms | p99 ms | added ms/turn | KiB/conv |")
        print("|---|---|---|---|---|---|---|---|")
        print(row("in-process ChatAgent (threads)", "(none)", 1, inprocess, 0.0, "-"), flush=True)
        ratios: list[tuple[str, float, float]] = []
        keyings: list[str] = []
        for n, setup in enumerate(args.setups):
            backend, workers = SETUPS[setup]
            added: dict[str, list[float]] = {}
            runs = [("threads", False, ROOT), ("durable", True, ROOT)]
            runs += [("before", True, args.before)] if args.before else []
            for how, durable, root in runs:  # before durable turns, with them, and with the code before
                name = f"agent{n}{how}"
                database = str(tmp / f"{name}.db") if backend == "SQLite" else postgres.create_database(name)
                rows, p50 = ours(
                    llm_url, tmp, database, workers, solo_p50, durable, root.resolve(), args.faces
                )
                print("\n".join(line for line, _ in rows), flush=True)
                added[how] = [ms for _, ms in rows]
                if p50 and how != "before":  # (the code before a change may key no task)
                    keyings.append(keying(f"{backend}, {workers} worker(s), {how}", p50))
            base = "before" if args.before else "threads"
            for face, before, after in zip(args.faces, added[base], added["durable"], strict=True):
                ratios.append((f"{CLIENTS[face][0]}, {backend}, {workers} worker(s)", after, before))
        for workers in (1, 4) if Path(args.peers_python).exists() else ():
            print(peer(llm_url, tmp, os.path.abspath(args.peers_python), workers, solo_p50), flush=True)
        against = f"durable at {args.before.name}" if args.before else "threads"
        print(f"\nadded ms/turn, durable / {against} (ratio):")
        for label, after, before in ratios:
            times = f"{after / before:.1f}x" if before > 0 else "n/a"
            print(f"- {label}: {after:+.1f} / {before:+.1f} ms = {times}")
        if keyings:
            print(f"\nA2A, one user's p50 of {SOLO_TURNS} turns of each kind, interleaved turn by turn:")
            print("\n".join(keyings))
    return None


if __name__ == "__main__":
    main()
