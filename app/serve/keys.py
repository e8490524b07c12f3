"""KeyStore: the API keys that sign people in to the served agent — one per name, the name being the
user it signs in — kept as SHA-256 hashes: the key itself is shown once, when it is made.

A key is 256 random bits, so a plain hash is safe to keep (no password stretching is needed), and
looking one up by its hash takes one indexed read.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from agent.types import UsageError
from plumbing.sql import Database

PREFIX = "sk-agent-"
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")


@dataclass(frozen=True)
class KeyInfo:
    name: str
    created_at: float
    revoked_at: float | None


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class KeyStore:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db, self.clock = db, clock

    def add(self, name: str, keep_conversations: bool = False) -> str:
        """A new key for `name`; the key, to be shown once. A revoked key's name may be used again: its
        conversations are set aside (kept, under `name#revoked-<time>`), unless `keep_conversations`."""
        if not NAME.match(name):
            raise UsageError(f"{name!r} is not a key name: letters, digits and . _ @ - (up to 64)")
        key = PREFIX + secrets.token_urlsafe(32)
        with self.db.transaction() as db:
            row = db.execute("SELECT revoked_at FROM api_keys WHERE name = ?", (name,)).fetchone()
            if row is not None and row["revoked_at"] is None:
                raise UsageError(
                    f"{name} already has a key; revoke it first: python main.py keys revoke {name}"
                )
            if row is not None and not keep_conversations:
                aside = f"{name}#revoked-{row['revoked_at']:.0f}"
                db.execute("UPDATE conversations SET user_id = ? WHERE user_id = ?", (aside, name))
            db.execute("DELETE FROM api_keys WHERE name = ?", (name,))
            db.execute(
                "INSERT INTO api_keys (name, user_id, key_hash, created_at) VALUES (?, ?, ?, ?)",
                (name, name, key_hash(key), self.clock()),
            )
        return key

    def revoke(self, name: str) -> None:
        with self.db.transaction() as db:
            revoked = db.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                (self.clock(), name),
            )
            if revoked.rowcount != 1:
                raise UsageError(f"no key named {name} to revoke; see: python main.py keys list")

    def list(self) -> list[KeyInfo]:
        with self.db.reading() as db:
            rows = db.execute("SELECT name, created_at, revoked_at FROM api_keys ORDER BY name").fetchall()
        return [KeyInfo(row["name"], row["created_at"], row["revoked_at"]) for row in rows]

    def user(self, key: str) -> str | None:
        """The user a key signs in, or None for an unknown or revoked key."""
        if not key.startswith(PREFIX):
            return None
        with self.db.reading() as db:
            row = db.execute(
                "SELECT user_id FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", (key_hash(key),)
            ).fetchone()
        return row["user_id"] if row else None
