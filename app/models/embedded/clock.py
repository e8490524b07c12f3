"""Clock: a time of day as people say it ("2pm", "7.30pm", "noon", "晚上8点", "二十一点整", "中午12:30"), as
the 24-hour HH:MM a parameter asks for, when its pattern takes "19:30" and not "1930" (or its format is
"time"): a value of the person's words, only written the way the schema wants it."""

from __future__ import annotations

import re
from typing import Any

from app.models.embedded.numbers import chinese

_EN = re.compile(
    r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![A-Za-z])|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
_DAYPART = r"(早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨)?"
_HOUR = r"([0-9]{1,2}|[零〇一二两三四五六七八九十]+)"
_MINUTE = r"(半|一刻|三刻|整|[0-9]{1,2}|[零一二三四五六七八九十]+)"
_ZH = re.compile(rf"{_DAYPART}\s*{_HOUR}\s*[点點时](钟)?(?:{_MINUTE}(分)?)?")
_WRITTEN = re.compile(r"(?<![\d:])([01]?[0-9]|2[0-3]):([0-5][0-9])(?![\d:])")
_LATER = ("下午", "傍晚", "晚上", "夜里")  # the afternoon and evening: 8 is 20:00


def wants_clock(spec: dict[str, Any]) -> bool:
    """Does the parameter take a time of day as HH:MM?"""
    if spec.get("format") == "time":
        return True
    pattern = str(spec.get("pattern") or "")
    try:
        return bool(pattern) and bool(re.search(pattern, "19:30")) and not re.search(pattern, "1930")
    except re.error:
        return False


def times(text: str) -> list[str]:
    """The times of day the words give, as HH:MM, in the order said."""
    found: list[tuple[int, str]] = []
    for m in _EN.finditer(text):
        found.append((m.start(), _english(m)))
    for m in _ZH.finditer(text):
        found.append((m.start(), _chinese(m)))
    taken = [(at, value) for at, value in found if value]
    for m in _WRITTEN.finditer(text):
        if not any(at <= m.start() < at + 12 for at, _ in taken):  # "中午 12:30" is read once
            taken.append((m.start(), f"{int(m[1]):02d}:{m[2]}"))
    return list(dict.fromkeys(value for _, value in sorted(taken)))


def _english(m: re.Match[str]) -> str:
    if m[4]:
        return "00:00" if m[4].casefold() == "midnight" else "12:00"
    hour, minute = int(m[1]), int(m[2] or 0)
    if hour > 12 or minute > 59:
        return ""
    later = m[3].casefold().startswith("p")
    hour = hour % 12 + (12 if later else 0)
    return f"{hour:02d}:{minute:02d}"


def _chinese(m: re.Match[str]) -> str:
    part, hour_said, oclock, minute_said, fen = m[1] or "", m[2], m[3], m[4] or "", m[5]
    minutes = {"半": 30, "一刻": 15, "三刻": 45, "整": 0, "": 0}
    if minute_said not in minutes and not fen:
        return ""  # "三点五公斤" is a weight, "3点 5个人" a count: minutes in figures say 分
    if not (part or oclock or minute_said or hour_said.isdigit()):
        return ""  # "便宜一点", "有一点问题": a little, no time
    hour = int(hour_said) if hour_said.isdigit() else chinese(hour_said)
    minute = minutes[minute_said] if minute_said in minutes else _number(minute_said)
    if hour is None or minute is None or hour > 24 or minute > 59:
        return ""
    if part in _LATER and hour < 12 or part == "中午" and hour < 6:
        hour += 12
    if part in ("晚上", "夜里", "凌晨") and hour == 12:
        hour = 0  # midnight
    return f"{hour % 24:02d}:{minute:02d}"


def _number(said: str) -> int | None:
    return int(said) if said.isdigit() else chinese(said)
