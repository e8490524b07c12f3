"""PostgresStore: the device store on PostgreSQL (psycopg 3 with a connection pool), for a shared service.

Transactions are READ COMMITTED: `ON CONFLICT` makes a racing insert of the same code or key wait for
the first one and then see it, which is all the rules of store.py need. Migrations run under an
advisory lock, so workers starting together apply each one once.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from devicedb.store import Cursor, DeviceStore

POOL_SIZE = 10
MIGRATION_LOCK = 0x0DE71CEDB  # any constant shared by every process that migrates this schema


class PostgresUnreachable(Exception):
    """The database named by DATABASE_URL did not accept a connection."""


class PostgresStore(DeviceStore):
    backend = "postgres"
    like = "ILIKE"
    order_by = 'model COLLATE "C"'

    def __init__(
        self, url: str, pool_size: int = POOL_SIZE, connect_timeout: float = 30, **options: Any
    ) -> None:
        super().__init__(**options)
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True, "row_factory": dict_row},
            open=True,
            name="devicedb",
        )
        try:
            self.pool.wait(timeout=connect_timeout)
        except PoolTimeout:
            self.pool.close()
            where = conninfo_to_dict(url)
            database, host = where.get("dbname"), where.get("host", "localhost")
            raise PostgresUnreachable(
                f"no connection to Postgres database {database!r} on {host} within {connect_timeout:g}s:"
                " check DATABASE_URL and that the server runs"
            ) from None
        self.migrate()

    @contextmanager
    def transaction(self) -> Iterator[Cursor]:
        with self.pool.connection() as conn, conn.transaction():
            yield QmarkCursor(conn.cursor())

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        with self.pool.connection() as conn:
            yield QmarkCursor(conn.cursor())

    @contextmanager
    def migration_lock(self) -> Iterator[Cursor]:
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            yield db

    def close(self) -> None:
        self.pool.close()


class QmarkCursor:
    """A psycopg cursor that takes the `?` placeholders of store.py (psycopg's own are `%s`)."""

    def __init__(self, cursor: psycopg.Cursor) -> None:
        self.cursor = cursor

    def execute(self, sql: str, params: tuple | list = ()) -> psycopg.Cursor:
        return self.cursor.execute(sql.replace("?", "%s"), params)  # type: ignore[call-overload]
