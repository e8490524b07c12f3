"""Recovery: a turn whose runner died runs again, once. Every RECOVERY_SECONDS each live worker looks for
the leases that are cut (leases.py: not renewed in time, or held by a process of this machine that is
gone), and passes each on at its next generation — so that one worker, whichever sees it first, does:

- a turn with an unfinished workflow is handed back to DBOS (its documented `list_workflows` and
  `resume_workflows`): its lease is held for nobody for a term, the workflow is queued again, and the
  live worker that takes it adopts the lease (turns.py);
- an approval's turn, which runs with no workflow of its own, is taken up here as a workflow started
  from what its conversation kept (admitted.py), which adopts the lease held for nobody meanwhile;
- a turn admitted but never started as a workflow (its worker died in between) has nothing for DBOS to
  resume: its lease is released, so that the client's re-send, or the client already following it, runs
  it at once.

A new start looks at once, so a restarted server or a replaced worker takes up the turns its earlier start
left. Finished turns' workflows are removed after RETENTION_DAYS (500 at a time): a turn's steps are kept
in its conversation, not in DBOS.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from dbos import DBOS

from app.serve.leases import RECOVERY_SECONDS, every, gone, lapsed
from plumbing.sql import Database

log = logging.getLogger("app.serve")
WORKFLOW = "served_turn"  # durable.py's
RETENTION_DAYS = 7
PRUNE_SECONDS = 3600.0  # how often a worker removes the workflows older than that
UNFINISHED = ["PENDING", "ENQUEUED"]  # a workflow that runs, or waits to be taken up
LEASED = "id = ? AND run_id = ? AND lease_gen = ? AND state = 'running'"
TakeUp = Callable[[str, str], None]  # (the turn its conversation kept, its user): its workflow started


def workflow_of(run_id: str) -> str:
    """A new workflow id for an execution of run `run_id` (durable.start): `turn-<run id>-<uuid>`."""
    return f"{prefix(run_id)}{uuid.uuid4().hex}"


def prefix(run_id: str) -> str:
    return f"turn-{run_id}-"


def run_of(workflow_id: str) -> str:
    """The run id a turn's workflow id names (`workflow_of`)."""
    return workflow_id.split("-")[1] if workflow_id.count("-") >= 2 else ""


class Recovery:
    def __init__(self, db: Database, term: float, version: str, take_up: TakeUp) -> None:
        self.db, self.term, self.version = db, term, version
        self.take_up = take_up  # starts the workflow of a kept turn, here (durable.py)
        self.pruned_at = -math.inf  # the first prune runs at once, however long ago the machine started

    def start(self) -> Callable[[], None]:
        """Take up the turns whose leases are cut, and remove old workflows, now and from now on (in a
        thread of its own); what stops it."""
        self.recover()
        return every(RECOVERY_SECONDS, self.look, "recovery")

    def look(self) -> None:
        self.recover()
        self.prune()

    def leases(self) -> list[Any]:
        """The cut leases of running turns."""
        with self.db.reading() as db:
            rows = db.execute(
                "SELECT id, user_id, run_id, lease_owner, lease_gen, lease_process, turn, "
                f"{lapsed(self.db)} AS lapsed "
                "FROM conversations WHERE lease_until IS NOT NULL AND state = 'running'",
                (self.term,),
            ).fetchall()
        ended = {held for held in {row["lease_process"] for row in rows} if gone(held)}  # each process once
        return [row for row in rows if row["lapsed"] or row["lease_process"] in ended]

    def recover(self) -> list[str]:
        """Pass on each cut lease: hand its turn back to DBOS, take up the turn its conversation kept, or
        release a turn that never started; the workflow ids queued again."""
        leases = self.leases()
        if not leases:
            return []
        flows = defaultdict(list)
        for flow in DBOS.list_workflows(
            status=UNFINISHED,
            name=WORKFLOW,
            app_version=self.version,
            workflow_id_prefix=[prefix(row["run_id"]) for row in leases],
            load_input=False,
            load_output=False,
        ):
            flows[run_of(flow.workflow_id)].append(flow)
        queued: list[str] = []
        silent, recovered = set(), 0
        flowing = {run for run, mine in flows.items() if mine}
        kept = {row["run_id"] for row in leases if row["turn"] is not None}
        for row, started in self._pass_on(leases, flowing | kept):
            if not started:
                log.warning(
                    "turn %s admitted by %s and never started: released", row["run_id"], row["lease_owner"]
                )
                continue
            silent.add(row["lease_owner"] or "")
            recovered += 1
            if row["run_id"] in flowing:
                queued += [flow.workflow_id for flow in flows[row["run_id"]] if flow.status == "PENDING"]
            else:
                self._take_up(row)
        if queued:
            DBOS.resume_workflows(queued)
        if recovered:
            log.warning("executors %s silent: %d turn(s) recovered", ", ".join(sorted(silent)), recovered)
        return queued

    def _take_up(self, row: Any) -> None:
        """Start the workflow of a turn its conversation kept; one that is no such turn (a row written by
        hand) is left to lapse again, and said."""
        try:
            self.take_up(row["turn"], row["user_id"])
        except ValueError as e:
            log.warning("turn %s not taken up: %s", row["run_id"], e)

    def _pass_on(self, leases: list[Any], started: set[str]) -> list[tuple[Any, bool]]:
        """Each cut lease handed back for a term (its run `started`: a workflow runs its turn), or released,
        in one transaction; those this worker passed on (another may have first), and whether started."""
        passed = []
        in_order = sorted(leases, key=lambda row: row["id"])  # one order: no two workers wait in a circle
        with self.db.transaction() as db:
            for row in in_order:
                run = row["run_id"] in started
                to = f"lease_until = {self.db.now} + ?" if run else "lease_until = NULL, state = 'released'"
                lease = (time.time(), row["id"], row["run_id"], row["lease_gen"])
                done = db.execute(
                    "UPDATE conversations SET lease_owner = NULL, lease_process = NULL, "
                    f"lease_gen = lease_gen + 1, {to}, updated_at = ? WHERE {LEASED}",
                    (self.term, *lease) if run else lease,
                ).rowcount
                passed += [(row, run)] if done else []
        return passed

    def prune(self) -> None:
        """Remove the workflows of turns that began over RETENTION_DAYS ago, once in a while (one unfinished
        since is no turn's: a lease lasts a turn's deadline and a minute)."""
        if time.monotonic() < self.pruned_at + PRUNE_SECONDS:
            return
        self.pruned_at = time.monotonic()
        before = datetime.fromtimestamp(time.time() - RETENTION_DAYS * 86400, UTC).isoformat()
        ended = DBOS.list_workflows(end_time=before, limit=500, load_input=False, load_output=False)
        if ended:
            DBOS.delete_workflows([w.workflow_id for w in ended])
