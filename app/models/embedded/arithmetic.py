"""Arithmetic in words, read by the host for the embedded demo model (which invents sums): the expression
of digits and signs a request asks for. Operator words become signs, parentheses stay; a share or a
discount becomes its sum ("20% of 1500", "打八折"); prices times quantities make a word problem's sum
("一部 1999 元，买 5 部"). The calculator tool computes it.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Callable

_EN = re.IGNORECASE
OPERATOR_WORDS = [  # longest first; what each becomes in an expression
    ("乘以", "*"), ("除以", "/"), ("加上", "+"), ("减去", "-"), ("乘", "*"), ("除", "/"), ("加", "+"),
    ("减", "-"), ("multiplied by", "*"), ("divided by", "/"), ("times", "*"), ("plus", "+"),
    ("minus", "-"), ("over", "/"), ("×", "*"), ("÷", "/"), ("（", "("), ("）", ")"),
]  # fmt: skip
_EXPRESSION = re.compile(r"[-+*/().\d\s]*\d[-+*/().\d\s]*")
_NUM = r"\d+(?:\.\d+)?"
_CN_DIGITS = dict(zip("一二两三四五六七八九", "1223456789", strict=True))
PERCENT_WORDS: list[
    tuple[str, str | Callable[[re.Match[str]], str]]
] = [  # share or discount -> sum, in order
    (r"百分之\s*(" + _NUM + r")", r"\1%"),
    (
        rf"打\s*([一二两三四五六七八九\d]{{1,2}})\s*折\s*(?:后|以后|之后)\s*({_NUM})",
        lambda m: m[2] + _discount(m[1]),
    ),
    (r"(?:打\s*)?([一二两三四五六七八九\d]{1,2})\s*折", lambda m: _discount(m[1])),
    (rf"({_NUM})\s*%\s*(?:off|discount)\s*(?:of|on)?\s*\$?({_NUM})", r"(\2 * (100 - \1) / 100)"),
    (rf"({_NUM})([^\d%]{{0,24}}?)({_NUM})\s*%\s*(?:off|discount)", r"(\1 * (100 - \3) / 100)\2"),
    (rf"({_NUM})\s*%\s*(?:of|of the|的)\s*\$?({_NUM})", r"(\1 / 100 * \2)"),
    (rf"({_NUM})\s*(?:的|of)\s*({_NUM})\s*%", r"(\1 * \2 / 100)"),
    (rf"({_NUM})\s*%", r"(\1 / 100)"),
]


def _discount(digits: str) -> str:
    """八折 is 80% of the price, 八五折 85%, 9 折 90%: a factor to multiply by."""
    written = "".join(_CN_DIGITS.get(c, c) for c in digits)
    return f" * {written} / {10 if len(written) == 1 else 100} "


# a change asked for in percent ("what percent increase"): from the first number to the second
_ASKS_RATE = re.compile(
    r"百分之(?:多少|几)|多少\s*%|几个百分点|what\s+percent|how\s+many\s+percent|by\s+what\s+percentage|"
    r"percent(?:age)?\s+(?:increase|decrease|change|rise|drop|growth)",
    _EN,
)
_FALLS = re.compile(r"降|跌|少了|减少|下滑|decrease|drop|fall|fell|decline|down", _EN)
# a coupon or voucher taken off the price, before or after its amount
_COUPON = re.compile(
    rf"({_NUM})\s*(?:dollars?|bucks|yuan|元|块)?\s*(?:off\s+)?(?:coupon|voucher|优惠券|券)|"
    rf"(?:coupon|voucher|优惠券|券)\D{{0,6}}?({_NUM})|(?:再减|立减|又减)\s*({_NUM})",
    _EN,
)


# dashes and colons that join no sum: a date, a time of day, an identifier with letters ("sz-db-02")
_NO_SUM = re.compile(
    r"(?<![\d-])\d{4}-\d{1,2}-\d{1,2}(?![\d-])|(?<![\d:])\d{1,2}:\d{2}(?![\d:])|"
    r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+"
)


def arithmetic(text: str) -> str | None:
    """The arithmetic the words ask for as an expression of digits and signs, or None: a change in percent
    (`rate`), an even split (`split`), operator words and signs, shares and discounts (`PERCENT_WORDS`)
    less a coupon, and prices times quantities (`priced`). Signs and digits of any width ("１２＋３０")."""
    text = _NO_SUM.sub(" ", unicodedata.normalize("NFKC", text))  # "2026-12-18", "CMP-2610-11"
    found = rate(text) or split(text) or _read(text)
    return found and _less_coupon(text, found)


_SPLIT = re.compile(
    r"平分|均分|平摊|分摊|\bsplit\b|\bshare[sd]?\s+(?:equally|evenly)|divided?\s+(?:equally|evenly)", _EN
)


def split(text: str) -> str | None:
    """An amount shared evenly ("3 个人平分 90 元", "split 120 between 4"): the larger number over the
    smaller, when the words hold just those two."""
    numbers = re.findall(_NUM, text)
    if not _SPLIT.search(text) or len(numbers) != 2:
        return None
    count, amount = sorted(numbers, key=float)
    return f"{amount} / {count}"


def rate(text: str) -> str | None:
    """The change from one number to another in percent, when that is asked ("from 80 to 100, what percent
    increase"): two numbers, the rise (or, where the words say it fell, the fall) over the first."""
    numbers = re.findall(_NUM, text)
    if not _ASKS_RATE.search(text) or len(numbers) != 2:
        return None
    first, then = numbers
    change = f"({first} - {then})" if _FALLS.search(text) else f"({then} - {first})"
    return f"{change} / {first} * 100"


def _less_coupon(text: str, expression: str) -> str:
    coupon = _COUPON.search(text)
    amount = coupon and next(n for n in coupon.groups() if n)
    if not amount or re.search(rf"-\s*{re.escape(amount)}(?![\d.])", expression):
        return expression  # none, or taken off already ("再减 20")
    return f"{expression} - {amount}"


def _read(text: str) -> str | None:
    spelled = f" {text} "
    for pattern, written in PERCENT_WORDS:
        spelled = re.sub(pattern, written, spelled, flags=_EN)
    for words, sign in OPERATOR_WORDS:
        spelled = re.sub(rf"(?<![A-Za-z]){re.escape(words)}(?![A-Za-z])", f" {sign} ", spelled, flags=_EN)
    for candidate in sorted(_EXPRESSION.findall(spelled), key=len, reverse=True):
        expression = " ".join(candidate.split())
        if _is_arithmetic(expression) and not _LONE_PERCENT.fullmatch(expression):
            return expression
    return priced(text)


_LONE_PERCENT = re.compile(r"\(\s*[0-9.]+\s*/\s*100\s*\)")  # "at 6% for 8 years": a rate, no sum to do


_UNIT = r"(?:台|部|个|件|只|支|箱|份|张|套|pcs|units?|phones?|items?|cases?|pieces?|boxes)"
_QUANTITY = re.compile(
    rf"(?:(?:买|进了|卖了|订了|buy|bought|order(?:ed)?|get)\s*({_NUM})|({_NUM})\s*{_UNIT})", _EN
)
_PRICE = re.compile(
    rf"(?:[$¥￥]|每{_UNIT}|一{_UNIT}[^\d]{{0,6}}|单价|\bat\b|@)\s*({_NUM})|({_NUM})\s*(?:元|块|dollars?|bucks|yuan|each|apiece)",
    _EN,
)
_ADDED = re.compile(rf"(?:plus|and|加|再加|另加|运费|shipping)\D{{0,12}}?({_NUM})(?!\s*{_UNIT})", _EN)


def priced(text: str) -> str | None:
    """A word problem of prices and quantities ("2 units at 999 apiece", "一部 1999 元，买 5 部"): each
    quantity times its price, in the order they come, plus an amount added after them, or None when a
    number of the words is neither."""
    found: list[tuple[int, str, str]] = []
    for kind, pattern in (("q", _QUANTITY), ("p", _PRICE)):
        found += [(m.start(), kind, m[1] or m[2]) for m in pattern.finditer(text)]
    found = sorted({at: (at, kind, n) for at, kind, n in sorted(found, key=lambda f: f[1] == "q")}.values())
    terms, waiting = [], None
    for _, kind, number in found:
        if waiting and waiting[0] != kind:
            terms.append(f"{waiting[1]} * {number}")
            waiting = None
        else:
            waiting = (kind, number)
    said = {n for _, _, n in found}
    extra = [m[1] for m in _ADDED.finditer(text) if m[1] not in said]
    if not terms or waiting or len(said) + len(extra) != len(re.findall(_NUM, text)):
        return None
    return " + ".join([*terms, *extra])


def _is_arithmetic(expression: str) -> bool:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(node, ast.BinOp) for node in ast.walk(tree))
