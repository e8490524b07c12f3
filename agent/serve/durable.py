"""Durable: the served agent's turns as DBOS workflows, checkpointed in the agent's own database (the
AGENT_DB file, or DATABASE_URL's Postgres, in a schema `dbos`).

A turn, once admitted (turns.py), runs as a workflow in the server's turn threads, not in the request:
a client that goes away does not stop it. Each request to the model and each tool call is a step whose
result the conversation keeps as it ends (journal.py). When the server dies — `kill -9`, a lost
machine — the next start of a worker with the same executor id finds the turns it left unfinished and
finishes them with nobody asking, from what was kept: a finished step is not run again, a call cut off
in the middle runs again only where that is safe (steps.py).

DBOS logs only warnings and errors: its start, migrations and recoveries stay out of the server's output.
"""

from __future__ import annotations

import logging
import socket
import sqlite3
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from dbos import DBOS, DBOSConfig, SetWorkflowID

from agent.config import Settings
from agent.serve.events import Bridge, Unwatched
from agent.serve.recovery import Heartbeat
from agent.serve.steps import OnceSteps
from plumbing.sql import Database

if TYPE_CHECKING:
    from agent.serve.turns import Admitted, Turns

NAME = "tool-use-agent"
# The turns a server recovers are those of this version: a new release of the code recovers the turns
# an older one left, since a turn goes on from what its conversation kept, not from DBOS's own record of
# its steps. Change it only when a turn's input (turns.Admitted) changes shape.
VERSION = "served-turn-1"
GRACE_SECONDS = 10  # as uvicorn's graceful shutdown
_turns: Turns | None = None  # the worker's, which the workflows of this process run on
# workflow id -> the request waiting on it, while the turn runs in the server's thread (a recovered turn
# runs in DBOS's, and nobody waits on it)
_bridges: dict[str, Bridge] = {}


def executor_id(settings: Settings, slot: int = 0) -> str:
    """Who runs a turn: worker `slot` of this server (SERVE_NAME, else the machine's name). A worker that
    replaces a dead one takes its slot, and so its unfinished turns; so does the same slot restarted."""
    return f"{settings.serve_name or socket.gethostname()}-{slot}"


def system_database(settings: Settings) -> str:
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


def run_turns(settings: Settings, turns: Turns, db: Database, slot: int, stack: ExitStack) -> None:
    """From now on `turns` runs each turn as a workflow of worker `slot`, until `stack` closes. The turns
    this executor left unfinished are recovered in the background, and those of a worker that died,
    here or on another server (recovery.py)."""
    turns.runner = start
    turns.steps = lambda registry: OnceSteps(registry, turns.store)
    launch(settings, turns, slot)
    stack.callback(shutdown)
    heartbeat = Heartbeat(db, executor_id(settings, slot), settings.serve_peer_seconds)
    heartbeat.start()
    stack.callback(heartbeat.stop)


def launch(settings: Settings, turns: Turns, slot: int = 0) -> None:
    """Start DBOS in this worker, on the agent's database."""
    global _turns
    _turns = turns
    config: DBOSConfig = {
        "name": NAME,
        "system_database_url": system_database(settings),
        "executor_id": executor_id(settings, slot),
        "application_version": VERSION,
        "log_level": "WARNING",
        "sys_db_pool_size": 8,
    }
    if not settings.database_url:
        config["db_engine_kwargs"] = {"creator": sqlite_connection(Path(settings.agent_db).resolve())}
    DBOS(config=config)
    logging.getLogger("dbos").setLevel(logging.WARNING)
    DBOS.launch()


def shutdown() -> None:
    """Stop DBOS, giving the recovered turns under way in its threads a moment to end (those it cuts are
    recovered at the next start). The worker's own turn threads have ended before (workers.py)."""
    DBOS.destroy(workflow_completion_timeout_sec=GRACE_SECONDS)


def start(admitted: Admitted, bridge: Bridge) -> None:
    """Run the admitted turn as a workflow, here, in the thread the server gave the turn, telling `bridge`
    what happens (a turn recovered after a restart runs in DBOS's threads)."""
    workflow_id = f"turn-{admitted.conversation.run_id}-{uuid.uuid4().hex}"
    _bridges[workflow_id] = bridge
    try:
        with SetWorkflowID(workflow_id):
            served_turn(admitted)
    finally:
        _bridges.pop(workflow_id, None)


@DBOS.workflow(name="served_turn")
def served_turn(admitted: Admitted) -> None:
    assert _turns is not None, "DBOS ran a turn before the worker launched it"
    bridge = _bridges.get(DBOS.workflow_id or "") or Unwatched()
    _turns.go_on(admitted, bridge)
