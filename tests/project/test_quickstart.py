"""The README's quick start works when pasted: each one-turn command it shows (`.venv/bin/python main.py -m
...`), run in its order on a fresh database with the default embedded model and no key, exits 0 and prints
on standard output exactly the ```text block the README puts after it, in both languages."""

from __future__ import annotations

import shlex

import pytest

from tests.conftest import clean_env, run_main
from tests.project.test_readme import blocks

pytestmark = pytest.mark.local_model

VENV_PYTHON = ".venv/bin/python"


def quick_start() -> list[tuple[list[str], str]]:
    """(main.py's arguments, the output shown) of each one-command bash block followed by a text block."""
    found = blocks()
    shown = []
    for i, (lang, code) in enumerate(found[:-1]):
        argv = shlex.split(code)
        if lang == "bash" and code.count("\n") == 1 and argv[:2] == [VENV_PYTHON, "main.py"]:
            assert found[i + 1][0] == "text", code
            shown.append((argv[2:], found[i + 1][1]))
    return shown


def test_the_quick_start_prints_what_the_readme_shows(tmp_path):
    commands = quick_start()
    assert len(commands) >= 6 and {"--yes" in args for args, _ in commands} == {True, False}
    env = clean_env(DEVICE_DB=str(tmp_path / "devices.db"), AUDIT_LOG=str(tmp_path / "audit.jsonl"))
    for args, output in commands:
        done = run_main(*args, env=env, cwd=tmp_path, timeout=180)
        assert (done.returncode, done.stdout) == (0, output), (args, done.stderr)
