"""docs/rules' table names, for each rule, the code that keeps it and the test that proves it: every file,
name and test it gives exists (a test renamed or deleted leaves no rule unproved in silence)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

TESTS = ROOT / "tests"
TICKED = re.compile(r"`([^`]+)`")
PAGES = ["rules.en.md", "rules.md"]


def rows(page: str) -> list[list[str]]:
    """The cells of each row of the table whose header names the tests (in either language)."""
    lines = (ROOT / "docs" / page).read_text(encoding="utf-8").splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith("|") and ("proves" in line or "证明" in line)
    )
    table = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        table.append([cell.strip() for cell in line.strip("|").split("|")])
    return table


def files_named(name: str) -> list[Path]:
    """The test files of this name (the table names them without their folder)."""
    found = [path for path in TESTS.rglob(name) if ".venv" not in str(path)]
    assert found, f"no test file {name}"
    return found


def defines(path: Path, name: str) -> bool:
    pattern = rf"^\s*(?:async\s+)?def\s+{re.escape(name)}\b"
    return re.search(pattern, path.read_text(encoding="utf-8"), re.MULTILINE) is not None


@pytest.mark.parametrize("page", PAGES)
def test_every_test_the_rules_table_names_exists(page: str) -> None:
    table = rows(page)
    assert len(table) >= 10
    for cells in table:
        named = TICKED.findall(cells[-1])
        assert named, f"a rule with no test: {cells[0][:80]}"
        files: list[Path] = []
        for item in named:
            where, _, name = item.rpartition("::")
            files = files_named(where) if where else files
            holding = [path for path in files if defines(path, name.split("[")[0])]
            assert len(holding) == 1, f"{page}: {item} is defined in {len(holding)} of {files}"


@pytest.mark.parametrize("page", PAGES)
def test_every_file_and_name_the_rules_table_gives_the_code_exists(page: str) -> None:
    for cells in rows(page):
        current: Path | None = None
        for item in TICKED.findall(cells[1]):
            if item.endswith(".py"):
                current = ROOT / item
                assert current.is_file(), f"{page}: {item}"
            elif current is not None and re.fullmatch(r"[A-Za-z_][\w.]*", item):
                word = re.escape(item.split(".")[-1])
                assert re.search(rf"\b{word}\b", current.read_text(encoding="utf-8")), (
                    f"{page}: {item} in {current}"
                )
