"""Settings: every configuration value, read once from the environment or `.env`, typed and documented."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.types import ConfigError, os_user


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    llm_base_url: str | None = Field(None, validation_alias=AliasChoices("LLM_BASE_URL", "OPENAI_BASE_URL"))
    """OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1; unset = the embedded local model."""

    llm_api_key: str | None = Field(None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY"))
    """Key for that endpoint."""

    llm_model: str = Field("", validation_alias="LLM_MODEL")
    """Model name; empty = the provider's default."""

    llm_backend: Literal["wrapper", "chatopenai"] = Field("wrapper", validation_alias="LLM_BACKEND")
    """`wrapper`: the tutorial's CustomLLMWrapper; `chatopenai`: langchain-openai's ChatOpenAI."""

    add_model_url: str | None = Field(None, validation_alias="ADD_MODEL_URL")
    """Full URL of `POST .../api/models`; unset = the embedded device service."""

    device_token: str | None = Field(None, validation_alias="DEVICE_TOKEN")
    """The service token of the device service at ADD_MODEL_URL, which its writes need (the embedded
    service gets a token of its own)."""

    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    """`postgresql://...`: the embedded device service stores in Postgres instead of DEVICE_DB."""

    local_model: Path | None = Field(None, validation_alias="LOCAL_MODEL")
    """A GGUF file the embedded runtime runs instead of the shipped demo model (with its own template)."""

    device_db: Path = Field(Path("data/devices.db"), validation_alias="DEVICE_DB")
    """SQLite file of the embedded device service."""

    agent_user: str = Field(default_factory=os_user, validation_alias="AGENT_USER")
    """The signed-in user the host injects into tools."""

    mcp_config: Path | None = Field(None, validation_alias="MCP_CONFIG")
    """MCP servers file in the `{"mcpServers": {...}}` format; default mcp_servers.json if present."""

    audit_log: Path = Field(Path("data/audit.jsonl"), validation_alias="AUDIT_LOG")
    """JSON-lines audit of every tool call."""

    permissions_file: Path = Field(Path("permissions.json"), validation_alias="PERMISSIONS_FILE")
    """JSON `{"default": [...], "users": {"<user>": [...]}}`; no file: every user may add and delete."""

    llm_stream: bool = Field(True, validation_alias="LLM_STREAM")
    """Stream answers token by token (LLM_STREAM=0 turns it off)."""

    llm_timeout: float = Field(120.0, validation_alias="LLM_TIMEOUT")
    """Seconds one LLM request may take, retries included."""

    turn_seconds: float | None = Field(None, gt=0, validation_alias="TURN_SECONDS")
    """Seconds one turn may take, all its requests and tools (default: the model's, 120 for a remote one)."""

    # --- the served agent (`python main.py serve`, `python main.py keys`) ---

    agent_db: Path = Field(Path("data/agent.db"), validation_alias="AGENT_DB")
    """SQLite file of the served agent's keys and conversations; with DATABASE_URL, Postgres instead."""

    serve_requests_per_minute: int = Field(60, ge=1, validation_alias="SERVE_REQUESTS_PER_MINUTE")
    """Turns one user may start per minute, across all workers (more: 429 with Retry-After)."""

    serve_runs_per_user: int = Field(4, ge=1, validation_alias="SERVE_RUNS_PER_USER")
    """Turns of one user that may run at once, across all workers (more: 429 with Retry-After)."""

    serve_max_connections: int = Field(256, ge=1, validation_alias="SERVE_MAX_CONNECTIONS")
    """Connections one worker holds at once (more: 503)."""

    serve_allowed_hosts: str = Field("", validation_alias="SERVE_ALLOWED_HOSTS")
    """Host names a request may name, comma-separated (another: 400); empty: any."""

    serve_durable: bool = Field(True, validation_alias="SERVE_DURABLE")
    """Run each served turn as a durable workflow (DBOS): a restart finishes it. Off: in the worker's
    threads, and a turn cut off by a crash waits for the client to send it again."""

    serve_name: str = Field("", max_length=100, validation_alias="SERVE_NAME")
    """This server's name among those sharing one database: its workers' turns are recovered under it
    after a restart (empty: the machine's host name)."""

    serve_peer_seconds: float = Field(30.0, gt=0, validation_alias="SERVE_PEER_SECONDS")
    """A worker of any server not heard from for this long has died: a live one finishes its turns."""


DEFAULT_PERMISSIONS = frozenset({"add_model", "delete_model"})


def load_permissions(path: Path, user: str) -> frozenset[str]:
    """The permissions of `user`: their entry in the file, else its "default", else DEFAULT_PERMISSIONS."""
    if not path.is_file():
        return DEFAULT_PERMISSIONS
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
        return frozenset(config.get("users", {}).get(user, config.get("default", [])))
    except (ValueError, AttributeError, TypeError) as e:
        raise ConfigError(f'{path} must be {{"default": [...], "users": {{"<user>": [...]}}}}: {e}') from None


def installed(*modules: str) -> bool:
    """Are these top-level modules importable (a wing's packages, without importing them)?"""
    return all(importlib.util.find_spec(module) is not None for module in modules)


def missing_extra(what: str, extra: str) -> str:
    """The one line that says which extra `what` needs."""
    return f"{what} needs the [{extra}] extra: pip install -e '.[{extra}]'"


def require_extra(what: str, extra: str, *modules: str) -> None:
    """ConfigError, in one line, unless the extra's `modules` are installed."""
    if not installed(*modules):
        raise ConfigError(missing_extra(what, extra))
