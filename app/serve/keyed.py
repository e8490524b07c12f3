"""What a client's keys name, for the conversation store: the conversation an idempotency key started, a
turn's run id, and whether the API key that signed a turn is still its person's."""

from __future__ import annotations

import hashlib
import uuid

from app.serve.errors import Unauthorized
from plumbing.sql import Cursor


def signed(db: Cursor, user: str, key_hash: str) -> float:
    """When `user`'s key was made; Unauthorized when the request's key is not their active one (revoked
    since the worker saw it)."""
    found = db.execute(
        "SELECT created_at FROM api_keys WHERE key_hash = ? AND user_id = ? AND revoked_at IS NULL",
        (key_hash, user),
    ).fetchone()
    if found is None:
        raise Unauthorized("the API key is unknown or revoked")
    return float(found["created_at"])


def keyed_id(db: Cursor, user: str, run_key: str | None, made_at: float | None = None) -> str | None:
    """The id of the conversation a client's idempotency key started (the same for its retries), under the
    person's current key (made at `made_at`, when known): a name given a new key never meets the
    conversations of its old one."""
    if not run_key:
        return None
    if made_at is None:
        key = db.execute("SELECT created_at FROM api_keys WHERE name = ?", (user,)).fetchone()
        made_at = float(key["created_at"]) if key else None
    made = repr(made_at) if made_at is not None else ""
    return "conv_" + hashlib.sha256(f"{user}\n{made}\n{run_key}".encode()).hexdigest()[:32]


def run_id(conversation_id: str, run_key: str | None) -> str:
    """A turn's run id: from the client's key (a retry gets the same one, so its calls get the same
    idempotency keys), else new. Never the client's text itself: keys of two users never meet."""
    if run_key is None:
        return uuid.uuid4().hex[:16]
    return hashlib.sha256(f"{conversation_id}\n{run_key}".encode()).hexdigest()[:16]
