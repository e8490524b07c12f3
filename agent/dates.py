"""Dates and times of day as people write them ("12 March 2026", "2026年5月7号", "20/4/2026"; "10.30am",
"晚上8点", "1700hrs"), read into the forms a schema asks for: YYYY-MM-DD (`format: date`) and HH:MM (a
time of day). Only what is written whole: a date with its day, month and year (no year is guessed, and
"4/5/2026" is no date, its day and month could be either way round), a time with its hour.

The host's grounding (`agent/grounding.py`) compares a value in these forms with the dates and times the
person wrote, so "2026-03-12" is the person's when they wrote "12 March 2026"; the demo model reads them.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

from agent.numbers import chinese

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"([0-9]{1,2})(?:st|nd|rd|th)?"
_ZH_DIGIT = "零〇一二两三四五六七八九十"
_DATES = [  # (pattern, the groups' order: y, m, d; "dmy?" when day and month may be either way round)
    (re.compile(r"(?<![0-9])([0-9]{4})[-/.]([0-9]{1,2})[-/.]([0-9]{1,2})(?![0-9])"), "ymd"),
    (re.compile(r"(?<![0-9])([0-9]{1,2})[-/.]([0-9]{1,2})[-/.]([0-9]{4})(?![0-9])"), "dmy?"),
    (re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH},?\s+([0-9]{{4}})\b", re.IGNORECASE), "dmy"),
    (re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+([0-9]{{4}})\b", re.IGNORECASE), "mdy"),
    (
        re.compile(
            rf"([0-9]{{4}}|[{_ZH_DIGIT}]{{4}})\s*年\s*([0-9]{{1,2}}|[{_ZH_DIGIT}]{{1,3}})\s*月"
            rf"\s*([0-9]{{1,2}}|[{_ZH_DIGIT}]{{1,3}})\s*[日号號]"
        ),
        "ymd",
    ),
]


def dates(text: str) -> list[tuple[str, str]]:
    """The dates written whole in `text`, in the order written: (as written, YYYY-MM-DD)."""
    return [(written, iso) for _, written, iso in _dates(text)]


def moments(text: str) -> list[tuple[int, int]]:
    """Where `text` writes a date or a time of day: (start, end) of each."""
    return [(at, at + len(written)) for at, written, _ in (*_dates(text), *_times(text))]


def _dates(text: str) -> list[tuple[int, str, str]]:
    found = []
    for pattern, order in _DATES:
        for m in pattern.finditer(text):
            iso = _date(dict(zip(order[:3], m.groups(), strict=True)), either=order.endswith("?"))
            if iso:
                found.append((m.start(), m.group(), iso))
    return sorted(found)


def as_date(value: str) -> str | None:
    """The date `value` writes whole, as YYYY-MM-DD, or None."""
    found = dates(value)
    return found[0][1] if len(found) == 1 and found[0][0] == value.strip() else None


def _date(said: dict[str, str], either: bool) -> str | None:
    year, day = _number(said["y"]), _number(said["d"])
    month = _MONTHS.get(said["m"].casefold().rstrip(".")) or _number(said["m"])
    if either and day != month and max(day, month) <= 12:
        return None  # "4/5/2026": the fourth of May or the fifth of April
    if either and month > 12:
        day, month = month, day  # "4/20/2026" is written month first
    try:
        return datetime.date(year, month, day).isoformat()
    except ValueError:
        return None


_EN_TIME = re.compile(
    r"(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s*(a\.?m\.?|p\.?m\.?)(?![A-Za-z])"
    r"|(?<![\d:.])(\d{1,2})(?:[:.](\d{2}))?\s+(?:o'clock\s+)?in the (morning|afternoon|evening)\b"
    r"|(?<![\d:.])([01][0-9]|2[0-3])([0-5][0-9])\s*hrs?\b|\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
_HOUR_WORDS = [
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_PAST = re.compile(  # "half past nine in the morning", "quarter to twelve", "20 past 3 pm"
    rf"\b(half|quarter|[0-9]{{1,2}}|ten|twenty|twenty-five|five)\s+(past|to)\s+"
    rf"([0-9]{{1,2}}|{'|'.join(_HOUR_WORDS)})\b"
    r"(?:\s*(a\.?m\.?|p\.?m\.?)(?![A-Za-z])|\s+in the (morning|afternoon|evening)\b|\s+at night\b)?",
    re.IGNORECASE,
)
_DAYPART = r"(?:(早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨)\s*)?"
_HOUR = rf"([0-9]{{1,2}}|[{_ZH_DIGIT}]+)"
_MINUTE = rf"(半|一刻|三刻|整|[0-9]{{1,2}}|[{_ZH_DIGIT}]+)"
_ZH_TIME = re.compile(rf"(?<![0-9A-Za-z.]){_DAYPART}{_HOUR}\s*[点點时](钟)?(?:{_MINUTE}(分)?)?")
_CLOCK = re.compile(r"(?<![\d:])([01]?[0-9]|2[0-3]):([0-5][0-9])(?![\d:])")
_LATER = ("下午", "傍晚", "晚上", "夜里")  # the afternoon and evening: 8 is 20:00


def times(text: str) -> list[tuple[str, str]]:
    """The times of day written in `text`, in the order written: (as written, HH:MM)."""
    return [(said, hhmm) for _, said, hhmm in _times(text)]


def _times(text: str) -> list[tuple[int, str, str]]:
    found = [(m.start(), m.group(), _english(m)) for m in _EN_TIME.finditer(text)]
    found += [(m.start(), m.group(), _past(m)) for m in _PAST.finditer(text)]
    found = [f for f in found if not any(f is not g and g[0] <= f[0] < g[0] + len(g[1]) for g in found)]
    part, end = "", 0
    for m in _ZH_TIME.finditer(text):  # "下午两点到四点": the end is in the afternoon too
        joined = part and re.fullmatch(r"\s*(?:到|至|-|~|～)\s*", text[end : m.start()])
        found.append((m.start(), m.group(), _chinese(m, part if joined and not m[1] else "")))
        part, end = m[1] or (part if joined else ""), m.end()
    taken = [(at, said, hhmm) for at, said, hhmm in found if hhmm]
    for m in _CLOCK.finditer(text):
        if not any(at <= m.start() < at + len(said) for at, said, _ in taken):  # "中午 12:30" is read once
            taken.append((m.start(), m.group(), f"{int(m[1]):02d}:{m[2]}"))
    return sorted(taken)


def as_time(value: str) -> str | None:
    """The time of day `value` writes whole, as HH:MM, or None."""
    found = times(value)
    return found[0][1] if len(found) == 1 and found[0][0] == value.strip() else None


def wants_date(spec: dict[str, Any]) -> bool:
    """Does the parameter take a date as YYYY-MM-DD?"""
    return spec.get("format") == "date"


def wants_clock(spec: dict[str, Any]) -> bool:
    """Does the parameter take a time of day as HH:MM: its format says so, or its pattern takes "19:30"
    and not "1930"?"""
    if spec.get("format") == "time":
        return True
    pattern = str(spec.get("pattern") or "")
    try:
        return bool(pattern) and bool(re.search(pattern, "19:30")) and not re.search(pattern, "1930")
    except re.error:
        return False


def _english(m: re.Match[str]) -> str:
    if m[9]:
        return "00:00" if m[9].casefold() == "midnight" else "12:00"
    if m[7]:
        return f"{m[7]}:{m[8]}"  # "1700hrs"
    hour, minute = int(m[1] or m[4]), int(m[2] or m[5] or 0)
    if hour > 12 or minute > 59:
        return ""
    later = (m[3] or "").casefold().startswith("p") or (m[6] or "").casefold() in ("afternoon", "evening")
    return f"{hour % 12 + (12 if later else 0):02d}:{minute:02d}"


def _past(m: re.Match[str]) -> str:
    said = {"half": 30, "quarter": 15, "five": 5, "ten": 10, "twenty": 20, "twenty-five": 25}
    minute = int(m[1]) if m[1].isdigit() else said[m[1].casefold()]
    hour = int(m[3]) if m[3].isdigit() else _HOUR_WORDS.index(m[3].casefold()) + 1
    if m[2].casefold() == "to":
        hour, minute = (hour - 1) % 12 or 12, 60 - minute
    later = (m[4] or "").casefold().startswith("p") or (m[5] or "").casefold() in ("afternoon", "evening")
    later = later or "at night" in m.group().casefold()
    if not (1 <= hour <= 12 and 0 < minute < 60):
        return ""
    return f"{hour % 12 + 12 if later else hour:02d}:{minute:02d}"


def _chinese(m: re.Match[str], inherited: str = "") -> str:
    part, hour_said, oclock, minute_said, fen = m[1] or inherited, m[2], m[3], m[4] or "", m[5]
    minutes = {"半": 30, "一刻": 15, "三刻": 45, "整": 0, "": 0}
    if minute_said not in minutes and not fen:
        return ""  # "三点五公斤" is a weight, "3点 5个人" a count: minutes in figures say 分
    if not (part or oclock or minute_said or hour_said.isdigit()):
        return ""  # "便宜一点", "有一点问题": a little, no time
    hour = _number(hour_said)
    minute = minutes[minute_said] if minute_said in minutes else _number(minute_said)
    if not (0 <= hour <= 24 and 0 <= minute <= 59):
        return ""
    if part in _LATER and hour < 12 or part == "中午" and hour < 6:
        hour += 12
    if part in ("晚上", "夜里", "凌晨") and hour == 12:
        hour = 0  # midnight
    return f"{hour % 24:02d}:{minute:02d}"


def _number(said: str) -> int:
    """A number of a date or a time, in figures or Chinese numerals ("二零二六", "十二", "二十一")."""
    return int(said) if said.isdigit() else chinese(said)
