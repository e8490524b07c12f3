"""Executors: who runs served turns — one start of one worker process, under an id no other start has — and
whether one is alive. An executor says it lives in its `executors` row, stamped with the database's clock;
one not heard from for the one timeout every server reads from the database (`peer_seconds`), or stamped in
the future (no live executor writes that), has died. One on this machine whose process is gone has died at
once: a worker replaced, or a server restarted in the same process namespace, takes up its turns without
waiting (a container restarted in a new one waits for the timeout).
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from functools import cache
from pathlib import Path
from typing import Any

from plumbing.sql import Database

log = logging.getLogger("app.serve")
SLACK = 1.0  # seconds a stamp may seem ahead of the clock that reads it (two statements, one clock)
# In a query `WITH clock AS (SELECT <the database's clock> AS now) ...` on executors `e`: has `e` said it
# lives within the timeout, and not in the future?
TIMEOUT = "(SELECT CAST(value AS DOUBLE PRECISION) FROM serve_settings WHERE name = 'peer_seconds')"
FRESH = f"(e.seen_at >= clock.now - {TIMEOUT} AND e.seen_at <= clock.now + {SLACK})"


def clock(db: Database) -> str:
    """The CTE that names the database's clock `clock.now`."""
    return f"WITH clock AS (SELECT {db.now} AS now) "


def new_id(name: str, slot: int) -> str:
    """An executor id: the server's name, the worker's slot, and this start of it."""
    return f"{name or socket.gethostname()}-{slot}-{uuid.uuid4().hex[:8]}"


def peer_seconds(db: Database, wanted: float) -> float:
    """The one timeout after which a silent executor has died: the first server's SERVE_PEER_SECONDS,
    kept in the database, whatever later ones say."""
    with db.transaction() as cursor:
        cursor.execute(
            "INSERT INTO serve_settings (name, value) VALUES ('peer_seconds', ?) "
            "ON CONFLICT (name) DO NOTHING",
            (repr(float(wanted)),),
        )
        row = cursor.execute("SELECT value FROM serve_settings WHERE name = 'peer_seconds'").fetchone()
        kept = float(row["value"])
    if kept != wanted:
        log.warning("SERVE_PEER_SECONDS is %g in the database, which all servers read; not %g", kept, wanted)
    return kept


@cache
def machine() -> str:
    """This machine's boot and process namespace: processes that share them see each other's pids."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:  # not Linux: no executor is known gone, only silent
        return ""


def process(pid: int | None = None) -> str:
    """A process as it is known on its machine: its pid and when it started (a pid is used again)."""
    pid = os.getpid() if pid is None else pid
    try:
        started = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""
    return f"{pid}:{started}"


def gone(row: Any, here: str) -> bool:
    """Is the executor of `row` (machine, process) a process of this machine that no longer runs?"""
    if not here or row["machine"] != here or not row["process"]:
        return False
    return process(int(row["process"].split(":")[0])) != row["process"]


def alive(row: Any, here: str) -> bool:
    """Is the executor of `row` (its `fresh` stamp, machine and process) alive, seen from machine `here`?"""
    return bool(row["fresh"]) and not gone(row, here)


def say_alive(db: Database, executor: str, here: str) -> None:
    """Stamp `executor`'s row with the database's clock."""
    db.write(
        f"INSERT INTO executors (id, seen_at, machine, process) VALUES (?, {db.now}, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, recovered_by = NULL",
        (executor, here, process()),
    )
