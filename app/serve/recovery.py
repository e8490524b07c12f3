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

Finished turns' workflows are removed after RETENTION_DAYS (500 at a time): a turn's steps are kept in
its conversation, not in DBOS.
"""

from __future__ import annotations

import logging
import math
import threading
import time
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


class Heartbeat:
    def __init__(self, db: Database, executor: str, peer_seconds: float, version: str) -> None:
        self.db, self.executor, self.peer_seconds, self.version = db, executor, peer_seconds, version
        self.here = machine()
        self.stopped = threading.Event()
        self.pruned_at = -math.inf  # the first prune runs at once, however long ago the machine started

    def start(self) -> None:
        """Keep saying this executor lives, and, in a thread of their own (never delaying a beat),
        recover the dead ones' turns and remove old workflows, from now on."""
        self.recover()
        threading.Thread(target=self._every, args=(self.beat,), name="heartbeat", daemon=True).start()
        threading.Thread(target=self._every, args=(self._look,), name="recovery", daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _every(self, work: Callable[[], None]) -> None:
        while not self.stopped.wait(self.peer_seconds / 3):
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
        pending = DBOS.list_workflows(
            status="PENDING", name=WORKFLOW, app_version=self.version, load_input=False, load_output=False
        )
        orphaned = [w for w in pending if w.executor_id in claimed or w.executor_id not in known | live]
        if orphaned:
            DBOS.resume_workflows([w.workflow_id for w in orphaned])
            silent = sorted({w.executor_id or "" for w in orphaned})
            log.warning("executors %s silent: %d turn(s) recovered", ", ".join(silent), len(orphaned))
        self.db.write(  # the dead, long after their turns were taken up
            f"{clock(self.db)}DELETE FROM executors WHERE recovered_by IS NOT NULL "
            f"AND seen_at < (SELECT now FROM clock) - 10 * {TIMEOUT}"
        )
        return [w.workflow_id for w in orphaned]

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
