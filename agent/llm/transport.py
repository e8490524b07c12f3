"""HTTP to a model endpoint: one POST with 429/503 retried by exponential backoff and jitter (honouring
Retry-After and retry-after-ms), never past the deadline, every failure one clear LLMError; a loopback
endpoint is reached without a proxy, as every HTTP client of this project is (`plumbing/http.py`).

`post` uses requests (already loaded with LangChain); `apost` is its asyncio twin on httpx, imported
only when an async call is made, so a synchronous run does not pay for it."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import requests

from agent.audit import redact_text, upstream_reason
from agent.types import LLMError
from plumbing.http import is_loopback

if TYPE_CHECKING:
    import httpx

RETRY_STATUSES = frozenset({429, 503})


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


@dataclass
class Post:
    """One POST to the endpoint: what to send, and the deadline and retries it gets."""

    url: str
    body: dict[str, Any]
    headers: dict[str, str]
    timeout: float
    max_retries: int = 0
    stream: bool = False  # the response's body is left unread, to be read as a stream
    give_up_at: float = field(init=False)

    def __post_init__(self) -> None:
        self.give_up_at = time.monotonic() + self.timeout

    def left(self) -> float:
        return max(0.1, self.give_up_at - time.monotonic())

    def retry_wait(self, status: int, headers: Mapping[str, str], attempt: int) -> float | None:
        """Seconds to wait before asking again, or None: not a retryable status, or no time left."""
        if status not in RETRY_STATUSES:
            return None
        wait = retry_delay(attempt, headers)
        return None if time.monotonic() + wait >= self.give_up_at else wait

    def failure(self, status: int, text: str) -> LLMError:
        reason = upstream_reason(text)
        return LLMError(
            f"LLM endpoint {redact_text(self.url)} answered HTTP {status}" + (f": {reason}" if reason else "")
        )


def post(session: requests.Session, request: Post) -> requests.Response:
    """The endpoint's successful response, after the retries 429 and 503 get."""
    resp = _send(session, request)
    for attempt in range(request.max_retries):
        if (wait := request.retry_wait(resp.status_code, resp.headers, attempt)) is None:
            break
        resp.close()
        time.sleep(wait)
        resp = _send(session, request)
    if resp.status_code >= 400:
        raise request.failure(resp.status_code, resp.text)
    return resp


async def apost(client: httpx.AsyncClient, request: Post) -> httpx.Response:
    """`post` for asyncio, on an httpx client from `async_client`."""
    resp = await _asend(client, request)
    for attempt in range(request.max_retries):
        if (wait := request.retry_wait(resp.status_code, resp.headers, attempt)) is None:
            break
        await resp.aclose()
        await asyncio.sleep(wait)
        resp = await _asend(client, request)
    if resp.status_code >= 400:
        raise request.failure(resp.status_code, (await resp.aread()).decode("utf-8", "replace"))
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


def _send(session: requests.Session, request: Post) -> requests.Response:
    left = request.left()
    try:
        return session.post(
            request.url,
            json=request.body,
            headers=request.headers,
            timeout=(min(5.0, left), left),
            stream=request.stream,
        )
    except requests.Timeout:
        raise LLMError(f"LLM endpoint {request.url} did not answer within {left:.3g}s") from None
    except requests.ConnectionError as e:
        raise LLMError(f"cannot reach LLM endpoint {request.url}: {type(e).__name__}") from None


async def _asend(client: httpx.AsyncClient, request: Post) -> httpx.Response:
    import httpx

    left = request.left()
    timeout = httpx.Timeout(left, connect=min(5.0, left))
    sent = client.build_request(
        "POST", request.url, json=request.body, headers=request.headers, timeout=timeout
    )
    try:
        return await client.send(sent, stream=request.stream)
    except httpx.TimeoutException:
        raise LLMError(f"LLM endpoint {request.url} did not answer within {left:.3g}s") from None
    except httpx.TransportError as e:
        raise LLMError(f"cannot reach LLM endpoint {request.url}: {type(e).__name__}") from None
