"""Database: what any store needs of its database, whatever the backend — transactions, and numbered SQL
migrations applied once — and DatabaseUnavailable, for a database that does not answer in a few seconds.

A backend (sqlite_store.py, postgres_store.py) brings connections, transactions and the few words of SQL
that differ. A store brings its rules and its migrations (`<folder>/<backend>/NNNN_name.sql`), recorded in
a version table of its own, so two stores may share one database: the device service's (store.py) and
the served agent's keys and conversations.

A database opened `durable=False` keeps every commit through a killed process, but a crash of the
machine may lose the last moments of them (SQLite: synchronous=NORMAL in WAL mode; Postgres:
synchronous_commit=off); it never leaves half a transaction. Commits then skip the wait for the disk.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from plumbing import telemetry


class DatabaseUnavailable(Exception):
    """The database did not answer in time: it is down, unreachable, or refuses connections."""


class Cursor(Protocol):
    """What a backend's transaction hands out: `execute` returns a DB-API cursor (rowcount, fetchone...)."""

    def execute(self, sql: str, params: tuple | list = ..., /) -> Any: ...


VERSIONS = "schema_version"  # the device service's version table; another store names its own
Adopt = Callable[[Cursor], None]  # brings a database made before migrations existed to where they start


class Database:
    backend = ""  # the folder of a store's migrations for it
    like = "LIKE"  # case-insensitive for ASCII letters
    binary_collation = ""  # what makes ORDER BY compare bytes
    now = ""  # the database's clock, in Unix seconds: one clock for every process that shares it

    def transaction(self) -> AbstractContextManager[Cursor]:
        """A write transaction: committed when the block ends, rolled back when it raises."""
        raise NotImplementedError

    def reading(self) -> AbstractContextManager[Cursor]:
        raise NotImplementedError

    def write(self, sql: str, params: tuple | list = ()) -> int:
        """One statement, committed on its own; how many rows it changed."""
        with self.transaction() as db:
            return db.execute(sql, params).rowcount

    def migration_lock(self) -> AbstractContextManager[Cursor]:
        """A transaction that no other process migrating the same database runs beside."""
        return self.transaction()

    def close(self) -> None:
        raise NotImplementedError

    def migrate(self, folder: Path, version_table: str = VERSIONS, adopt: Adopt | None = None) -> None:
        """Apply the migrations of `folder` this database has not seen, in order, under the migration lock."""
        with telemetry.span(f"{self.backend} migrate"), self.migration_lock() as db:  # one trace in all
            db.execute(
                f"CREATE TABLE IF NOT EXISTS {version_table} (version INTEGER PRIMARY KEY, "
                'name TEXT NOT NULL, "appliedAt" TEXT NOT NULL)'
            )
            if adopt:
                adopt(db)
            rows = db.execute(f"SELECT version FROM {version_table}").fetchall()
            applied = {row["version"] for row in rows}
            for version, path in migrations(folder / self.backend):
                if version in applied:
                    continue
                for statement in statements(path.read_text(encoding="utf-8")):
                    db.execute(statement)
                db.execute(
                    f"INSERT INTO {version_table} VALUES (?, ?, ?)", (version, path.name, iso(time.time()))
                )


def migrations(folder: Path) -> Iterator[tuple[int, Path]]:
    """(version, file) of `folder/NNNN_name.sql`, in order."""
    for path in sorted(folder.glob("[0-9][0-9][0-9][0-9]_*.sql")):
        yield int(path.name[:4]), path


def statements(script: str) -> list[str]:
    """The statements of a migration file (no `;` inside a statement, comments on their own lines)."""
    code = "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in code.split(";") if s.strip()]


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")
