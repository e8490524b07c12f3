"""When to retry an LLM request: 429/503 with exponential backoff and jitter, honouring Retry-After."""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime

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
