"""The README's Python blocks run in order in one namespace; a ```text block right after one is its output."""

from __future__ import annotations

import contextlib
import io
import re

from tests.conftest import ROOT

BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_readme_python_blocks_run_and_print_what_the_readme_shows():
    found = blocks()
    namespace: dict = {}
    checked = 0
    for i, (lang, code) in enumerate(found):
        if lang != "python":
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md block {i}", "exec"), namespace)
        if i + 1 < len(found) and found[i + 1][0] == "text":
            assert out.getvalue() == found[i + 1][1], f"README block {i} printed something else"
            checked += 1
    assert checked >= 2


def example_files() -> set[str]:
    """Files the README asks the reader to create: python blocks whose first line is `# <path>`."""
    return {
        code.split("\n", 1)[0][2:] for lang, code in blocks() if lang == "python" and code.startswith("# ")
    }


def test_readme_names_only_files_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:agent|tools|devicedb|tests|benchmarks)/[\w/]*\.py|main\.py)`", text))
    assert len(named) >= 20
    for path in named - example_files():
        assert (ROOT / path).is_file(), path


def test_the_tables_name_symbols_that_exist_where_they_say():
    """A table cell naming files, with the symbols in it or the next cell: each symbol is defined there."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    checked = 0
    for row in re.findall(r"^\|.*\|$", text, re.MULTILINE):
        cells = row.strip("|").split("|")
        for i, cell in enumerate(cells):
            files = re.findall(r"`((?:agent|tools|devicedb)/[\w/]*\.py|main\.py)`", cell)
            if not files:
                continue
            sources = "".join((ROOT / f).read_text(encoding="utf-8") for f in files)
            nearby = cell + (cells[i + 1] if i + 1 < len(cells) and "::" not in cells[i + 1] else "")
            for symbol in re.findall(r"`([A-Za-z_][\w.]*)`", nearby):
                last = symbol.split(".")[-1]
                if last != "py" and (last[0].isupper() or "_" in last or "." in symbol):
                    assert re.search(rf"(def|class) {last}\b|^ *{last}\b.* = ", sources, re.MULTILINE), symbol
                    checked += 1
    assert checked >= 20
