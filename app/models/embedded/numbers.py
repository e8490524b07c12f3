"""Numbers: the amounts a request states, for an argument whose schema type is a number: digits in any
width ("２０" is 20), with a decimal point, and Chinese numerals ("三百", "两千五百", "十二"), each read
as written, in the order they stand. A lone 一 is a word ("一下"), not an amount."""

from __future__ import annotations

import re
import unicodedata

_DIGITS = re.compile(r"(?<![A-Za-z0-9.\-])[0-9]+(?:\.[0-9]+)?(?![A-Za-z0-9\-])")
_CHINESE = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_DIGIT = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_UNIT = {"十": 10, "百": 100, "千": 1000}


def numbers(text: str) -> list[str]:
    """The amounts `text` states, as decimal strings ("三百" -> "300", "２０" -> "20")."""
    return [value for _, _, value in numbers_at(unicodedata.normalize("NFKC", text))]


def numbers_at(text: str) -> list[tuple[int, int, str]]:
    """The amounts `text` (already NFKC) states, each with where it stands: (start, end, value)."""
    found = [(m.start(), m.end(), m[0]) for m in _DIGITS.finditer(text)]
    found += [(m.start(), m.end(), str(chinese(m[0]))) for m in _CHINESE.finditer(text) if m[0] != "一"]
    return sorted(found)


def chinese(numeral: str) -> int:
    """A Chinese numeral's value: with units ("两千五百" 2500, "十二" 12, "三万" 30000, "一千二" 1200), or
    digit by digit when it has none ("二零二六" 2026)."""
    if not any(ch in _UNIT or ch == "万" for ch in numeral):
        return int("".join(str(_DIGIT[ch]) for ch in numeral))
    total = section = 0
    digit: int | None = None
    for ch in numeral:
        if ch in _DIGIT:
            digit = _DIGIT[ch]
        elif ch in _UNIT:
            section += (1 if digit is None else digit) * _UNIT[ch]
            digit = None
        else:  # 万
            total += (section + (digit or 0)) * 10000
            section, digit = 0, None
    last = {"百": 10, "千": 100, "万": 1000}.get(numeral[-2:-1], 1) if len(numeral) > 1 else 1
    return total + section + (digit or 0) * last  # "一千二" is 1200, "三万五" 35000, as people say them


def typed(value: str, schema_type: str) -> int | float | str:
    """`value` as the schema's type wants it: an integer, a number, or the string as written."""
    if schema_type == "integer" and re.fullmatch(r"[0-9]+", value):
        return int(value)
    if schema_type == "number" and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", value):
        number = float(value)
        return int(number) if number.is_integer() else number
    return value
