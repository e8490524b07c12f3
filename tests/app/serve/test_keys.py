"""API keys (app/serve/keys.py), as docs/serving states them: a key is 256 random bits, shown once; the
database keeps only its SHA-256; a revoked key signs nobody in."""

from __future__ import annotations

import base64
import hashlib
import sqlite3

from app.serve.database import open_agent_database
from app.serve.keys import PREFIX, KeyStore
from app.serve.settings import ServeSettings


def test_a_key_is_256_random_bits_and_only_its_sha256_is_kept(tmp_path):
    where = tmp_path / "agent.db"
    db = open_agent_database(ServeSettings(_env_file=None, agent_db=str(where)))
    try:
        store = KeyStore(db)
        keys = [store.add(name) for name in ("alice", "bob", "carol")]
        for key in keys:
            assert key.startswith(PREFIX)
            raw = base64.urlsafe_b64decode(key.removeprefix(PREFIX) + "=")
            assert len(raw) * 8 == 256
        assert len(set(keys)) == 3
        assert [store.user(key) for key in keys] == ["alice", "bob", "carol"]
        store.revoke("bob")
        assert store.user(keys[1]) is None
    finally:
        db.close()
    with sqlite3.connect(where) as conn:
        kept = {row[0] for row in conn.execute("SELECT key_hash FROM api_keys")}
        dump = "\n".join(conn.iterdump())
    assert kept >= {hashlib.sha256(key.encode()).hexdigest() for key in (keys[0], keys[2])}
    assert not any(key.removeprefix(PREFIX) in dump for key in keys)  # no key itself is written down
