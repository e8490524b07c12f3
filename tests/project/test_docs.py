"""The documentation site builds as `make docs` builds it, with `mkdocs build --strict` and not one warning:
every page in the nav, every link and anchor found, both languages, the screenshots inside docs/."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.project.test_readme import PAGES


def test_the_site_builds_strictly_in_both_languages(tmp_path):
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert "WARNING" not in log, log
    pages = [p.name.removesuffix(".md") for p in PAGES[1:] if not p.name.endswith(".en.md")]
    for page in pages:  # NAME.html, not NAME/index.html: from disk, a link to a folder opens its listing
        assert (site / f"{page}.html").is_file(), page
        assert (site / "en" / f"{page}.html").is_file(), page
    assert "宿主守住的规则" in (site / "rules.html").read_text(encoding="utf-8")
    assert "The host holds the rules" in (site / "en" / "rules.html").read_text(encoding="utf-8")
    # the offline plugin's index for file://, made from both languages' (mkdocs.yml lists it after i18n)
    index = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert (site / "search" / "search_index.js").read_text(encoding="utf-8") == f"var __index = {index}"
    assert (site / "assets" / "screenshots" / "trace.png").stat().st_size > 30_000


def test_the_screenshots_live_in_the_docs():
    shots = {p.name for p in (ROOT / "docs" / "assets" / "screenshots").glob("*.png")}
    assert {"trace.png", "page-zh-desktop.png", "page-en-phone.png"} <= shots
    assert not (ROOT / "tests" / "screenshots").exists()


CONFORMANCE = {
    "mcp.en.md": r"(?P<passing>\d+) of (?P<total>\d+) scenarios pass; the other (?P<other>\d+)",
    "mcp.md": r"(?P<total>\d+) 个场景通过 (?P<passing>\d+) 个；其余 (?P<other>\d+)",
}


@pytest.mark.parametrize("page", CONFORMANCE)
def test_the_conformance_figures_add_up_to_the_baseline(page):
    """docs/mcp: of the suite's server scenarios, the ones that do not pass are the baseline's, no more."""
    import yaml

    found = re.search(CONFORMANCE[page], (ROOT / "docs" / page).read_text(encoding="utf-8"))
    assert found is not None
    figures = {name: int(value) for name, value in found.groupdict().items()}
    baseline = yaml.safe_load((ROOT / "conformance" / "baseline.yml").read_text(encoding="utf-8"))
    assert figures["other"] == len(baseline["server"])
    assert figures["passing"] + figures["other"] == figures["total"]
