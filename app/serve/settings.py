"""ServeSettings: the served agent's configuration (`python main.py serve`, `python main.py keys`), read
from the environment or `.env` as the core's settings are."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings

from agent.config import FROM_ENV


class ServeSettings(BaseSettings):
    model_config = FROM_ENV

    agent_db: Path = Field(Path("data/agent.db"), validation_alias="AGENT_DB")
    """SQLite file of the served agent's keys and conversations; with DATABASE_URL, Postgres instead."""

    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    """`postgresql://...`: the keys and conversations (and the durable turns) are stored in Postgres."""

    serve_requests_per_minute: int = Field(60, ge=1, validation_alias="SERVE_REQUESTS_PER_MINUTE")
    """Turns one user may start per minute, across all workers (more: 429 with Retry-After)."""

    serve_runs_per_user: int = Field(4, ge=1, validation_alias="SERVE_RUNS_PER_USER")
    """Turns of one user that may run at once, across all workers (more: 429 with Retry-After)."""

    serve_approval_seconds: float = Field(600.0, gt=0, validation_alias="SERVE_APPROVAL_SECONDS")
    """How long the person's approval of a call stays open (answered later: the call is not run)."""

    serve_max_connections: int = Field(256, ge=1, validation_alias="SERVE_MAX_CONNECTIONS")
    """Connections one worker holds at once (more: 503)."""

    serve_send_seconds: float = Field(30.0, gt=0, validation_alias="SERVE_SEND_SECONDS")
    """Seconds a client may take to read one piece of a streamed answer (longer: the stream is dropped)."""

    serve_allowed_hosts: str = Field("", validation_alias="SERVE_ALLOWED_HOSTS")
    """Host names a request may name, comma-separated (another: 400); empty: any."""

    serve_durable: bool = Field(True, validation_alias="SERVE_DURABLE")
    """Run each served turn as a durable workflow (DBOS): a restart finishes it. Off: in the worker's
    threads, and a turn cut off by a crash waits for the client to send it again."""

    serve_name: str = Field("", max_length=100, validation_alias="SERVE_NAME")
    """This server's name among those sharing one database: its workers' turns are recovered under it
    after a restart (empty: the machine's host name)."""

    serve_peer_seconds: float = Field(10.0, gt=0, validation_alias="SERVE_PEER_SECONDS")
    """A turn's lease, which the worker running it renews every third of this, not renewed for this long
    is cut: that worker died, and a live one of any server finishes the turn."""
