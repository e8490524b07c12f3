"""DeviceStore: all data access of the device service, on SQLite (replace this file to change database).

Every write is one transaction that takes the write lock first (BEGIN IMMEDIATE), so concurrent adds
of the same code leave exactly one row, and an idempotency key is stored with the response it got.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS models (
    model TEXT PRIMARY KEY,
    marketName TEXT NOT NULL,
    marketNameEn TEXT,
    createdAt TEXT NOT NULL,
    createdBy TEXT
);
CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    bodyHash TEXT NOT NULL,
    status INTEGER NOT NULL,
    response TEXT NOT NULL
);
"""
_COLUMNS = "model, marketName, marketNameEn, createdAt, createdBy"


class IdempotencyConflict(Exception):
    """The idempotency key was already used with a different body."""


class DeviceStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        conn = self._connect()
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(_SCHEMA)
        if "createdBy" not in {row["name"] for row in conn.execute("PRAGMA table_info(models)")}:
            conn.execute("ALTER TABLE models ADD COLUMN createdBy TEXT")  # a database made before it existed

    def _connect(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 objects are not shared between threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.row_factory = sqlite3.Row
            self._local.conn = conn
        return conn

    def add(self, record: dict[str, Any], idempotency_key: str | None, body_hash: str) -> tuple[int, dict]:
        """Insert unless present; return (201, record) when created, (200, record) when it existed."""
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            replay = self._replay(conn, idempotency_key, body_hash)
            if replay:
                conn.execute("COMMIT")
                return replay
            created = (
                conn.execute(
                    f"INSERT OR IGNORE INTO models ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
                    (
                        record["model"],
                        record["marketName"],
                        record.get("marketNameEn"),
                        _now(),
                        record.get("createdBy"),
                    ),
                ).rowcount
                == 1
            )
            status, response = (
                (201 if created else 200),
                {**(self._get(conn, record["model"]) or {}), "created": created},
            )
            if idempotency_key:
                conn.execute(
                    "INSERT INTO idempotency VALUES (?, ?, ?, ?)",
                    (idempotency_key, body_hash, status, json.dumps(response, ensure_ascii=False)),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return status, response

    @staticmethod
    def _replay(conn: sqlite3.Connection, key: str | None, body_hash: str) -> tuple[int, dict] | None:
        if not key:
            return None
        row = conn.execute(
            "SELECT bodyHash, status, response FROM idempotency WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        if row["bodyHash"] != body_hash:
            raise IdempotencyConflict(key)
        return row["status"], json.loads(row["response"])

    def delete(self, model: str) -> bool:
        """Remove a record; False when there was none."""
        return self._connect().execute("DELETE FROM models WHERE model = ?", (model,)).rowcount == 1

    def get(self, model: str) -> dict[str, Any] | None:
        return self._get(self._connect(), model)

    @staticmethod
    def _get(conn: sqlite3.Connection, model: str) -> dict[str, Any] | None:
        row = conn.execute(f"SELECT {_COLUMNS} FROM models WHERE model = ?", (model,)).fetchone()
        return dict(row) if row else None

    def search(self, q: str, code: str, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
        """Records whose code contains `code` or whose market names contain `q`, by code."""
        where = "model LIKE ? ESCAPE '\\' OR marketName LIKE ? ESCAPE '\\' OR marketNameEn LIKE ? ESCAPE '\\'"
        params = [f"%{_escape(code)}%", f"%{_escape(q)}%", f"%{_escape(q)}%"]
        conn = self._connect()
        total = conn.execute(f"SELECT COUNT(*) FROM models WHERE {where}", params).fetchone()[0]
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM models WHERE {where} ORDER BY model LIMIT ? OFFSET ?",
            [*params, limit, offset],
        ).fetchall()
        return [dict(r) for r in rows], total

    def count(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM models").fetchone()[0]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
