"""What a module adds to the MCP server beside the device service, loaded by `--with-fixtures MODULE`.

The conformance suite calls fixtures of its reference server by name (`test_simple_text`,
`test://static-text`, ...); `conformance/fixtures.py` writes them as our own tools, prompts and
resources, and the server serves them only when started with `--with-fixtures conformance.fixtures`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field

from agent.function_tool import FunctionTool
from agent.types import ConfigError
from app.mcp_server.prompts import Task
from app.mcp_server.resources import TextResource


@dataclass(frozen=True)
class Extras:
    tools: tuple[FunctionTool, ...] = ()  # registered in the server's ToolRegistry with the others
    prompts: Mapping[str, Task] = field(default_factory=dict)
    resources: tuple[TextResource, ...] = ()


def load_extras(module: str | None) -> Extras:
    """The `EXTRAS` of `module` (nothing for None); a module that has none is a ConfigError."""
    if module is None:
        return Extras()
    try:
        extras = importlib.import_module(module).EXTRAS
    except (ImportError, AttributeError) as e:
        raise ConfigError(f"--with-fixtures {module}: cannot load its EXTRAS ({e})") from None
    if not isinstance(extras, Extras):
        raise ConfigError(f"--with-fixtures {module}: EXTRAS is not an app.mcp_server.extras.Extras")
    return extras
