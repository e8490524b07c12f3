"""SessionStore: named conversations saved in SQLite, so `--session NAME` resumes where it stopped.

Each is kept under its user and its name: one person's `--session work` is never another's. What is
stored is the history without its system message (the current system prompt is used on resume).
Reloaded history goes through the same repair as any other, so it is valid for the provider.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.messages import BaseMessage, SystemMessage, messages_from_dict, messages_to_dict


class SessionStore:
    def __init__(self, path: Path, user: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.user = path, user
        with self._connect() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS saved (user TEXT, name TEXT, messages TEXT, updated TEXT, "
                "PRIMARY KEY (user, name))"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def load(self, name: str) -> list[BaseMessage]:
        with self._connect() as conn:
            row = conn.execute(
                "SELECT messages FROM saved WHERE user = ? AND name = ?", (self.user, name)
            ).fetchone()
        return messages_from_dict(json.loads(row[0])) if row else []

    def save(self, name: str, history: list[BaseMessage]) -> None:
        kept = [m for m in history if not isinstance(m, SystemMessage)]
        data = json.dumps(messages_to_dict(kept), ensure_ascii=False)
        with self._connect() as conn:  # one transaction: the old or the new conversation, never half
            conn.execute(
                "INSERT OR REPLACE INTO saved VALUES (?, ?, ?, ?)",
                (self.user, name, data, datetime.now(UTC).isoformat(timespec="seconds")),
            )
