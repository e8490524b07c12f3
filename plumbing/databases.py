"""`open_database`: a database for a name — Postgres for a `postgresql://` URL, else a SQLite file — so that
callers never import a backend themselves."""

from __future__ import annotations

from pathlib import Path

from plumbing.sql import Database


def open_database(database: str | Path, durable: bool = True) -> Database:
    """A Postgres database for a `postgresql://` URL, else a SQLite database in that file (see sql.py
    for `durable`)."""
    if str(database).startswith(("postgresql://", "postgres://")):
        from plumbing.postgres import PostgresDatabase

        return PostgresDatabase(str(database), durable=durable)
    from plumbing.sqlite import SqliteDatabase

    return SqliteDatabase(database, durable=durable)
