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


def test_readme_names_only_files_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in set(re.findall(r"`((?:agent|tools|devicedb)/[\w/]*\.py|main\.py)`", text)):
        assert (ROOT / path).is_file(), path


def test_readme_names_only_tests_that_exist():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    referenced = re.findall(r"`?(test_\w+\.py)::(test_\w+)", text)
    assert len(referenced) >= 15
    for file, name in referenced:
        assert f"def {name}(" in (ROOT / "tests" / file).read_text(encoding="utf-8"), f"{file}::{name}"


def test_readme_layout_names_every_module():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    modules = [
        p
        for folder in ("agent", "tools")
        for p in sorted((ROOT / folder).glob("*.py"))
        if p.stem != "__init__"
    ]
    missing = [f"{p.parent.name}/{p.name}" for p in modules if f"{p.parent.name}/{p.name}" not in text]
    assert missing == []
