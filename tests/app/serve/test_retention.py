"""Turns' DBOS workflows are removed after RETENTION_DAYS (7): the prune asks DBOS's public API for the
workflows that began before then, and deletes exactly those, at most once an hour (recovery.py)."""

from __future__ import annotations

import math
import time
from datetime import datetime

from app.serve import recovery


class Workflows:
    """DBOS's `list_workflows` and `delete_workflows`, as the prune calls them: what it asked, what went."""

    def __init__(self) -> None:
        self.asked: list[dict] = []
        self.deleted: list[list[str]] = []

    def list_workflows(self, **query: object) -> list:
        self.asked.append(query)
        return [type("Workflow", (), {"workflow_id": f"w{i}"})() for i in range(3)]

    def delete_workflows(self, ids: list[str]) -> None:
        self.deleted.append(ids)


def test_workflows_that_began_over_7_days_ago_are_deleted_once_an_hour(monkeypatch):
    dbos = Workflows()
    monkeypatch.setattr(recovery, "DBOS", dbos)
    looking = recovery.Recovery.__new__(recovery.Recovery)  # the prune needs none of its database
    looking.pruned_at = -math.inf  # as a new recovery starts: monotonic() may be under an hour
    looking.prune()
    looking.prune()  # within the hour: nothing asked again
    [query] = dbos.asked
    assert recovery.RETENTION_DAYS == 7
    assert "status" not in query  # ended, or left unfinished by no turn: a lease lasts minutes, not days
    cutoff = datetime.fromisoformat(str(query["end_time"])).timestamp()
    assert abs(cutoff - (time.time() - 7 * 86400)) < 60
    assert dbos.deleted == [["w0", "w1", "w2"]]
