"""docs/configuration's table gives each setting's default; where it is a number, or a word like `wrapper`, it
is the default the settings themselves hold (a default changed in the code and not in the docs fails here)."""

from __future__ import annotations

import re

import pytest
from pydantic_settings import BaseSettings

from agent.config import Settings
from app.mcp.settings import McpSettings
from app.mcp_server.settings import McpServerSettings
from app.models.embedded.plugin import EmbeddedSettings
from app.serve.settings import ServeSettings
from tests.conftest import ROOT
from tools.device_service import DeviceSettings

ROW = re.compile(r"^\| (`[A-Z_]+`(?:[^|]*)) \| [^|]* \| ([^|]*) \|$", re.MULTILINE)


def defaults(*kinds: type[BaseSettings]) -> dict[str, object]:
    """Each setting's default, by the name it is read from."""
    found = {}
    for kind in kinds:
        for field in kind.model_fields.values():
            alias = field.validation_alias
            names = [alias] if isinstance(alias, str) else list(getattr(alias, "choices", []))
            for name in names:
                found[str(name)] = field.default
    return found


@pytest.mark.parametrize("page", ["configuration.en.md", "configuration.md"])
def test_each_default_the_table_gives_is_the_settings_default(page: str) -> None:
    held = defaults(Settings, ServeSettings, DeviceSettings, McpSettings, McpServerSettings, EmbeddedSettings)
    checked = []
    for names, given in ROW.findall((ROOT / "docs" / page).read_text(encoding="utf-8")):
        variables = re.findall(r"`([A-Z_]+)`", names.split("|")[0])
        values = re.findall(r"`([^`]+)`", given)
        if len(values) != len(variables) or not all(v in held for v in variables):
            continue  # a default in words ("the OS user"), or one of a wing the table only describes
        for variable, value in zip(variables, values, strict=True):
            default = held[variable]
            if default is None:
                continue  # set by something else (TURN_SECONDS: the model's own), as the table says
            same = float(value) == default if isinstance(default, int | float) else value == str(default)
            assert same, f"{page}: {variable} is {default!r} in the code, {value!r} in the table"
            checked.append(variable)
    wanted = {
        "SERVE_MAX_CONNECTIONS",
        "SERVE_RUNS_PER_USER",
        "SERVE_PEER_SECONDS",
        "LLM_TIMEOUT",
        "DEVICE_DB",
        "MCP_SUBSCRIPTIONS_PER_SESSION",
        "MCP_SUBSCRIPTIONS",
        "MCP_SESSION_IDLE_SECONDS",
    }
    assert wanted | {"AUDIT_LOG"} <= set(checked)


SERVING_DEFAULT = re.compile(r"`(SERVE_[A-Z_]+)`\s?[,，(（]\s?(?:默认\s?)?(\d+)")


@pytest.mark.parametrize("page", ["serving.en.md", "serving.md"])
def test_each_default_the_serving_page_gives_is_the_settings_default(page: str) -> None:
    """Where the serving page gives a setting's default beside its name (turns a minute, turns at once,
    the peers' timeout), it is the default the settings hold."""
    held = defaults(ServeSettings)
    given = SERVING_DEFAULT.findall((ROOT / "docs" / page).read_text(encoding="utf-8"))
    for variable, value in given:
        assert float(value) == held[variable], f"{page}: {variable} is {held[variable]!r} in the code"
    assert {"SERVE_REQUESTS_PER_MINUTE", "SERVE_RUNS_PER_USER", "SERVE_PEER_SECONDS"} <= {v for v, _ in given}


def test_a_remote_models_turn_has_the_tables_120_seconds() -> None:
    """TURN_SECONDS unset: a remote model's turn may take the table's 120 s (docs/rules' deadline too)."""
    from contextlib import ExitStack

    from app.models.provider import choose_model

    table = (ROOT / "docs" / "configuration.en.md").read_text(encoding="utf-8")
    given = re.search(r"^\| `TURN_SECONDS` .*\(`(\d+)` for a remote model\) \|$", table, re.MULTILINE)
    with ExitStack() as stack:
        choice = choose_model(Settings(llm_base_url="http://127.0.0.1:9/v1", turn_seconds=None), stack)
    assert given is not None and choice.limits.deadline_seconds == float(given[1]) == 120
