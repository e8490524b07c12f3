"""`open_store`: the device store for a database name — Postgres for a `postgresql://` URL, else a SQLite
file — so that callers never import a backend themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devicedb.store import DeviceStore


def open_store(database: str | Path, **options: Any) -> DeviceStore:
    """A Postgres store for a `postgresql://` URL, else a SQLite store on that file."""
    if str(database).startswith(("postgresql://", "postgres://")):
        from devicedb.postgres_store import PostgresStore

        return PostgresStore(str(database), **options)
    from devicedb.sqlite_store import SqliteStore

    return SqliteStore(database, **options)
