"""AuditLog: one JSON line per attempted tool call (refused and invalid ones too), secrets redacted.

The engineering article's checklist: "记录每次工具调用的入参/出参，便于复盘". Lines are appended and
flushed one by one, so a crash loses at most the line being written.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REDACTED = "[REDACTED]"
_SECRET_KEY = re.compile(r"(api[_-]?key|token|secret|password|passwd|authorization|cookie)", re.IGNORECASE)
_KEY_VALUE = (
    r"((?:api[_-]?key|token|secret|password|authorization)[\"']?\s*[:=]\s*[\"']?)(?:(?:Bearer|Basic)\s+)?"
)
_SECRET_TEXT = [  # (pattern, replacement), in this order
    (re.compile(r"(?<=//)[^/\s@?#]*@"), ""),  # a URL's userinfo (//user:pass@host, //token@host): dropped
    (re.compile(_KEY_VALUE + r"[^\s\"',;&]+", re.IGNORECASE), r"\1" + REDACTED),
    (re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE), r"\1 " + REDACTED),
    (re.compile(r"\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{8,}"), REDACTED),
]


def redact_text(text: str) -> str:
    """Hide things that look like credentials: a URL's user and password, bearer tokens, `sk-...` keys,
    `password=...` pairs."""
    for pattern, replacement in _SECRET_TEXT:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any) -> Any:
    """A copy of `value` with secret-looking keys and strings hidden, at any depth."""
    if isinstance(value, dict):
        return {k: REDACTED if _SECRET_KEY.search(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


_HOST = re.compile(r"\b(?:[a-z][a-z0-9+.-]*://)?(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b(?::\d+)?(?:/\S*)?")


def upstream_reason(body: str, most: int = 120) -> str:
    """What an upstream's error body may tell a client: the `message` (or `error`) of a JSON body, one
    line, short, without credentials, URLs or host names; nothing of another body (a proxy's HTML page)."""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    said = (
        (data.get("error") or data.get("detail") or data.get("message")) if isinstance(data, dict) else None
    )
    if isinstance(said, dict):
        said = said.get("message")
    if not isinstance(said, str) or not said.strip():
        return ""
    return _HOST.sub("<host>", redact_text(said).strip().splitlines()[0])[:most]


Context = Callable[[Mapping[str, Any]], dict[str, Any]]  # a line's fields -> fields to add to it


class AuditLog:
    def __init__(self, path: str | Path, context: Context | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.context = context  # fields each line gets from where it is written: the trace's ids
        self._lock = threading.Lock()

    def record(self, **fields: Any) -> None:
        fields = redact(fields)
        line = {"time": datetime.now(UTC).isoformat(timespec="milliseconds"), **fields}
        line |= self.context(fields) if self.context else {}
        text = json.dumps(line, ensure_ascii=False, default=str) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as f:
            f.write(text)
            f.flush()

    def tail(self, n: int) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()[-n:]
        return [json.loads(line) for line in lines]
