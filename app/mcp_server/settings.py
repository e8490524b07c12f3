"""McpServerSettings: the bounds of our MCP server (`python -m app.mcp_server`), read as the core's settings
are: how many resource subscriptions a session (or a listen stream) may hold, how many all its clients may,
and how long an HTTP session may stay idle before it ends, and its subscriptions with it."""

from __future__ import annotations

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings

from agent.config import FROM_ENV
from agent.types import ConfigError


class McpServerSettings(BaseSettings):
    model_config = FROM_ENV

    subscriptions_per_session: int = Field(100, ge=1, validation_alias="MCP_SUBSCRIPTIONS_PER_SESSION")
    """Resource subscriptions one 2025 session may hold, or one listen stream name (more: refused)."""

    subscriptions: int = Field(1000, ge=1, validation_alias="MCP_SUBSCRIPTIONS")
    """Resource subscriptions the server holds for all its clients at once (more: refused)."""

    session_idle_seconds: float = Field(600.0, gt=0, validation_alias="MCP_SESSION_IDLE_SECONDS")
    """An HTTP session with no request in flight and no stream open for this long ends (its subscriptions
    with it); the client then starts a new one."""


def mcp_server_settings() -> McpServerSettings:
    """The settings, or a ConfigError naming the variable whose value is not one."""
    try:
        return McpServerSettings()
    except ValidationError as e:
        first = e.errors()[0]
        name = ".".join(str(part) for part in first["loc"])  # the variable's name
        raise ConfigError(f"{name}: {first['msg']} (given {first.get('input')!r})") from None
