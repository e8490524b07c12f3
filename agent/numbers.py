"""Numbers as people write them: digits in any width ("２０" is 20), with a decimal point, commas between
thousands ("250,000") or a k for thousands ("5k"), Chinese numerals ("三百", "两千五百", "十二") and English
ones ("two hundred"), each read as written, in the order they stand. A lone 一 or "one" is a word ("一下",
"the one"), not an amount. The host's grounding compares a number argument with them (8 is the person's
when they wrote "eight"), and the demo model reads its amounts from them."""

from __future__ import annotations

import re
import unicodedata

_DIGITS = re.compile(  # "250,000" is one amount: commas between groups of three figures
    r"(?<![A-Za-z0-9.\-])(?:[0-9]{1,3}(?:,[0-9]{3})+(?![0-9])|[0-9]+)(?:\.[0-9]+)?(?![A-Za-z0-9\-]|\.[0-9])"
)
_CHINESE = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
MEASURES = re.compile(r"[箱台件个张人天年次份包盒瓶支套本条]")  # a number's measure word names what it counts
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
_SMALL = (  # the words of 0 to 19
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
)
_TENS = "twenty thirty forty fifty sixty seventy eighty ninety"
_ONES = {word: n for n, word in enumerate(_SMALL.split(" "))} | {
    word: 10 * n for n, word in enumerate(_TENS.split(" "), 2)
}
_NUMBER_WORD = rf"(?:{'|'.join(_ONES)}|hundred|thousand|million)"
# a run of number words ("two hundred", "twenty-five", "a thousand"), joined by spaces, dashes or "and"
_ENGLISH = re.compile(
    rf"\b(?:an?\s+(?=hundred|thousand|million))?{_NUMBER_WORD}(?:(?:\s+and\s+|[\s-]+){_NUMBER_WORD})*\b",
    re.IGNORECASE,
)
_DIGIT_WORD = "|".join(_SMALL.split(" ")[:10])
_POINT = re.compile(  # "two point five": 2.5; at most five words before it, so the search stays linear
    rf"\b({_NUMBER_WORD}(?:[\s-]+{_NUMBER_WORD}){{0,4}})\s+point((?:\s+(?:{_DIGIT_WORD}))+)\b",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"(?<![A-Za-z0-9.])([0-9]+(?:\.[0-9]+)?)[kK](?![A-Za-z0-9])")  # "5k", "1.5k"
_ZH_NUMERAL = "[零〇一二两三四五六七八九十百千万]+|[0-9]+"
_WHOLE = rf"{_NUMBER_WORD}(?:[\s-]+{_NUMBER_WORD}){{0,4}}|[0-9]+"
_PARTS = [  # a number with its part: "two and a half" 2.5, "a dozen" 12, "一个半" 1.5, "六十三块五" 63.5
    (re.compile(rf"\b({_WHOLE})\s+and\s+a\s+half\b", re.IGNORECASE), lambda m: _value(m[1]) + 0.5),
    (re.compile(rf"\b(an?|{_WHOLE})\s+dozens?\b", re.IGNORECASE), lambda m: 12 * _value(m[1])),
    (re.compile(rf"({_ZH_NUMERAL})个半"), lambda m: _value(m[1]) + 0.5),
    (
        re.compile(
            rf"({_ZH_NUMERAL})[块元]([一二三四五六七八九]|[0-9])(?:[毛角]|(?![0-9零〇一二两三四五六七八九十百千万分]))"
        ),
        lambda m: _value(m[1]) + _value(m[2]) / 10,
    ),
]


def numbers(text: str) -> list[str]:
    """The amounts `text` states, as decimal strings ("三百" -> "300", "２０" -> "20")."""
    return [value for _, _, value in numbers_at(unicodedata.normalize("NFKC", text))]


def numbers_at(text: str) -> list[tuple[int, int, str]]:
    """The amounts `text` (already NFKC) states, each with where it stands: (start, end, value)."""
    found = [(m.start(), m.end(), m[0].replace(",", "")) for m in _DIGITS.finditer(text)]
    found += [(m.start(), m.end(), _thousands(m[1])) for m in _THOUSANDS.finditer(text)]  # "5k"
    found += [
        (m.start(), m.end(), str(chinese(m[0])))
        for m in _CHINESE.finditer(text)
        if m[0] != "一" or MEASURES.match(text, m.end())  # 一台, 一箱: one; 一下, 一起: a word
    ]
    pointed = [(m.start(), m.end(), _pointed(m)) for m in _POINT.finditer(text)] if "point" in text else []
    found += [(m.start(), m.end(), str(english(m[0]))) for m in _ENGLISH.finditer(text) if _counted(m[0])]
    pointed += [
        (m.start(), m.end(), _decimal(read(m))) for pattern, read in _PARTS for m in pattern.finditer(text)
    ]
    found = [f for f in found if not any(p[0] <= f[0] < p[1] for p in pointed)] + pointed
    return sorted(f for f in found if not text[: f[0]].endswith("^"))  # "m/s^2": a power, no amount


ONE = re.compile(r"(?<![A-Za-z])one(?![A-Za-z])|一", re.IGNORECASE)  # a word more often than an amount
# ("the one", "一下"): 1 only when it is a whole value, or a number is looked for


def as_number(value: str) -> str | None:
    """The number `value` writes whole ("eight", "250,000", "两", "12.0"), as a decimal string ("8",
    "250000", "2", "12"), or None."""
    text = unicodedata.normalize("NFKC", value).strip()
    if ONE.fullmatch(text):
        return "1"
    found = numbers_at(text)
    if len(found) != 1 or (found[0][0], found[0][1]) != (0, len(text)):
        return None
    number = float(found[0][2])
    return str(int(number)) if number.is_integer() else str(number)


def _value(said: str) -> float:
    """A whole number in figures, Chinese or English words ("a" is one)."""
    if said.isdigit():
        return int(said)
    if re.fullmatch(_ZH_NUMERAL, said):
        return chinese(said)
    return english(said) or 1


def _decimal(number: float) -> str:
    return str(int(number)) if float(number).is_integer() else str(number)


def _pointed(m: re.Match[str]) -> str:
    digits = "".join(str(_ONES[w.casefold()]) for w in m[2].split())
    return f"{english(m[1])}.{digits}"


def english(words: str) -> int:
    """An English numeral's value: "two hundred" 200, "twenty-five" 25, "three thousand five hundred" 3500."""
    total = section = 0
    for word in re.findall(r"[a-z]+", words.casefold()):
        if word in _ONES:
            section += _ONES[word]
        elif word == "hundred":
            section = max(section, 1) * 100
        elif word in ("thousand", "million"):
            total += max(section, 1) * (1000 if word == "thousand" else 1_000_000)
            section = 0
    return total + section


def _counted(words: str) -> bool:
    """Is the run an amount, not a word ("one of them", "a"): more than a lone "one"?"""
    return words.strip().casefold() not in ("one", "a", "an")


def _thousands(said: str) -> str:
    value = float(said) * 1000
    return str(int(value)) if value.is_integer() else str(value)


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
