"""`open_store`: the device store on a database named by a SQLite file path or a `postgresql://` URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devicedb.store import DeviceStore
from plumbing.databases import open_database


def open_store(database: str | Path, **options: Any) -> DeviceStore:
    """The device store on `database`, migrated; `options` go to DeviceStore (idempotency_ttl, clock)."""
    db = open_database(database)
    try:
        return DeviceStore(db, **options)
    except BaseException:
        db.close()
        raise
