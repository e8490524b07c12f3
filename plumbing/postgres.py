"""PostgresDatabase: a store's database on PostgreSQL (psycopg 3 with a connection pool), for a shared
service.

Transactions are READ COMMITTED: `ON CONFLICT` makes a racing insert of the same key wait for the first
one and then see it, which is all the stores' rules need. Migrations run under an advisory lock, so
workers starting together apply each one once. A database that is down is DatabaseUnavailable within
`wait_timeout` seconds: no connection comes free in that time, or the one in hand has been lost.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool, PoolTimeout

from plumbing.sql import Cursor, Database, DatabaseUnavailable

POOL_SIZE = 10
WAIT_TIMEOUT = 5.0  # seconds a request waits for a connection before the database counts as down
MIGRATION_LOCK = 0x0DE71CEDB  # any constant shared by every process that migrates this database
LOST = ("08", "57")  # SQLSTATE classes: connection exception, operator intervention (shutdown, cancel)


class PostgresUnreachable(Exception):
    """The database named by DATABASE_URL did not accept a connection."""


class PostgresDatabase(Database):
    backend = "postgres"
    like = "ILIKE"
    binary_collation = ' COLLATE "C"'
    now = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"

    def __init__(
        self,
        url: str,
        pool_size: int = POOL_SIZE,
        connect_timeout: float = 30,
        wait_timeout: float = WAIT_TIMEOUT,
        durable: bool = True,
    ) -> None:
        self.wait_timeout = wait_timeout
        connect_timeout_s = max(1, round(wait_timeout))
        connection: dict = {"autocommit": True, "row_factory": dict_row, "connect_timeout": connect_timeout_s}
        if not durable:
            connection["options"] = "-c synchronous_commit=off"
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs=connection,
            open=True,
            timeout=wait_timeout,
            name="sql",
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

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout:
            raise DatabaseUnavailable(f"no database connection within {self.wait_timeout:g}s") from None
        except psycopg.OperationalError as e:
            if e.sqlstate is not None and not e.sqlstate.startswith(LOST):
                raise
            raise DatabaseUnavailable("the connection to the database was lost") from None

    @contextmanager
    def transaction(self) -> Iterator[Cursor]:
        with self._connection() as conn, conn.transaction():
            yield QmarkCursor(conn.cursor())

    @contextmanager
    def reading(self) -> Iterator[Cursor]:
        with self._connection() as conn:
            yield QmarkCursor(conn.cursor())

    def write(self, sql: str, params: tuple | list = ()) -> int:
        """One statement in autocommit: atomic, without the round trips of BEGIN and COMMIT."""
        with self.reading() as db:
            return db.execute(sql, params).rowcount

    @contextmanager
    def migration_lock(self) -> Iterator[Cursor]:
        with self.transaction() as db:
            db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            yield db

    def close(self) -> None:
        self.pool.close()


class QmarkCursor:
    """A psycopg cursor that takes the `?` placeholders of the stores' SQL (psycopg's own are `%s`)."""

    def __init__(self, cursor: psycopg.Cursor) -> None:
        self.cursor = cursor

    def execute(self, sql: str, params: tuple | list = ()) -> psycopg.Cursor:
        return self.cursor.execute(sql.replace("?", "%s"), params)  # type: ignore[call-overload]
