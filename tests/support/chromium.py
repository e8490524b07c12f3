"""Debian's Chromium under Playwright, for the tests that open pages in a real browser (`make chromium`
installs it; nothing downloads a browser)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, sync_playwright


def launched() -> Iterator[Browser]:
    """A headless Chromium for a module's tests, closed after them; a clear failure when it is missing."""
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.fail("chromium not found: run `make chromium`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=chromium, args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]
        )
        yield browser
        browser.close()
