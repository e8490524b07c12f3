"""AuditLog: one JSON line per attempted tool call (refused and invalid ones too), secrets redacted.

The engineering article's checklist: "记录每次工具调用的入参/出参，便于复盘". Lines are appended and
flushed one by one, so a crash loses at most the line being written.
"""

from __future__ import annotations

import ipaddress
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

ADDRESS, USER = "<address>", "<user>"
_IPV4 = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d{1,3}){3})(?::\d{1,5})?(?!\w|\.\d)")
_IPV6 = re.compile(  # candidates `ipaddress` checks: bracketed, with an optional port, or bare
    r"(?<![\w\]])\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::\d{1,5})?"
    r"|(?<![\w:.\[])([0-9A-Fa-f]*(?::[0-9A-Fa-f]*){2,8}(?<![^:]:)(?:\.\d{1,3}){0,3}(?:%[\w.-]+)?)(?!\w)"
)
_NAME = r"[\w$-]+(?:\.[\w$-]+)*"
_WORDS = r"(?:system|user|assistant|tool|function|developer|input|data|request|message|id)"  # not names
_WINDOWS_HOME = r"(\b[A-Za-z]:(?:\\+|/)[Uu]sers(?:\\+|/))(?!<user>)"
_USER_TEXT = [  # (pattern, replacement): where upstream errors name a user
    # an e-mail address, a connection string's name@host; not pkg@1.2.3, Foo@1b6d3586 or image@sha256:
    (
        re.compile(r"(?<![\w.%+-])[A-Za-z0-9][\w.%+-]*@(?=[\w\[])(?!v?\d+(?:\.\d+){0,2}(?!\.?\d)|sha\d+:)"),
        USER + "@",
    ),
    # a home folder: /home/NAME, /Users/NAME, C:\Users\NAME (whose name may have spaces)
    (re.compile(r"((?:/home|/Users)/)(?!<user>)[^/\\\s\"'<>:;,]+"), r"\1" + USER),
    (re.compile(_WINDOWS_HOME + r"(?:[^\\/\"'<>:|?*\n]+(?=\\)|[^\\/\s\"'<>:|?*]+)"), r"\1" + USER),
    # Postgres' user "NAME" and role "NAME" (a chat role, role "tool", is not a name); for user 'NAME'
    (re.compile(r'\b((?:user|role)\s+")(?!' + _WORDS + r'")[^"\n]+"', re.IGNORECASE), r'\1<user>"'),
    (re.compile(r"\b(for\s+user\s+')[^'\n]+'", re.IGNORECASE), r"\1<user>'"),
    (re.compile(r"\b(for\s+user\s+)(?!" + _WORDS + r"\b)" + _NAME, re.IGNORECASE), r"\1" + USER),
]


def _address(match: re.Match[str]) -> str:
    """`<address>` for an IP address with a digit in it (so that a word like `add::bad` stays)."""
    candidate = next(group for group in match.groups() if group)
    try:
        ipaddress.ip_address(candidate)
    except ValueError:
        return match[0]
    return ADDRESS if any(c.isdigit() for c in candidate) else match[0]


def redact_identity(text: str) -> str:
    """Hide who and where: IP addresses (and their ports) and user names as servers write them: name@host,
    home folders, Postgres' `user "name"`, `for user name`."""
    for pattern, replacement in _USER_TEXT:
        text = pattern.sub(replacement, text)
    return _IPV4.sub(_address, _IPV6.sub(_address, text))


def upstream_reason(body: str, most: int = 120) -> str:
    """What an upstream's error body may tell a client: the `message` (or `error`) of a JSON body, one
    line, short, without credentials, URLs, host names, addresses or user names; nothing of another body (a
    proxy's HTML page)."""
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
    return _HOST.sub("<host>", redact_identity(redact_text(said)).strip().splitlines()[0])[:most]


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
