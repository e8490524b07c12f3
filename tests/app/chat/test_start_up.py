"""Start-up follows need: a planned turn of the embedded demo (no key) loads no web server, no array
library and no dictionary of Chinese phrases, and a device call serves the embedded device service then."""

from __future__ import annotations

from tests.agent.test_tracing import imported
from tests.conftest import ROOT, clean_env

UNNEEDED = ("fastapi", "uvicorn", "numpy", "pypinyin.phrases_dict")


def test_a_planned_calculator_turn_loads_only_what_it_needs(tmp_path):
    env = clean_env(DEVICE_DB=str(tmp_path / "d.db"))
    done, modules = imported([str(ROOT / "main.py"), "-m", "12 乘以 (3 加 4) 等于几？"], tmp_path, env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("= 84"), done.stdout
    assert "pypinyin" in modules  # the words were read by their sound, without the phrases
    assert [m for m in UNNEEDED if m in modules] == []


def test_a_device_call_serves_the_embedded_device_service_then(tmp_path):
    env = clean_env(DEVICE_DB=str(tmp_path / "d.db"))
    done, modules = imported([str(ROOT / "main.py"), "-m", "数据库里有 CPH2411 吗？"], tmp_path, env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "CPH2411" in done.stdout and {"fastapi", "uvicorn"} <= modules
