"""The documentation site as `make docs` builds it works opened from disk (file://) and served, in Debian's
headless Chromium through Playwright, with no network: each navigation link opens a page, not a folder's
listing, and the search finds pages (from disk through the site's own copy of iframe-worker's shim).
`DOCS_SCREENSHOT=file.png` keeps a picture of the search's results on the site opened from disk."""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.conftest import ROOT
from tests.support.chromium import launched

WAIT = 30_000  # ms: a loaded machine is slow, never wrong
expect.set_options(timeout=WAIT)
# a navigation link's label: the page it opens, and that page's title
LINKS = {
    "宿主守住的规则": ("rules.html", "宿主守住的规则"),
    "MCP": ("mcp.html", "MCP：客户端与服务端"),
    "目录": ("layout.html", "目录"),
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built as `make docs` builds it (--strict), into a folder of its own."""
    folder = tmp_path_factory.mktemp("docs") / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        check=True,
        timeout=300,
    )
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched()


@pytest.fixture(params=["file", "http"])
def home(request: pytest.FixtureRequest, site: Path) -> Iterator[str]:
    """The site's home page: opened from disk, then served over HTTP on loopback."""
    if request.param == "file":
        yield (site / "index.html").as_uri()
        return

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(site), **kwargs)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
        server.shutdown()


def _offline(route: Route) -> None:
    """Only the site itself: a request to any other host (the theme's web fonts) fails."""
    if route.request.url.startswith(("file:", "http://127.0.0.1:")):
        route.continue_()
    else:
        route.abort()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.route("**/*", _offline)
    yield page
    context.close()


def test_each_navigation_link_opens_a_page(page: Page, home: str) -> None:
    page.goto(home)
    for label, (target, title) in LINKS.items():
        page.locator("nav.md-nav--primary").get_by_role("link", name=label, exact=True).first.click()
        expect(page).to_have_url(home.replace("index.html", target))
        expect(page.locator("article h1")).to_contain_text(title)
        assert "Index of" not in page.content()


def test_the_search_finds_pages_in_both_languages(page: Page, home: str) -> None:
    page.goto(home)
    page.keyboard.press("/")  # the theme's key for the search
    page.locator("input.md-search__input").press_sequentially("MCP")  # keys: the theme searches on keyup
    results = page.locator(".md-search-result__item > a")
    expect(results.first).to_be_visible()
    found = [href.split("?")[0] for href in results.evaluate_all("links => links.map(a => a.href)")]
    assert home.replace("index.html", "mcp.html") in found, found
    assert home.replace("index.html", "en/mcp.html") in found, found
    shot = os.environ.get("DOCS_SCREENSHOT")
    if shot and home.startswith("file:"):
        page.screenshot(path=shot)
    results.first.click()
    expect(page.locator("article h1")).to_be_visible()
    assert ".html" in page.url and "Index of" not in page.content()
