"""Schema migrations: files made by the service before migrations open, and racing starts migrate once."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from devicedb.database import open_store
from devicedb.store import migrations
from tests.support.devicedb_support import execute, query, stored_keys

OLD_MODELS = (
    "CREATE TABLE models (model TEXT PRIMARY KEY, marketName TEXT NOT NULL, marketNameEn TEXT, "
    "createdAt TEXT NOT NULL{})"
)
OLD_KEYS = (
    "CREATE TABLE idempotency (key TEXT PRIMARY KEY, bodyHash TEXT NOT NULL, status INTEGER NOT NULL, "
    "response TEXT NOT NULL)"
)
RECORD = {"model": "CPH2223", "marketName": "OPPO Find N6", "marketNameEn": None, "createdBy": None}


def body_hash(record: dict) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()


def legacy_file(path: str, created_by: bool) -> None:
    """A database as the service wrote it before migrations: one model, one key that answered for it."""
    stored = {**RECORD, "createdAt": "2026-01-02T03:04:05+00:00", "created": True}
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(OLD_MODELS.format(", createdBy TEXT" if created_by else ""))
        conn.execute(OLD_KEYS)
        conn.execute(
            "INSERT INTO models (model, marketName, createdAt) VALUES ('CPH2223', 'OPPO Find N6', ?)",
            (stored["createdAt"],),
        )
        conn.execute(
            "INSERT INTO idempotency VALUES ('k1', ?, 201, ?)", (body_hash(RECORD), json.dumps(stored))
        )


@pytest.mark.parametrize("created_by", [False, True], ids=["without-createdBy", "with-createdBy"])
def test_a_file_from_before_migrations_opens_and_keeps_its_data(tmp_path, created_by):
    path = str(tmp_path / "old.db")
    legacy_file(path, created_by)
    store = open_store(path)
    try:
        assert store.get("CPH2223")["marketName"] == "OPPO Find N6"
        assert store.get("CPH2223")["createdBy"] is None
        assert store.add(RECORD, "k1", body_hash(RECORD))[0] == 201  # replayed, not re-run
        assert stored_keys(path) == [("k1", "CPH2223")]
        assert store.delete("CPH2223") and stored_keys(path) == []
    finally:
        store.close()
    versions = [v for v, _ in query(path, "SELECT version, name FROM schema_version ORDER BY version")]
    assert versions == [1, 2, 3]


def test_each_backend_has_numbered_migrations_and_reopening_applies_none(database):
    backend = "postgres" if database.startswith("postgresql://") else "sqlite"
    expected = [(version, path.name) for version, path in migrations(backend)]
    assert expected and [v for v, _ in expected] == list(range(1, len(expected) + 1))
    for _ in range(2):
        open_store(database).close()
    assert query(database, "SELECT version, name FROM schema_version ORDER BY version") == expected


def test_processes_starting_together_migrate_once(database):
    starts = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                f"from devicedb.database import open_store; open_store({database!r}).close()",
            ]
        )
        for _ in range(6)
    ]
    # a migration run twice at once would fail in one of them (a table or column made twice): all exit 0
    assert [p.wait(timeout=120) for p in starts] == [0] * 6
    backend = "postgres" if database.startswith("postgresql://") else "sqlite"
    expected = [(version, path.name) for version, path in migrations(backend)]
    assert query(database, "SELECT version, name FROM schema_version ORDER BY version") == expected
    assert query(database, "SELECT COUNT(*) FROM models") == [(0,)]


def test_codes_written_with_separators_come_to_their_stored_form(database):
    """Rows written before the code rule knew hyphens (by hand, or by another program) are migrated:
    one row per code, in the stored form, the one already in that form kept."""
    open_store(database).close()
    backend = "postgres" if database.startswith("postgresql://") else "sqlite"
    last = max(version for version, _ in migrations(backend))
    insert = (
        'INSERT INTO models (model, "marketName", "createdAt") VALUES '
        "('sm-g9910', 'by hand', 'x'), ('SMG9910', 'kept', 'x'), ('pgt-an10', 'by hand', 'x')"
    )
    execute(database, f"DELETE FROM schema_version WHERE version = {last}")
    execute(database, insert)
    open_store(database).close()
    assert sorted(query(database, 'SELECT model, "marketName" FROM models')) == [
        ("PGTAN10", "by hand"),
        ("SMG9910", "kept"),
    ]
