"""SqliteDatabase: a store's database on one SQLite file, the embedded default.

Every write takes the database's write lock first (BEGIN IMMEDIATE), in this process and in any other
worker on the same file, so a store's rules hold across threads and processes. Threads of one process
queue on a lock of their own first: SQLite's busy handler would make them sleep and retry.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from plumbing.sql import Cursor, Database


class SqliteDatabase(Database):
    backend = "sqlite"
    now = "((julianday('now') - 2440587.5) * 86400.0)"

    def __init__(self, path: str | Path, durable: bool = True) -> None:
        self.path = Path(path)
        self.synchronous = "FULL" if durable else "NORMAL"  # NORMAL: in WAL mode, commits skip the fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._writer = threading.Lock()
        self._opened: list[sqlite3.Connection] = []
        self._connect().execute("PRAGMA journal_mode=WAL")

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (a connection is used by one thread at a time)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            self._local.conn = conn
            self._opened.append(conn)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[Cursor]:
        conn = self._connect()
        with self._writer:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn.cursor()  # a cursor's SQL makes spans when traced; conn.execute's does not
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        yield self._connect().cursor()

    def close(self) -> None:
        for conn in self._opened:
            conn.close()
        self._opened.clear()
        self._local = threading.local()
