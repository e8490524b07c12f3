"""The A2A turns of the served agent's bench (benchmarks/serve_bench.py): a turn is one JSON-RPC SendMessage
and its task, in one context (the same conversation, turn after turn), in a new contextId each, or with no
contextId (the task and its conversation keyed on the person and the message's id, app/serve/a2a_placing.py:
one more read of the person's key and of the task store a task); and what the keying costs, one user's
turns of the three kinds interleaved turn by turn, so that the machine's load falls on each alike.

`python -m benchmarks.serve_a2a [--calls N]`: the keying alone, in this process: the p50 of the server's
`place` (app/serve/a2a_placing.py) for a new message with no contextId, and with one, on SQLite and on a
throwaway Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import requests
from a2a.auth.user import User
from a2a.server.context import ServerCallContext
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest

CONTEXTS = ("one", "none", "new")  # one context, no contextId (keyed), a new contextId a turn
TURNS_A_CONTEXT = 10  # as the bench's users


def a2a_turn(session: requests.Session, url: str, contexts: str, context: str) -> float:
    """The seconds of one turn: a task in `context` (contexts "one"), a new context, or none."""
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "go"}]}
    if contexts != "none":
        message["contextId"] = context if contexts == "one" else uuid.uuid4().hex
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
    started = time.perf_counter()
    answer = session.post(f"{url}/a2a", json=body, headers={"A2A-Version": "1.0"}, timeout=120)
    took = time.perf_counter() - started
    if answer.status_code != 200:
        raise SystemExit(f"the server answered {answer.status_code}: {answer.text[:300]}")
    state = answer.json().get("result", {}).get("task", {}).get("status", {}).get("state")
    if state != "TASK_STATE_COMPLETED":
        raise SystemExit(f"an A2A task did not complete: {answer.text[:300]}")
    return took


def interleaved(session: requests.Session, url: str, turns: int) -> dict[str, float]:
    """The p50 ms of `turns` turns of each kind, one of each in turn, after a round not counted; the
    one-context turns go on in one context for TURNS_A_CONTEXT turns, then in a new one."""
    took: dict[str, list[float]] = {kind: [] for kind in CONTEXTS}
    context = ""
    for n in range(turns + 1):
        if n % TURNS_A_CONTEXT == 0:
            context = uuid.uuid4().hex
        for kind in CONTEXTS:
            seconds = a2a_turn(session, url, kind, context)
            if n:
                took[kind].append(seconds)
    return {kind: statistics.median(seconds) * 1000 for kind, seconds in took.items()}


def keying(where: str, p50: dict[str, float]) -> str:
    """One line under the bench's table: the keyed turn's p50 against the other two kinds'."""
    keyed, one, new = p50["none"], p50["one"], p50["new"]
    return (
        f"- {where}: no contextId {keyed:.1f} ms; one context {one:.1f} ms ({keyed - one:+.1f}); "
        f"a new contextId a turn {new:.1f} ms ({keyed - new:+.1f})"
    )


class Person(User):
    """The signed-in person `place` reads the key of (as the host's API key check puts them)."""

    is_authenticated, user_name = True, "bench"


def placing_ms(database: str, calls: int) -> dict[str, float]:
    """The p50 ms of `place` for `calls` new messages with no contextId (keyed) and with one (not)."""
    from app.serve.a2a_placing import place
    from app.serve.a2a_store import A2ATaskStore
    from app.serve.conversations import ConversationStore
    from app.serve.database import open_agent_database
    from app.serve.keys import KeyStore
    from app.serve.settings import ServeSettings

    url = database if database.startswith("postgresql://") else None
    db = open_agent_database(ServeSettings(_env_file=None, DATABASE_URL=url, AGENT_DB=database))
    KeyStore(db).add(Person.user_name)
    tasks, store, context = A2ATaskStore(db), ConversationStore(db), ServerCallContext(user=Person())

    async def placed(context_id: str) -> float:
        message = Message(message_id=uuid.uuid4().hex, role=Role.ROLE_USER, parts=[Part(text="go")])
        message.context_id = context_id
        started = time.perf_counter()
        await place(SendMessageRequest(message=message), context, tasks, store)
        return time.perf_counter() - started

    async def both() -> dict[str, float]:
        took: dict[str, list[float]] = {"no contextId": [], "a contextId": []}
        for _ in range(calls):
            took["no contextId"].append(await placed(""))
            took["a contextId"].append(await placed(uuid.uuid4().hex))
        return {kind: statistics.median(seconds) * 1000 for kind, seconds in took.items()}

    try:
        return asyncio.run(both())
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    from plumbing.pgcluster import PostgresCluster

    with tempfile.TemporaryDirectory() as tmp, PostgresCluster(durable=True) as postgres:
        databases = {"SQLite": str(Path(tmp) / "agent.db"), "Postgres": postgres.create_database("placing")}
        print(
            f"the A2A face's placing of a new message (app/serve/a2a_placing.py), p50 of {args.calls} calls:"
        )
        for label, database in databases.items():
            p50 = placing_ms(database, args.calls)
            print(f"- {label}: " + "; ".join(f"{kind} {ms:.3f} ms" for kind, ms in p50.items()))


if __name__ == "__main__":
    main()
