"""Durable: of a turn that runs once, DBOS keeps its input and that it is unfinished — the served agent's
turns as DBOS workflows, checkpointed in the agent's own database (the AGENT_DB file, or DATABASE_URL's
Postgres, in a schema `dbos`).

A turn, once admitted (turns.py), runs as a workflow in the server's turn threads, not in the request: a
client that goes away does not stop it. An approval's answer runs there with no workflow of its own: its
conversation keeps the turn (admitted.py), and a recovery starts its workflow from that if it was cut.
Each request to the model and each tool call is a step whose result the conversation keeps as it ends
(journal.py). When the server dies — `kill -9`, a lost machine — its
turns' leases are cut (leases.py), and a live worker, or the next start, hands their workflows back to
DBOS (recovery.py), which finishes them with nobody asking, from what was kept: a finished step is not run
again, a call cut off in the middle runs again only where that is safe (steps.py). A worker's lease owner
is its DBOS executor id; any execution of a turn but the one its request started is a recovery, which
adopts the turn's lease first, and every step is fenced (fence.py).

DBOS logs only warnings and errors: its start, migrations and recoveries stay out of the server's output.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from contextlib import ExitStack
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from dbos import DBOS, DBOSConfig, SetWorkflowID

from app.serve.admitted import Admitted
from app.serve.events import Bridge, Unwatched
from app.serve.recovery import Recovery, workflow_of
from app.serve.settings import ServeSettings
from app.serve.steps import OnceSteps
from plumbing.sql import Database

if TYPE_CHECKING:
    from app.serve.turns import Turns

NAME = "tool-use-agent"
# The turns a server recovers are those of this version: a new release of the code recovers the turns
# an older one left, since a turn goes on from what its conversation kept, not from DBOS's own record of
# its steps. Change it only when a turn's input (turns.Admitted) changes in a way an older one cannot be
# read as: fields added with defaults, or dropped (as `owner` was, for the lease's owner and generation),
# still read.
VERSION = "served-turn-1"
GRACE_SECONDS = 10  # as uvicorn's graceful shutdown
NOTIFY_SECONDS = 1.0
_turns: Turns | None = None  # the worker's, which the workflows of this process run on
# (workflow id, the request waiting on it) in the thread where the request started the turn: its first
# execution. Any other execution of it (DBOS's, after a restart or a peer's recovery) is a recovery.
_first: ContextVar[tuple[str, Bridge] | None] = ContextVar("first_execution", default=None)


def system_database(settings: ServeSettings) -> str:
    if settings.database_url:
        return settings.database_url
    return f"sqlite:///{Path(settings.agent_db).resolve()}"


def sqlite_connection(path: Path) -> Callable[[], sqlite3.Connection]:
    """DBOS's connections to the AGENT_DB file, which commit as the agent's own do: in WAL mode, without
    waiting for the disk (a killed process loses nothing committed; a power loss, the last moments)."""

    def connect() -> sqlite3.Connection:
        conn = sqlite3.connect(path, timeout=30, check_same_thread=False)
        conn.execute("PRAGMA synchronous=NORMAL")
        return conn

    return connect


def run_turns(settings: ServeSettings, turns: Turns, db: Database, stack: ExitStack, threads: int) -> None:
    """From now on `turns` runs each turn as a workflow, DBOS's executor being the turns' lease owner,
    until `stack` closes; and the turns whose leases are cut, here or on another server, are taken up
    (recovery.py), `threads` at once at most."""
    turns.runner = start
    turns.steps = lambda registry, conversation: OnceSteps(registry, turns.store, conversation)
    launch(settings, turns, turns.owner, threads)
    stack.callback(shutdown, turns.owner)
    stack.callback(Recovery(db, turns.limits.lease_seconds, VERSION, take_up).start())


def launch(settings: ServeSettings, turns: Turns, executor: str, threads: int) -> None:
    """Start DBOS in this worker, on the agent's database, running `threads` recovered turns at most."""
    global _turns
    _turns = turns
    config: DBOSConfig = {
        "name": NAME,
        "system_database_url": system_database(settings),
        "executor_id": executor,
        "application_version": VERSION,
        "log_level": "WARNING",
        "sys_db_pool_size": 8,
        "max_executor_threads": threads,  # DBOS's own default is a few (min(32, cores + 4))
        # its notifier wakes this often to push workflow events, messages and streams, none of which a
        # turn uses: DBOS's default (0.01 s) cost an idle worker 8 ms of CPU a second
        "notification_coalesce_sec": NOTIFY_SECONDS,
    }
    if not settings.database_url:
        config["db_engine_kwargs"] = {"creator": sqlite_connection(Path(settings.agent_db).resolve())}
    DBOS(config=config)
    logging.getLogger("dbos").setLevel(logging.WARNING)
    DBOS.launch()


def shutdown(executor: str) -> None:
    """Stop DBOS, giving the recovered turns under way in its threads a moment to end (those it cuts are
    recovered at the next start). The worker's own turn threads have ended before (workers.py). With no
    turn of `executor` under way it stops at once: DBOS naps a second before it first looks."""
    under_way = DBOS.list_workflows(
        status="PENDING", executor_id=executor, load_input=False, load_output=False, limit=1
    )
    DBOS.destroy(workflow_completion_timeout_sec=GRACE_SECONDS if under_way else 0)


def start(admitted: Admitted, bridge: Bridge) -> None:
    """Run the admitted turn as a workflow, here, in the thread the server gave the turn, telling `bridge`
    what happens (a turn recovered after a restart runs in DBOS's threads)."""
    workflow_id = workflow_of(admitted.conversation.run_id)
    first = _first.set((workflow_id, bridge))
    try:
        with SetWorkflowID(workflow_id):
            served_turn(admitted)
    finally:
        _first.reset(first)


def take_up(turn: str, user: str) -> None:
    """Start a workflow, here, that runs the turn its conversation kept (admitted.py: an approval's) as a
    recovery: it adopts the turn's lease first. ValueError when `turn` is no such turn."""
    admitted = Admitted.from_json(turn, user)
    with SetWorkflowID(workflow_of(admitted.conversation.run_id)):
        DBOS.start_workflow(served_turn, admitted)


@DBOS.workflow(name="served_turn")
def served_turn(admitted: Admitted) -> None:
    assert _turns is not None, "DBOS ran a turn before the worker launched it"
    first = _first.get()
    if first is not None and first[0] == DBOS.workflow_id:
        _turns.go_on(admitted, first[1])
    else:  # taken up again, here or anywhere: it adopts the lease first
        _turns.go_on(admitted, Unwatched(), recovered=True)
