"""The code in README.md and the docs' pages (中文 and English) never rots: each Python block runs alone, as
pasted into a fresh `.venv/bin/python` in the project's folder (once the files the pages ask for are made),
and a ```text block right after one is its output; those files pass the project's linter; the files and
symbols the pages name exist; every command meant to be pasted runs the project's venv."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, clean_env

BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def blocks(page: Path = README) -> list[tuple[str, str]]:
    """(language, code) of each fenced block of one page, in order."""
    return BLOCK.findall(page.read_text(encoding="utf-8"))


def every_block() -> list[tuple[str, str]]:
    return [block for page in PAGES for block in blocks(page)]


def name(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_the_pages_are_there_in_both_languages():
    zh = {p.name for p in PAGES[1:] if not p.name.endswith(".en.md")}
    en = {p.name.removesuffix(".en.md") + ".md" for p in PAGES[1:] if p.name.endswith(".en.md")}
    assert len(zh) >= 12 and zh == en
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 400


PYTHON_PAGES = [p for p in PAGES if any(lang == "python" for lang, _ in blocks(p))]


def example_files() -> dict[str, str]:
    """Files the pages ask the reader to create, by path: python blocks whose first line is `# <path>` (a
    file shown in both languages is the same file, the same code)."""
    files: dict[str, str] = {}
    for lang, code in every_block():
        if lang == "python" and code.startswith("# "):
            path = code.split("\n", 1)[0][2:]
            assert files.setdefault(path, code) == code, f"{path} is shown twice, differently"
    return files


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A folder where the pages' files are made, each package they go into copied from the project first."""
    root = tmp_path_factory.mktemp("pasted")
    for path, code in example_files().items():
        package = Path(path).parts[0]
        if (ROOT / package).is_dir() and not (root / package).exists():
            shutil.copytree(ROOT / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(code, encoding="utf-8")
    return root


def pasted(code: str, project: Path) -> subprocess.CompletedProcess:
    """`code` alone in a new interpreter, run in the project's folder with the pages' files made."""
    env = clean_env(PYTHONPATH=str(ROOT))  # `-c` puts the folder it runs in first, as the REPL does
    run = [sys.executable, "-c", code]
    return subprocess.run(run, cwd=project, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=name)
def test_each_python_block_runs_alone_and_prints_what_the_page_shows(page, project):
    """Each block as a newcomer pastes it: nothing from a block before it (issue: the README's third block
    of "add a tool" used the names of the first, and failed alone with NameError)."""
    found = blocks(page)
    checked = 0
    for i, (lang, code) in enumerate(found):
        if lang != "python":
            continue
        done = pasted(code, project)
        assert done.returncode == 0, f"{name(page)} block {i} failed alone:\n{done.stderr}"
        if i + 1 < len(found) and found[i + 1][0] == "text":
            assert done.stdout == found[i + 1][1], f"{name(page)} block {i} printed something else"
            checked += 1
    assert checked >= 1


def test_python_blocks_are_in_the_readme_and_both_languages_of_the_docs():
    assert {name(p) for p in PYTHON_PAGES} >= {"README.md", "docs/rules.md", "docs/rules.en.md"}


def test_the_readme_shows_its_code_in_both_languages():
    """The English half has its own blocks (issue: it pointed "above", into the Chinese half)."""
    text = README.read_text(encoding="utf-8")
    english = text.index("# Tool Use Agent by hand (Python)")
    zh, en = BLOCK.findall(text[:english]), BLOCK.findall(text[english:])
    for lang in ("python", "diff"):
        assert [b for b in zh if b[0] == lang] == [b for b in en if b[0] == lang], lang
    assert "above" not in text[text.index("## Adding a tool") :]


@pytest.mark.parametrize("path", sorted(example_files()))
def test_the_files_the_pages_ask_for_pass_the_projects_linter(path):
    """`make lint`'s ruff check and ruff format, on each file as the page shows it (issue: the README's
    tools/weather.py imported ToolRegistry and never used it)."""
    code = example_files()[path]
    for ruff in (["check"], ["format", "--check"]):
        done = subprocess.run(
            [sys.executable, "-m", "ruff", *ruff, "--stdin-filename", path, "-"],
            cwd=ROOT,
            input=code,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"ruff {ruff[0]} {path}:\n{done.stdout}{done.stderr}"


def test_the_pages_name_only_files_that_exist():
    text = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    package = r"(?:agent|app|tools|devicedb|plumbing|tests|benchmarks)"
    named = set(re.findall(rf"`({package}/[\w/]*\.py|main\.py)`", text))
    assert len(named) >= 80
    for path in named - example_files().keys():
        assert (ROOT / path).is_file(), path


@pytest.mark.parametrize("page", PAGES, ids=name)
def test_the_tables_name_symbols_that_exist_where_they_say(page):
    """A table cell naming files, with the symbols in it or the next cell: each symbol is defined there."""
    for row in re.findall(r"^\|.*\|$", page.read_text(encoding="utf-8"), re.MULTILINE):
        cells = row.strip("|").split("|")
        for i, cell in enumerate(cells):
            files = re.findall(r"`((?:agent|app|tools|devicedb|plumbing)/[\w/]*\.py|main\.py)`", cell)
            if not files:
                continue
            sources = "".join((ROOT / f).read_text(encoding="utf-8") for f in files)
            nearby = cell + (cells[i + 1] if i + 1 < len(cells) and "::" not in cells[i + 1] else "")
            for symbol in re.findall(r"`([A-Za-z_][\w.]*)`", nearby):
                last = symbol.split(".")[-1]
                if last != "py" and (last[0].isupper() or "_" in last or "." in symbol):
                    assert re.search(rf"(def|class) {last}\b|^ *{last}\b.* = ", sources, re.MULTILINE), symbol


def test_the_tables_check_many_symbols():
    text = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    cells = [c for row in re.findall(r"^\|.*\|$", text, re.MULTILINE) for c in row.split("|")]
    assert sum(bool(re.search(r"`(?:agent|app|tools|devicedb|plumbing)/[\w/]*\.py`", c)) for c in cells) >= 60


PYTHON_COMMAND = re.compile(r"^(?:\w+=\S+ +)*python3? ", re.MULTILINE)


def test_every_pasted_command_runs_the_projects_venv():
    """A bash block runs `.venv/bin/python`, or `python` only after activating the venv (issue: a bare
    `python main.py` on a fresh clone is not the project's Python)."""
    commands = [code for lang, code in every_block() if lang == "bash"]
    assert len(commands) >= 10
    for code in commands:
        first = PYTHON_COMMAND.search(code)
        if first:
            assert ". .venv/bin/activate\n" in code[: first.start()], code


PACKAGES = r"\b(?:langchain-\w+|pydantic(?:-settings)?|requests|jsonschema|regex|python-dotenv|httpx)"


def test_the_readme_names_the_cores_dependencies_and_no_other():
    """Both languages of the README list `pip install .`'s packages: exactly pyproject's dependencies."""
    import tomllib

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = {re.split(r"[<>=\[ ]", spec, maxsplit=1)[0] for spec in declared}
    text = README.read_text(encoding="utf-8")
    for start in ("- `pip install .` installs", "- `pip install .` 只装"):
        item = text[text.index(start) :].split("\n- ", 1)[0]
        named = set(re.findall(PACKAGES, item))
        assert named == wanted, (start, named ^ wanted)
