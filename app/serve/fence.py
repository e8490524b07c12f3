"""Fence: no step of a turn is written but by the execution that holds its lease (leases.py), at the
generation it took. Each taking of a lease (a turn admitted, a turn recovered) raises the generation, and
every step of a turn is conditioned on it: each message it stores and each mark before a call acts (in
the same transaction, the conversation's row locked), and each model request (a read just before it,
unless a step this thread wrote under the same lease less than CONFIRMED_SECONDS ago confirmed it). So
an execution that lost its lease — another took the turn up, believing its runner dead: paused, cut off
from the database, or named twice — stops before its next step and writes nothing more, and a turn runs
once, whoever recovers it.

A step also needs its person's key to be active: `keys revoke` stops that person's running turns, and a turn
cut off by a crash is not finished for a key revoked since.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from app.serve.errors import KeyRevoked, LeaseLost
from plumbing.sql import Cursor, Database

HELD = "id = ? AND lease_owner = ? AND lease_gen = ? AND state = 'running'"
KEY_ACTIVE = "EXISTS (SELECT 1 FROM api_keys k WHERE k.name = conversations.user_id AND k.revoked_at IS NULL)"
# A model request right after a step this thread stored under the lease (the person's message, a call's
# result) is not read for again: the write's condition was the same, moments before. Far below a
# lease's term, within which no recovery takes a live lease over.
CONFIRMED_SECONDS = 0.5
_confirmed = threading.local()  # (lease, time.monotonic()) of this thread's last fenced write


@dataclass(frozen=True)
class Lease:
    """Who holds a conversation's lease (a worker's executor), at which generation."""

    conversation_id: str
    owner: str
    gen: int

    def params(self) -> tuple[str, str, int]:
        return self.conversation_id, self.owner, self.gen


def hold(db: Cursor, lease: Lease) -> None:
    """In a write transaction: lock the conversation's row, if the lease is still `lease` and its person's
    key active; else raise, and the transaction writes nothing."""
    held = db.execute(
        f"UPDATE conversations SET lease_gen = lease_gen WHERE {HELD} AND {KEY_ACTIVE}", lease.params()
    ).rowcount
    if held != 1:
        raise _why(db, lease)


def insert(db: Database, lease: Lease, into: str, row: tuple, conflict: str = "") -> int:
    """Insert one row of a turn's step (`into`: the table and its columns; `conflict`: an ON CONFLICT
    clause), under its lease: how many rows it inserted. On Postgres one statement, whose UPDATE locks
    the conversation's row as `hold` does (one round trip, not four); elsewhere `hold`, then the insert,
    in a transaction."""
    values = ", ".join("?" * len(row))
    if db.backend != "postgres":
        with db.transaction() as cursor:
            hold(cursor, lease)
            inserted = int(cursor.execute(f"INSERT INTO {into} VALUES ({values}) {conflict}", row).rowcount)
        _confirmed.last = (lease, time.monotonic())
        return inserted
    held = f"UPDATE conversations SET lease_gen = lease_gen WHERE {HELD} AND {KEY_ACTIVE} RETURNING id"
    sql = f"WITH held AS ({held}) INSERT INTO {into} SELECT {values} FROM held {conflict}"
    inserted = db.write(sql, (*lease.params(), *row))  # one statement, committed on its own
    if inserted == 0:  # not held (raised here), or the row was there already
        check(db, lease, again=True)
    _confirmed.last = (lease, time.monotonic())
    return inserted


def check(db: Database, lease: Lease, again: bool = False) -> None:
    """Before a step that writes nothing here (a model request): raise if the lease is no longer `lease`
    (`again`: read even if a write of this thread confirmed it just now)."""
    last = getattr(_confirmed, "last", None)
    if not again and last is not None and last[0] == lease and time.monotonic() - last[1] < CONFIRMED_SECONDS:
        return
    with db.reading() as cursor:
        row = cursor.execute(f"SELECT 1 FROM conversations WHERE {HELD} AND {KEY_ACTIVE}", lease.params())
        if row.fetchone() is None:
            raise _why(cursor, lease)


def _why(db: Cursor, lease: Lease) -> Exception:
    row = db.execute(
        f"SELECT lease_owner, lease_gen, {KEY_ACTIVE} AS active FROM conversations WHERE id = ?",
        (lease.conversation_id,),
    ).fetchone()
    if row is not None and not row["active"]:
        return KeyRevoked("the key of this conversation's person was revoked; the turn stopped")
    return LeaseLost("another worker took this turn up; this one stopped before its next step")
