"""Leases: who runs a served turn, and whether it still does — one answer to both, on one clock. A turn's
conversation is leased to the worker that runs it (its owner), at a generation each taking raises
(fence.py), until a moment on the database's clock. Its worker renews it every third of the one term every
server reads from the database (`term`: SERVE_PEER_SECONDS), while the turn runs there, up to the turn's
deadline and a minute. A lease not renewed in time, stamped past the term (no live worker writes that), or
held by a process of this machine that is gone is cut: its runner died, and recovery.py takes the turn up.

A worker replaced, or a server restarted on the same machine, has its turns taken up at once; a server
that went silent elsewhere, one term after its last renewal.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

from app.serve.errors import Stopped
from app.serve.fence import Lease
from plumbing.sql import Database

log = logging.getLogger("app.serve")
SLACK = 1.0  # seconds a stamp may seem ahead of the clock that reads it (two statements, one clock)
RECOVERY_SECONDS = 1.0  # how often each worker looks for cut leases (recovery.py)
FIRST = 3 * RECOVERY_SECONDS  # a lapsed lease is recovery's this long, before its conversation is free


def owner(name: str, slot: int) -> str:
    """Who holds the leases of a worker's turns (and is its DBOS executor): the server's name, the worker's
    slot, and this start of it (a server started twice under one name holds two)."""
    return f"{name or socket.gethostname()}-{slot}-{uuid.uuid4().hex[:8]}"


def term(db: Database, wanted: float) -> float:
    """The one term of a lease, which every server reads: the first server's SERVE_PEER_SECONDS, kept in
    the database, whatever later ones say."""
    with db.transaction() as cursor:
        cursor.execute(
            "INSERT INTO serve_settings (name, value) VALUES ('peer_seconds', ?) ON CONFLICT DO NOTHING",
            (repr(float(wanted)),),
        )
        row = cursor.execute("SELECT value FROM serve_settings WHERE name = 'peer_seconds'").fetchone()
        kept = float(row["value"])
    if kept != wanted:
        log.warning("SERVE_PEER_SECONDS is %g in the database, which all servers read; not %g", kept, wanted)
    return kept


def leased(db: Database) -> str:
    """SQL: is a conversation's lease held, by the database's clock — or lapsed so lately that recovery
    takes its turn up first (a client sending it again follows it then)?"""
    return f"COALESCE(lease_until >= {db.now} - {FIRST}, FALSE)"


def lapsed(db: Database) -> str:
    """SQL, with one `?` for the term: has a conversation's lease not been renewed in time, or been
    stamped past the term, by the database's clock?"""
    return f"(lease_until < {db.now} OR lease_until > {db.now} + ? + {SLACK})"


def taking(db: Database, owner: str, seconds: float) -> tuple[str, tuple]:
    """SQL's SET of a lease taken by `owner`, here, for `seconds`, at the next generation; its params."""
    sql = f"lease_owner = ?, lease_process = ?, lease_until = {db.now} + ?, lease_gen = lease_gen + 1"
    return sql, (owner, holder(), seconds)


@cache
def machine() -> str:
    """This machine's boot and process namespace: processes that share them see each other's pids."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:  # not Linux: no holder is known gone, only silent
        return ""


def process(pid: int | None = None) -> str:
    """A process as it is known on its machine: its pid and when it started (a pid is used again)."""
    pid = os.getpid() if pid is None else pid
    try:
        started = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""
    return f"{pid}:{started}"


def holder() -> str:
    """This process, as a lease names it: `pid:start@machine`."""
    return _holder(os.getpid())


@cache
def _holder(pid: int) -> str:
    """`holder()` of process `pid`, read once (a worker forked from another reads its own)."""
    return f"{process(pid)}@{machine()}"


def gone(held_by: str | None) -> bool:
    """Is the lease's holder (`holder()`) a process of this machine that no longer runs?"""
    known, _, where = (held_by or "").partition("@")
    if not known or not where or where != machine():
        return False
    return process(int(known.split(":")[0])) != known


def adopt(db: Database, lease: Lease, run_id: str, owner: str, seconds: float) -> Lease | None:
    """Take up the lease of run `run_id` for `owner`, at the next generation, if it was handed back
    (recovery.py) or cut; None while a live worker holds it. Stopped: the turn ended."""
    with db.transaction() as cursor:
        row = cursor.execute(
            f"SELECT lease_owner, lease_process, lease_gen, {lapsed(db)} AS lapsed FROM conversations "
            "WHERE id = ? AND run_id = ? AND state = 'running'",
            (seconds, lease.conversation_id, run_id),
        ).fetchone()
        if row is None:
            raise Stopped("the turn ended before it was recovered")
        if row["lease_owner"] is not None and not (row["lapsed"] or gone(row["lease_process"])):  # not cut
            return None
        sql, params = taking(db, owner, seconds)
        taken = cursor.execute(
            f"UPDATE conversations SET {sql} WHERE id = ? AND lease_gen = ? AND run_id = ? "
            "AND state = 'running' RETURNING lease_gen",
            (*params, lease.conversation_id, row["lease_gen"], run_id),
        ).fetchone()
    return Lease(lease.conversation_id, owner, taken["lease_gen"]) if taken else None


class Held:
    """The leases this worker's turns hold, each renewed every third of the term while its turn runs
    here, up to `seconds` after it was taken (the turn's deadline and a minute)."""

    def __init__(self, db: Database, term: float) -> None:
        self.db, self.term = db, term
        self.held: dict[object, tuple[Lease, float]] = {}  # each turn's lease, and until when it is renewed
        self.lock = threading.Lock()

    @contextlib.contextmanager
    def holding(self, lease: Lease, seconds: float) -> Iterator[None]:
        """Renew `lease` while the block runs, for `seconds` at most."""
        token = object()
        with self.lock:
            self.held[token] = (lease, time.monotonic() + seconds)
        try:
            yield
        finally:
            with self.lock:
                del self.held[token]

    def renew(self) -> None:
        with self.lock:
            leases = [lease for lease, until in self.held.values() if until > time.monotonic()]
        if leases:
            each = " OR ".join(["(id = ? AND lease_owner = ? AND lease_gen = ?)"] * len(leases))
            params = [value for lease in leases for value in lease.params()]
            renewed = f"lease_until = {self.db.now} + ?"
            self.db.write(
                f"UPDATE conversations SET {renewed} WHERE state = 'running' AND ({each})",
                (self.term, *params),
            )

    def start(self) -> Callable[[], None]:
        """Renew the leases held here every third of the term from now on; what stops it."""
        return every(self.term / 3, self.renew, "renewing the leases held here")


def every(seconds: float, work: Callable[[], None], what: str) -> Callable[[], None]:
    """Do `work` every `seconds`, in a thread of its own, until the function returned is called."""
    stopped = threading.Event()

    def loop() -> None:
        while not stopped.wait(seconds):
            try:
                work()
            except Exception:  # the database away for a moment: the next round tries again
                log.warning("%s failed", what, exc_info=True)

    threading.Thread(target=loop, name=what, daemon=True).start()
    return stopped.set
