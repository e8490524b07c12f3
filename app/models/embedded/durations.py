"""Durations: a span of time said in words ("半小时", "两个钟头", "the past half hour", "一整天"), as the
number a numeric parameter of minutes, hours, seconds or days takes — its name or description says which.
"""

from __future__ import annotations

import re
from typing import Any

from agent.numbers import chinese

_IN_MINUTES = {"second": 1 / 60, "minute": 1, "hour": 60, "day": 1440}
_UNIT_WORDS = {  # how a parameter names its unit
    "second": r"seconds?|secs?|秒",
    "minute": r"minutes?|mins?|分钟",
    "hour": r"hours?|hrs?|小时",
    "day": r"days?|天",
}
_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "twelve": 12}
_N = r"([0-9]+(?:\.[0-9]+)?|[零一二两三四五六七八九十百]+|a|an|one|two|three|four|five|six|twelve)"
_SAID = [  # (what is said, its unit); a half is said on its own
    (re.compile(rf"{_N}\s*个?\s*(?:半\s*)?(?:小时|钟头|钟(?!表))|\b{_N}\s+hours?\b", re.I), "hour"),
    (re.compile(r"半(?:个)?(?:小时|钟头)|half(?:\s+an|-|\s+)hour", re.I), "half-hour"),
    (re.compile(rf"{_N}\s*分钟|\b{_N}\s*(?:minutes?|mins?)\b", re.I), "minute"),
    (re.compile(r"(?:一)?整天|全天|\b(?:a|one|the)\s+(?:whole|full)\s+day\b|\ball day\b", re.I), "whole-day"),
    (re.compile(rf"{_N}\s*天|\b{_N}\s+days?\b", re.I), "day"),
]


def duration(text: str, name: str, spec: dict[str, Any]) -> list[str]:
    """The span of time the words give, in the unit of the parameter (`name`, `spec`), or []."""
    unit = _unit(f"{name.replace('_', ' ')} {spec.get('description', '')}")
    if unit is None:
        return []
    for said, kind in _SAID:
        if found := said.search(text):
            minutes = _minutes(found, kind)
            if minutes is not None:
                value = minutes / _IN_MINUTES[unit]
                return [str(int(value)) if value == int(value) else str(value)]
    return []


def _unit(words: str) -> str | None:
    """The unit a parameter's own words name, the first of them said."""
    placed = [
        (m.start(), u)
        for u, said in _UNIT_WORDS.items()
        if (m := re.search(rf"(?<![A-Za-z])(?:{said})(?![A-Za-z])", words, re.I))
    ]
    return min(placed)[1] if placed else None


def _minutes(found: re.Match[str], kind: str) -> float | None:
    if kind == "half-hour":
        return 30
    if kind == "whole-day":
        return 1440
    number = _number(next((g for g in found.groups() if g), ""))
    if number is None:
        return None
    half = 30 if kind == "hour" and "半" in found[0] else 0
    return number * {"hour": 60, "minute": 1, "day": 1440}[kind] + half


def _number(said: str) -> float | None:
    if re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", said):
        return float(said)
    if said.casefold() in _WORDS:
        return _WORDS[said.casefold()]
    if said and re.fullmatch(r"[零一二两三四五六七八九十百]+", said):
        return chinese(said)
    return None
