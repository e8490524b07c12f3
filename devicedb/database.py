"""`open_database`: a database for a name — Postgres for a `postgresql://` URL, else a SQLite file — and
`open_store`, the device store on one, so that callers never import a backend themselves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devicedb.sqldb import Database
from devicedb.store import DeviceStore


def open_database(database: str | Path, durable: bool = True) -> Database:
    """A Postgres database for a `postgresql://` URL, else a SQLite database in that file (see sqldb.py
    for `durable`)."""
    if str(database).startswith(("postgresql://", "postgres://")):
        from devicedb.postgres_store import PostgresDatabase

        return PostgresDatabase(str(database), durable=durable)
    from devicedb.sqlite_store import SqliteDatabase

    return SqliteDatabase(database, durable=durable)


def open_store(database: str | Path, **options: Any) -> DeviceStore:
    """The device store on `database`, migrated; `options` go to DeviceStore (idempotency_ttl, clock)."""
    db = open_database(database)
    try:
        return DeviceStore(db, **options)
    except BaseException:
        db.close()
        raise
