"""Numbers written in Chinese numerals, as the scorer reads a person's words for the numbers they said
("四百二十" 420, "十七" 17, "六千七百五" 6750, "八万四" 84000, "一千零九" 1009, "七点二" 7.2, "一九九八"
1998). Only the scorer reads them (`truth.said_numbers`): the demo's own reading is not its judge.
cn2an does this too, but its wheel installs stray top-level folders (build/, example/, src/) beside it."""

from __future__ import annotations

import re

DIGIT = "零〇一二两三四五六七八九"
DIGITS = dict(zip(DIGIT, (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
UNITS = {"十": 10, "百": 100, "千": 1000}
SECTIONS = {"万": 10_000, "亿": 100_000_000}
# a run of numerals with a digit in it, or one that begins with 十 ("十五"); a decimal part after 点
RUN = re.compile(f"(?=[{DIGIT}十])[{DIGIT}十百千万亿]+(?:点[{DIGIT}]+)?")


def chinese_numbers(text: str) -> list[float]:
    """The value of each run of Chinese numerals in `text`, in order."""
    return [value for run in RUN.findall(text) if (value := chinese_number(run)) is not None]


def chinese_number(run: str) -> float | None:
    """The value of one run ("六千七百五" 6750), or None when it holds no digit nor 十."""
    whole, _, fraction = run.partition("点")
    value = _whole(whole)
    if value is None:
        return None
    return value + (float("0." + "".join(str(DIGITS[c]) for c in fraction)) if fraction else 0)


def _whole(run: str) -> int | None:
    total = section = digit = 0
    last = 1  # the unit of the last digit placed: a digit after 百 or 千 with no 零 between is of the next
    zero = seen = False
    for i, char in enumerate(run):
        if char in DIGITS:  # digits in a row are written place by place: 一九九八
            digit = digit * 10 + DIGITS[char] if i and run[i - 1] in DIGITS else DIGITS[char]
            zero, seen = zero or DIGITS[char] == 0, True
        elif char in UNITS:
            section += (digit or (1 if not seen or char == "十" else 0)) * UNITS[char]
            digit, last, zero, seen = 0, UNITS[char], False, True
        else:
            total += (section + digit) * SECTIONS[char]
            section = digit = 0
            last, zero = SECTIONS[char], False
    if not seen:
        return None
    if digit and not zero and last > 10:  # 六千七百五: the five is fifty; 八万四: four thousand
        digit *= last // 10
    return total + section + digit
