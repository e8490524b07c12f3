"""benchmarks/load.py at its smallest, as `make bench` runs it: one server with one worker on Postgres,
4 users over 8 conversations x 2 turns, each turn an add through the device service; the table it prints
says every turn answered, each code stored once, none lost."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, clean_env

pytestmark = pytest.mark.postgres
SMALLEST = ["--servers", "1", "--workers", "1", "--users", "4", "--conversations", "8", "--turns", "2"]


def figures(printed: str) -> dict[str, str]:
    """The table's rows: figure -> its value."""
    rows = [line.strip("| ").split(" | ") for line in printed.splitlines() if line.startswith("| ")]
    return {row[0]: row[1] for row in rows if len(row) >= 2}


def test_the_smallest_load_answers_every_turn_and_stores_each_code_once():
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.load", *SMALLEST],
        cwd=ROOT,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    table = figures(done.stdout)
    assert table["users"] == "4"
    assert table["turns answered / asked"] == "16 / 16"
    assert table["codes stored"] == "16"
    assert (table["duplicates"], table["lost writes"], table["errors by kind"]) == ("0", "0", "none")
    assert float(table["turns/s"]) > 0 and float(table["CPU ms/turn, servers"]) > 0
