"""Recovery across workers and servers sharing one database: each worker's DBOS executor says that it lives
(its row in `executors`, renewed every third of SERVE_PEER_SECONDS), and one not heard from for
SERVE_PEER_SECONDS has died — a whole server killed, a machine lost, a slot no longer started. Any live
worker then hands the dead executor's unfinished turns back to DBOS (its recovery: they are queued
again, and one live worker takes each), and forgets it. Several live workers doing so at once recover each
turn once: DBOS re-queues only turns still marked as the dead executor's.

A worker restarted under the same executor id (the same SERVE_NAME and slot) recovers its own at once,
when DBOS starts (durable.py); this is for the executors nobody restarts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from dbos import DBOS

from plumbing.sql import Database

log = logging.getLogger("agent.serve")


class Heartbeat:
    def __init__(
        self, db: Database, executor: str, peer_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.db, self.executor, self.peer_seconds, self.clock = db, executor, peer_seconds, clock
        self.stopped = threading.Event()

    def start(self) -> None:
        self.beat()
        threading.Thread(target=self._run, name="heartbeat", daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _run(self) -> None:
        while not self.stopped.wait(self.peer_seconds / 3):
            try:
                self.beat()
                self.recover()
            except Exception:  # the database away for a moment: the next beat tries again
                log.warning("heartbeat of %s failed", self.executor, exc_info=True)

    def beat(self) -> None:
        self.db.write(
            "INSERT INTO executors (id, seen_at) VALUES (?, ?) "
            "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
            (self.executor, self.clock()),
        )

    def recover(self) -> list[str]:
        """Recover the turns of the executors that died; their ids."""
        silent_since = self.clock() - self.peer_seconds
        with self.db.reading() as db:
            rows = db.execute("SELECT id FROM executors WHERE seen_at < ?", (silent_since,)).fetchall()
        dead = [row["id"] for row in rows]
        if dead:
            recovered = DBOS._recover_pending_workflows(dead)  # internal: as DBOS recovers its own at launch
            if recovered:
                log.warning("executors %s silent: %d turn(s) recovered", ", ".join(dead), len(recovered))
            for executor in dead:
                self.db.write("DELETE FROM executors WHERE id = ? AND seen_at < ?", (executor, silent_since))
        return dead
