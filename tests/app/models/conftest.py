"""The demo model's router over the project's tools, shared by the tests of its plans."""

from __future__ import annotations

import pytest

from agent.tools import ToolRegistry
from app.models.embedded.routing import Router
from tools import default_tools


@pytest.fixture(scope="module")
def router() -> Router:
    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        registry.register(tool)
    return Router(registry)
