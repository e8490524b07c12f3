"""McpSettings: which MCP servers the host connects to (MCP_CONFIG), read as the core's settings are;
this file loads no MCP library, so a host without the [mcp] extra can still say what is missing."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings

from agent.config import FROM_ENV


class McpSettings(BaseSettings):
    model_config = FROM_ENV

    mcp_config: Path | None = Field(None, validation_alias="MCP_CONFIG")
    """MCP servers file in the `{"mcpServers": {...}}` format; default mcp_servers.json if present."""


def mcp_config(settings: McpSettings | None = None) -> Path | None:
    """The MCP servers' file: MCP_CONFIG, else mcp_servers.json where it exists, else None."""
    configured = (settings or McpSettings()).mcp_config
    path = configured or Path("mcp_servers.json")
    return path if configured is not None or path.exists() else None
