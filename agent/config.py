"""Settings: the core's configuration, read once from the environment or `.env`, typed and documented;
the permissions file, and the one-line error that names a missing extra."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.types import ConfigError, os_user

FROM_ENV = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)
"""How every settings class reads: the environment, then `.env`; each wing's settings use it too."""


class Settings(BaseSettings):
    """The core's settings: the model endpoint, the person, and the rules around each turn. A wing's
    settings are its own (the served agent's in app/serve/settings.py, the device service's client in
    tools/device_service.py, MCP's in app/mcp/client.py, the embedded model's in app/models/)."""

    model_config = FROM_ENV

    llm_base_url: str | None = Field(None, validation_alias=AliasChoices("LLM_BASE_URL", "OPENAI_BASE_URL"))
    """OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1; unset = the embedded local model."""

    llm_api_key: str | None = Field(None, validation_alias=AliasChoices("LLM_API_KEY", "OPENAI_API_KEY"))
    """Key for that endpoint."""

    llm_model: str = Field("", validation_alias="LLM_MODEL")
    """Model name; empty = the provider's default."""

    llm_backend: Literal["wrapper", "chatopenai"] = Field("wrapper", validation_alias="LLM_BACKEND")
    """`wrapper`: the tutorial's CustomLLMWrapper; `chatopenai`: langchain-openai's ChatOpenAI."""

    llm_stream: bool = Field(True, validation_alias="LLM_STREAM")
    """Stream answers token by token (LLM_STREAM=0 turns it off)."""

    llm_timeout: float = Field(120.0, validation_alias="LLM_TIMEOUT")
    """Seconds one LLM request may take, retries included."""

    turn_seconds: float | None = Field(None, gt=0, validation_alias="TURN_SECONDS")
    """Seconds one turn may take, all its requests and tools (default: the model's, 120 for a remote one)."""

    agent_user: str = Field(default_factory=os_user, validation_alias="AGENT_USER")
    """The signed-in user the host injects into tools."""

    permissions_file: Path = Field(Path("permissions.json"), validation_alias="PERMISSIONS_FILE")
    """JSON `{"default": [...], "users": {"<user>": [...]}}`; no file: every user may add and delete."""

    audit_log: Path = Field(Path("data/audit.jsonl"), validation_alias="AUDIT_LOG")
    """JSON-lines audit of every tool call."""


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
