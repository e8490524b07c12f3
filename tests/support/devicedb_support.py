"""Helpers of the device-service tests: read a database directly (SQLite or Postgres), a settable clock."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import psycopg


def query(database: str, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows of `sql` (`?` placeholders) run on `database`, a SQLite path or a postgresql:// URL."""
    if database.startswith("postgresql://"):
        with psycopg.connect(database) as conn:
            return [tuple(row) for row in conn.execute(sql.replace("?", "%s"), params).fetchall()]
    with closing(sqlite3.connect(database)) as conn:
        return conn.execute(sql, params).fetchall()


def execute(database: str, sql: str) -> None:
    """Run and commit one statement on `database`, as someone editing it by hand would."""
    if database.startswith("postgresql://"):
        with psycopg.connect(database) as conn:
            conn.execute(sql)
        return
    with closing(sqlite3.connect(database)) as conn, conn:
        conn.execute(sql)


def rows(database: str) -> list[tuple]:
    return query(database, 'SELECT model, "marketName", "marketNameEn" FROM models ORDER BY model')


def stored_keys(database: str) -> list[tuple]:
    return query(database, "SELECT key, model FROM idempotency ORDER BY key")


class Clock:
    """A clock the test moves by hand (the store's `clock`): `clock.now += 3600`."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now
