"""HTTP sessions, the rule every HTTP client of this project follows: a loopback URL never goes through
a proxy (the model's endpoint, the device service, the MCP servers, the served agent's clients)."""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import requests

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(url: str) -> bool:
    """Is this URL on this machine? Such requests skip proxy settings (and their per-request lookups)."""
    return (urlsplit(url).hostname or "") in LOOPBACK


def session_for(url: str) -> requests.Session:
    """A requests session for `url`: a local server is never reached through a proxy."""
    session = requests.Session()
    session.trust_env = not is_loopback(url)
    return session


def bypass_proxy_for_loopback() -> None:
    """For libraries that read the environment (httpx in the mcp SDK, openai): no proxy for loopback."""
    for name in ("NO_PROXY", "no_proxy"):
        current = os.environ.get(name, "")
        os.environ[name] = ",".join(filter(None, [current, *LOOPBACK]))
