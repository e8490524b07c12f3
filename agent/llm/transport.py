"""HTTP to a model endpoint: one POST with 429/503 retried by exponential backoff and jitter (honouring
Retry-After and retry-after-ms), never past the deadline, every failure one clear LLMError; and the
rule every HTTP client of this project follows: a loopback URL never goes through a proxy.

`post` uses requests (already loaded with LangChain); `apost` is its asyncio twin on httpx, imported
only when an async call is made, so a synchronous run does not pay for it."""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import AsyncIterator, Mapping
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import requests

from agent.types import LLMError

if TYPE_CHECKING:
    import httpx

RETRY_STATUSES = frozenset({429, 503})
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


def retry_delay(attempt: int, headers: Mapping[str, str], base: float = 0.5, cap: float = 20.0) -> float:
    """Seconds to wait before retry number `attempt` (0-based): the server's hint, else backoff + jitter."""
    hinted = server_hint(headers)
    if hinted is not None:
        return hinted
    return min(cap, base * 2**attempt) * random.uniform(0.5, 1.0)


def server_hint(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date."""
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    after = headers.get("retry-after")
    if not after:
        return None
    try:
        return max(0.0, float(after))
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(after).timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def post(
    session: requests.Session,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout: float,
    max_retries: int,
    stream: bool = False,
) -> requests.Response:
    """The endpoint's successful response (its body still unread when `stream`)."""
    give_up_at = time.monotonic() + timeout
    for attempt in range(max_retries + 1):
        resp = _send(session, url, body, headers, give_up_at, stream)
        wait = _retry_wait(resp.status_code, resp.headers, attempt, max_retries, give_up_at)
        if wait is None:
            break
        resp.close()
        time.sleep(wait)
    if resp.status_code >= 400:
        raise LLMError(f"LLM endpoint {url} answered HTTP {resp.status_code}: {resp.text[:200]}")
    return resp


async def apost(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    timeout: float,
    max_retries: int,
    stream: bool = False,
) -> httpx.Response:
    """`post` for asyncio, on an httpx client from `async_client`."""
    give_up_at = time.monotonic() + timeout
    for attempt in range(max_retries + 1):
        resp = await _asend(client, url, body, headers, give_up_at, stream)
        wait = _retry_wait(resp.status_code, resp.headers, attempt, max_retries, give_up_at)
        if wait is None:
            break
        await resp.aclose()
        await asyncio.sleep(wait)
    if resp.status_code >= 400:
        await resp.aread()
        raise LLMError(f"LLM endpoint {url} answered HTTP {resp.status_code}: {resp.text[:200]}")
    return resp


def async_client(url: str) -> httpx.AsyncClient:
    import httpx

    return httpx.AsyncClient(trust_env=not is_loopback(url))


async def byte_lines(resp: httpx.Response) -> AsyncIterator[str]:
    """The body's lines, split at newlines only (httpx's aiter_lines also splits at U+2028 in the JSON)."""
    buffer = b""
    async for piece in resp.aiter_bytes():
        *lines, buffer = (buffer + piece).split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if buffer:
        yield buffer.decode("utf-8", "replace")


def _retry_wait(
    status: int, headers: Mapping[str, str], attempt: int, max_retries: int, give_up_at: float
) -> float | None:
    """Seconds to wait before asking again, or None: not a retryable status, no retries or time left."""
    if status not in RETRY_STATUSES or attempt == max_retries:
        return None
    wait = retry_delay(attempt, headers)
    return None if time.monotonic() + wait >= give_up_at else wait


def json_body(resp: requests.Response | httpx.Response) -> dict[str, Any]:
    try:
        data = resp.json()
    except ValueError:
        raise LLMError(
            f"LLM endpoint {resp.url} answered something that is not JSON: {resp.text[:200]}"
        ) from None
    if not isinstance(data, dict):
        raise LLMError(f"LLM endpoint {resp.url} answered JSON that is not a JSON object: {resp.text[:200]}")
    return data


def _send(
    session: requests.Session,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    give_up_at: float,
    stream: bool,
) -> requests.Response:
    left = max(0.1, give_up_at - time.monotonic())
    try:
        return session.post(url, json=body, headers=headers, timeout=(min(5.0, left), left), stream=stream)
    except requests.Timeout:
        raise LLMError(f"LLM endpoint {url} did not answer within {left:.3g}s") from None
    except requests.ConnectionError as e:
        raise LLMError(f"cannot reach LLM endpoint {url}: {type(e).__name__}") from None


async def _asend(
    client: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    headers: dict[str, str],
    give_up_at: float,
    stream: bool,
) -> httpx.Response:
    import httpx

    left = max(0.1, give_up_at - time.monotonic())
    request = client.build_request(
        "POST", url, json=body, headers=headers, timeout=httpx.Timeout(left, connect=min(5.0, left))
    )
    try:
        return await client.send(request, stream=stream)
    except httpx.TimeoutException:
        raise LLMError(f"LLM endpoint {url} did not answer within {left:.3g}s") from None
    except httpx.TransportError as e:
        raise LLMError(f"cannot reach LLM endpoint {url}: {type(e).__name__}") from None
