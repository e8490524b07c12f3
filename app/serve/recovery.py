"""Recovery across workers and servers sharing one database: each worker is an executor (executors.py)
that says it lives every third of the one timeout; a live worker claims each executor that has died —
silent past the timeout, stamped in the future, or a process of this machine that is gone — and hands its
unfinished turns back to DBOS (its documented `list_workflows` and `resume_workflows`: they are queued
again, and one live worker takes each). One claims a dead executor, so its turns are queued once (those
of an executor no row names, every worker queues: the fence keeps them to one run). A new
start does so at once, so a restarted server or a replaced worker takes up the turns its earlier start
left.

Whoever takes a turn up must adopt its lease first, and every step it takes is fenced (fence.py): a turn
resumed twice by two peers at once, or taken from an executor that only seemed dead, still runs once.

A turn a dead executor admitted but had not yet started as a workflow has nothing for DBOS to resume: its
lease is released (`released`, at a new generation), so that the client's re-send, or the client already
following it, runs it at once instead of waiting the lease out. Recovery looks every RECOVERY_SECONDS.

Finished turns' workflows are removed after RETENTION_DAYS (500 at a time): a turn's steps are kept in
its conversation, not in DBOS.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from dbos import DBOS

from app.serve.executors import FRESH, TIMEOUT, alive, clock, machine, say_alive
from plumbing.sql import Database

log = logging.getLogger("app.serve")
WORKFLOW = "served_turn"  # durable.py's
RETENTION_DAYS = 7
PRUNE_SECONDS = 3600.0  # how often a worker removes the workflows older than that
RECOVERY_SECONDS = 2.0  # how often a worker looks for the dead (at most; a third of the timeout if less)
UNFINISHED = ["PENDING", "ENQUEUED"]  # a workflow that runs, or waits to be taken up
RELEASE = (
    "UPDATE conversations SET lease_owner = NULL, lease_until = NULL, lease_gen = lease_gen + 1, "
    "state = 'released', updated_at = ? WHERE id = ? AND run_id = ? AND lease_owner = ? AND lease_gen = ? "
    "AND state = 'running'"
)


def workflow_of(run_id: str) -> str:
    """A new workflow id for an execution of run `run_id` (durable.start): `turn-<run id>-<uuid>`."""
    return f"turn-{run_id}-{uuid.uuid4().hex}"


def run_of(workflow_id: str) -> str:
    """The run id a turn's workflow id names (`workflow_of`)."""
    return workflow_id.split("-")[1] if workflow_id.count("-") >= 2 else ""


