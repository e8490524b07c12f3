"""The served agent of the whole run (tests/conftest.py's `served`), its scripted LLM's script and requests
cleared for each test: the `agent` of the test files that share it (a file with its own `agent` keeps it)."""

from __future__ import annotations

import pytest


@pytest.fixture
def agent(served):
    served.llm.script.clear()
    served.llm.requests.clear()
    return served
