"""The served agent's database: AGENT_DB (a SQLite file) or, with DATABASE_URL, Postgres — the device
service's choice — on the same SQL machinery (plumbing/databases.py), with migrations of its own.

It is opened `durable=False`: every stored message survives a killed worker (what the journal is for),
while a crash of the whole machine may lose the last moments of conversations; a turn's commits then
do not wait for the disk, which is most of a turn's cost otherwise (the README's table). The tools'
writes, in the device service, stay fully durable."""

from __future__ import annotations

from pathlib import Path

from agent.types import ConfigError
from app.serve.settings import ServeSettings
from plumbing.databases import open_database
from plumbing.sql import Database

MIGRATIONS = Path(__file__).parent / "migrations"
VERSIONS = "agent_schema_version"  # beside the device service's schema_version, in a shared Postgres


def open_agent_database(settings: ServeSettings) -> Database:
    """The database of keys and conversations, migrated; a ConfigError when it cannot be opened."""
    try:
        db = open_database(settings.database_url or settings.agent_db, durable=False)
    except Exception as e:  # a file it cannot write, a server that does not answer
        raise ConfigError(
            f"the agent's database did not open ({e}); check AGENT_DB or DATABASE_URL"
        ) from None
    try:
        db.migrate(MIGRATIONS, VERSIONS)
    except BaseException:
        db.close()
        raise
    return db