class Heartbeat:
    def __init__(self, db: Database, executor: str, peer_seconds: float, version: str) -> None:
        self.db, self.executor, self.peer_seconds, self.version = db, executor, peer_seconds, version
        self.here = machine()
        self.stopped = threading.Event()
        self.pruned_at = -math.inf  # the first prune runs at once, however long ago the machine started
        self.listed_at = -math.inf  # when it last listed the unfinished workflows

    def start(self) -> None:
        """Keep saying this executor lives, and, in a thread of their own (never delaying a beat),
        recover the dead ones' turns and remove old workflows, from now on."""
        self.recover()
        beat, look = self.peer_seconds / 3, min(self.peer_seconds / 3, RECOVERY_SECONDS)
        threading.Thread(target=self._every, args=(self.beat, beat), name="heartbeat", daemon=True).start()
        threading.Thread(target=self._every, args=(self._look, look), name="recovery", daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _every(self, work: Callable[[], None], seconds: float) -> None:
        while not self.stopped.wait(seconds):
            try:
                work()
            except Exception:  # the database away for a moment: the next round tries again
                log.warning("%s of %s failed", work.__name__, self.executor, exc_info=True)

    def _look(self) -> None:
        self.recover()
        self.prune()

    def beat(self) -> None:
        say_alive(self.db, self.executor, self.here)

    def executors(self) -> list[Any]:
        """Every executor's row, with `fresh`: heard from within the timeout, by the database's clock."""
        with self.db.reading() as db:
            return list(
                db.execute(
                    f"{clock(self.db)}SELECT e.id, e.seen_at, e.machine, e.process, e.recovered_by, "
                    f"{FRESH} AS fresh FROM clock, executors e"
                ).fetchall()
            )

    def live(self, rows: list[Any] | None = None) -> set[str]:
        """The executors alive now (of `rows`, when given)."""
        rows = self.executors() if rows is None else rows
        return {row["id"] for row in rows if alive(row, self.here)} | {self.executor}

    def recover(self) -> list[str]:
        """Queue again the unfinished turns of the executors that died and this one claimed (or that no
        executor's row names); their workflow ids."""
        rows = self.executors()
        live = self.live(rows)
        dead = [row for row in rows if row["id"] not in live]
        claimed = {
            row["id"] for row in dead if row["recovered_by"] == self.executor or self._claim(row, live)
        }
        known = {row["id"] for row in rows}
        if not claimed and time.monotonic() < self.listed_at + self.peer_seconds / 3:
            return []  # nobody died: the workflows of executors no row names are looked for less often
        self.listed_at = time.monotonic()
        unfinished = DBOS.list_workflows(
            status=UNFINISHED, name=WORKFLOW, app_version=self.version, load_input=False, load_output=False
        )
        orphaned = [
            w
            for w in unfinished
            if w.status == "PENDING" and (w.executor_id in claimed or w.executor_id not in known | live)
        ]
        if orphaned:
            DBOS.resume_workflows([w.workflow_id for w in orphaned])
            silent = sorted({w.executor_id or "" for w in orphaned})
            log.warning("executors %s silent: %d turn(s) recovered", ", ".join(silent), len(orphaned))
        self._release(claimed, {run_of(w.workflow_id) for w in unfinished})
        self.db.write(  # the dead, long after their turns were taken up
            f"{clock(self.db)}DELETE FROM executors WHERE recovered_by IS NOT NULL "
            f"AND seen_at < (SELECT now FROM clock) - 10 * {TIMEOUT}"
        )
        return [w.workflow_id for w in orphaned]

    def _release(self, dead: set[str], running: set[str]) -> None:
        """Release the leases the `dead` executors hold on turns that have no workflow `running`."""
        if not dead:
            return
        marks = ", ".join("?" * len(dead))
        with self.db.reading() as db:
            held = db.execute(
                "SELECT id, run_id, lease_owner, lease_gen FROM conversations "
                f"WHERE state = 'running' AND lease_owner IN ({marks})",
                tuple(dead),
            ).fetchall()
        cut = [row for row in held if row["run_id"] not in running]
        for row in cut:
            lease = (row["id"], row["run_id"], row["lease_owner"], row["lease_gen"])
            self.db.write(RELEASE, (time.time(), *lease))
        if cut:
            log.warning("%d turn(s) admitted by dead executors and never started: released", len(cut))

    def _claim(self, dead: Any, live: set[str]) -> bool:
        """Claim a dead executor's turns, unless a live one did (one that died since may be replaced)."""
        if dead["recovered_by"] in live:
            return False
        return (
            self.db.write(
                "UPDATE executors SET recovered_by = ? WHERE id = ? AND seen_at = ? "
                "AND COALESCE(recovered_by, '') = ?",
                (self.executor, dead["id"], dead["seen_at"], dead["recovered_by"] or ""),
            )
            == 1
        )

    def prune(self) -> None:
        """Remove the workflows of turns that ended over RETENTION_DAYS ago, once in a while."""
        if time.monotonic() < self.pruned_at + PRUNE_SECONDS:
            return
        self.pruned_at = time.monotonic()
        before = datetime.fromtimestamp(time.time() - RETENTION_DAYS * 86400, UTC).isoformat()
        ended = DBOS.list_workflows(
            status=["SUCCESS", "ERROR"],
            completed_before=before,
            limit=500,
            load_input=False,
            load_output=False,
        )
        if ended:
            DBOS.delete_workflows([w.workflow_id for w in ended])
