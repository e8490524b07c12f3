"""DeviceStore: the device service's data rules, the same on every database.

A database (plumbing/sql.py: SQLite or Postgres) brings connections, transactions and the few words of
SQL that differ; the SQL here is written once, with `?` placeholders and quoted column names. The rules:
- one row per code: `INSERT ... ON CONFLICT` inside a transaction;
- an Idempotency-Key is claimed first in the add's own transaction, so racing requests with one key
  wait for each other and all get the one stored response; a different body with the key is a conflict;
- a change of market names (`update`) takes a key the same way; an unknown code changes nothing and
  claims no key;
- keys expire `idempotency_ttl` seconds (24 h) after their first use and are purged, so the table stays
  bounded; deleting a model forgets the keys that answered for it, so a retry after the DELETE adds the
  model again and says so (201) instead of replaying a record that is gone.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from rapidfuzz.distance import OSA

from plumbing import sql
from plumbing.sql import Cursor, Database, iso

IDEMPOTENCY_TTL = 24 * 3600.0
PURGE_EVERY = 60.0
MIGRATIONS = Path(__file__).parent / "migrations"
COLUMNS = 'model, "marketName", "marketNameEn", "createdAt", "createdBy"'


class IdempotencyConflict(Exception):
    """The idempotency key was already used with a different body."""


class NoSuchModel(Exception):
    """No stored model has this code."""


class DeviceStore:
    """The device service's rules on a database (plumbing.sql.Database), which it migrates when it opens."""

    def __init__(
        self, db: Database, idempotency_ttl: float = IDEMPOTENCY_TTL, clock: Callable[[], float] = time.time
    ) -> None:
        self.db = db
        self.idempotency_ttl, self.clock = idempotency_ttl, clock
        self._next_purge = 0.0
        self.order_by = f"model{db.binary_collation}"
        db.migrate(MIGRATIONS, adopt=adopt_unversioned if db.backend == "sqlite" else None)

    def transaction(self) -> AbstractContextManager[Cursor]:
        return self.db.transaction()

    def reading(self) -> AbstractContextManager[Cursor]:
        return self.db.reading()

    def close(self) -> None:
        self.db.close()

    def add(self, record: dict[str, Any], idempotency_key: str | None, body_hash: str) -> tuple[int, dict]:
        """Insert unless present; (201, record) when created, (200, record) when it existed."""
        now = self.clock()
        if idempotency_key and now >= self._next_purge:
            self._next_purge = now + PURGE_EVERY
            self.purge_expired_keys()
        with self.transaction() as db:
            if idempotency_key and not self._claim(db, idempotency_key, body_hash, record["model"], now):
                return self._replay(db, idempotency_key, body_hash)
            values = (record["model"], record["marketName"], record.get("marketNameEn"), iso(now))
            # DO UPDATE ... WHERE false changes nothing, like DO NOTHING, but Postgres also locks the row
            # that is there, so a racing DELETE waits until this transaction has read it
            inserted = db.execute(
                f"INSERT INTO models ({COLUMNS}) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (model) DO UPDATE SET model = excluded.model WHERE false",
                (*values, record.get("createdBy")),
            )
            created = inserted.rowcount == 1
            stored = self._get(db, record["model"])
            assert stored is not None
            status, response = (201 if created else 200), {**stored, "created": created}
            if idempotency_key:
                db.execute(
                    "UPDATE idempotency SET status = ?, response = ? WHERE key = ?",
                    (status, json.dumps(response, ensure_ascii=False), idempotency_key),
                )
        return status, response

    def update(
        self, model: str, changes: dict[str, str | None], idempotency_key: str | None, body_hash: str
    ) -> dict[str, Any]:
        """Set the columns of `changes` on `model`'s row; the record as stored. NoSuchModel rolls back."""
        now = self.clock()
        with self.transaction() as db:
            if idempotency_key and not self._claim(db, idempotency_key, body_hash, model, now):
                return self._replay(db, idempotency_key, body_hash)[1]
            assignments = ", ".join(f'"{column}" = ?' for column in changes)
            params = (*changes.values(), model)
            if db.execute(f"UPDATE models SET {assignments} WHERE model = ?", params).rowcount != 1:
                raise NoSuchModel(model)  # the transaction, the key's claim with it, is rolled back
            stored = self._get(db, model)
            if idempotency_key:
                db.execute(
                    "UPDATE idempotency SET status = ?, response = ? WHERE key = ?",
                    (200, json.dumps(stored, ensure_ascii=False), idempotency_key),
                )
        assert stored is not None
        return stored

    def _claim(self, db: Cursor, key: str, body_hash: str, model: str, now: float) -> bool:
        """Take `key` for this request (new, or expired); False when a live request holds it already.

        When it is held, the holder's row stays locked by this statement until the end of the transaction
        (SQLite: the whole database is), so the `_replay` that follows always finds it.
        """
        claimed = db.execute(
            'INSERT INTO idempotency (key, "bodyHash", status, response, model, "storedAt") '
            "VALUES (?, ?, 0, '', ?, ?) ON CONFLICT (key) DO UPDATE SET "
            '"bodyHash" = excluded."bodyHash", model = excluded.model, "storedAt" = excluded."storedAt" '
            'WHERE idempotency."storedAt" < ?',
            (key, body_hash, model, now, now - self.idempotency_ttl),
        )
        return claimed.rowcount == 1

    @staticmethod
    def _replay(db: Cursor, key: str, body_hash: str) -> tuple[int, dict]:
        row = db.execute(
            'SELECT "bodyHash", status, response FROM idempotency WHERE key = ?', (key,)
        ).fetchone()
        if row["bodyHash"] != body_hash:
            raise IdempotencyConflict(key)
        return row["status"], json.loads(row["response"])

    def purge_expired_keys(self) -> int:
        """Forget the idempotency keys older than the TTL; how many there were."""
        with self.transaction() as db:
            cutoff = self.clock() - self.idempotency_ttl
            return db.execute('DELETE FROM idempotency WHERE "storedAt" < ?', (cutoff,)).rowcount

    def delete(self, model: str) -> bool:
        """Remove a record and the idempotency keys that answered for it; False when there was none."""
        with self.transaction() as db:
            deleted = db.execute("DELETE FROM models WHERE model = ?", (model,)).rowcount == 1
            db.execute("DELETE FROM idempotency WHERE model = ?", (model,))
        return deleted

    def get(self, model: str) -> dict[str, Any] | None:
        with self.reading() as db:
            return self._get(db, model)

    @staticmethod
    def _get(db: Cursor, model: str) -> dict[str, Any] | None:
        row = db.execute(f"SELECT {COLUMNS} FROM models WHERE model = ?", (model,)).fetchone()
        return dict(row) if row else None

    def search(
        self, q: str, code: str, limit: int, offset: int, among: Sequence[str] = ()
    ) -> tuple[list[dict[str, Any]], int]:
        """Records whose code contains `code` or whose market names contain `q`, by code; only those whose
        code is one of `among` when it names any."""
        where = "(" + " OR ".join(f"{column} {self.db.like} ? ESCAPE '\\'" for column in _SEARCHED) + ")"
        params = [f"%{_escape(code)}%", f"%{_escape(q)}%", f"%{_escape(q)}%"]
        if among:
            where += f" AND model IN ({', '.join('?' for _ in among)})"
            params += among
        with self.reading() as db:
            total = db.execute(f"SELECT COUNT(*) AS n FROM models WHERE {where}", params).fetchone()["n"]
            rows = db.execute(
                f"SELECT {COLUMNS} FROM models WHERE {where} ORDER BY {self.order_by} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        return [dict(r) for r in rows], total

    def one_edit_from(self, code: str) -> list[str]:
        """Stored codes one edit from `code` (a character dropped, added, changed, or two swapped), among
        the first `NEAR_SCAN` codes of a length it could have, by code."""
        with self.reading() as db:
            rows = db.execute(
                "SELECT model FROM models WHERE LENGTH(model) BETWEEN ? AND ? ORDER BY model "
                f"LIMIT {NEAR_SCAN}",
                (len(code) - 1, len(code) + 1),
            ).fetchall()
        return [r["model"] for r in rows if OSA.distance(code, r["model"], score_cutoff=1) <= 1][:NEAR_MOST]

    def count(self) -> int:
        with self.reading() as db:
            return db.execute("SELECT COUNT(*) AS n FROM models").fetchone()["n"]


NEAR_SCAN, NEAR_MOST = 10_000, 5  # codes looked at for a near miss; near misses named
_SEARCHED = ("model", '"marketName"', '"marketNameEn"')


def migrations(backend: str) -> Iterator[tuple[int, Path]]:
    """(version, file) of the device service's `migrations/<backend>/NNNN_name.sql`, in order."""
    return sql.migrations(MIGRATIONS / backend)


def adopt_unversioned(db: Cursor) -> None:
    """A SQLite file from before createdBy existed gets the column (migration 1 keeps tables that exist)."""
    columns = {row["name"] for row in db.execute("PRAGMA table_info(models)").fetchall()}
    if columns and "createdBy" not in columns:
        db.execute('ALTER TABLE models ADD COLUMN "createdBy" TEXT')


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
