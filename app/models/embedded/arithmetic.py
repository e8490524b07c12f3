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

from agent.numbers import chinese, numbers_at
from app.models.embedded.word_problems import NUM as _NUM
from app.models.embedded.word_problems import priced, solved

_EN = re.IGNORECASE
OPERATOR_WORDS = [  # longest first; what each becomes in an expression
    ("乘以", "*"), ("除以", "/"), ("加上", "+"), ("减去", "-"), ("乘", "*"), ("除", "/"), ("加", "+"),
    ("减", "-"), ("multiplied by", "*"), ("divided by", "/"), ("times", "*"), ("plus", "+"),
    ("minus", "-"), ("over", "/"), ("×", "*"), ("÷", "/"), ("（", "("), ("）", ")"),
]  # fmt: skip
_EXPRESSION = re.compile(r"[-+*/().\d\s]*\d[-+*/().\d\s]*")
_CN_DIGITS = dict(zip("一二两三四五六七八九", "1223456789", strict=True))
PERCENT_WORDS: list[
    tuple[str, str | Callable[[re.Match[str]], str]]
] = [  # share or discount -> sum, in order
    (r"百分之\s*(" + _NUM + r")", r"\1%"),
    (rf"({_NUM})\s*per\s*cent", r"\1%"),
    (rf"({_NUM})\s*(?:plus|\+|加上?|另加)\s*(?:a\s+)?({_NUM})\s*%", r"(\1 * (100 + \2) / 100)"),
    (rf"({_NUM})\s*(?:minus|less|减去?)\s*(?:a\s+)?({_NUM})\s*%", r"(\1 * (100 - \2) / 100)"),
    (
        rf"({_NUM})([^\d%]{{0,16}}?(?:其中|当中|of (?:them|which|those))[^\d%]{{0,6}}?)({_NUM})\s*%",
        r"(\1 * \3 / 100)\2",
    ),
    (
        rf"打\s*([一二两三四五六七八九\d]{{1,2}})\s*折\s*(?:后|以后|之后)\s*({_NUM})",
        lambda m: m[2] + _discount(m[1]),
    ),
    (r"(?:打\s*)?([一二两三四五六七八九\d]{1,2})\s*折", lambda m: _discount(m[1])),
    (rf"({_NUM})\s*%\s*(?:off|discount)\s*(?:of|on)?\s*\$?({_NUM})", r"(\2 * (100 - \1) / 100)"),
    (rf"({_NUM})(?![\d.])([^\d%]{{1,24}}?)({_NUM})\s*%\s*(?:off|discount)", r"(\1 * (100 - \3) / 100)\2"),
    (rf"({_NUM})\s*%\s*(?:of|of the|的)\s*\$?({_NUM})", r"(\1 / 100 * \2)"),
    (rf"({_NUM})\s*(?:的|of)\s*({_NUM})\s*%", r"(\1 * \2 / 100)"),
    (rf"({_NUM})\s*%", r"(\1 / 100)"),
]


def _discount(digits: str) -> str:
    """八折 is 80% of the price, 八五折 85%, 9 折 90%: a factor to multiply by."""
    written = "".join(_CN_DIGITS.get(c, c) for c in digits)
    return f" * {written} / {10 if len(written) == 1 else 100} "


# a coupon or voucher taken off the price, before or after its amount
_COUPON = re.compile(
    rf"({_NUM})\s*(?:dollars?|bucks|yuan|元|块)?\s*(?:off\s+)?(?:coupon|voucher|优惠券|券)|"
    rf"(?:coupon|voucher|优惠券|券)\D{{0,6}}?({_NUM})|(?:再减|立减|又减)\s*({_NUM})",
    _EN,
)


# what joins no sum: a date, a time of day, an identifier with letters ("sz-db-02", "PKB110"), a size or a
# rating with its unit ("12GB", "5V")
_NO_SUM = re.compile(
    r"(?<![\d-])\d{4}-\d{1,2}-\d{1,2}(?![\d-])|(?<![\d:])\d{1,2}:\d{2}(?![\d:])|"
    r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+|"
    r"\b[A-Za-z]{2,}\d+[A-Za-z0-9]*|\b\d+(?:GB|TB|MB|mAh|Hz|W|V)\b"  # "PKB110", "12GB", "5V": no operand
)


def arithmetic(text: str) -> str | None:
    """The arithmetic the words ask for as an expression of digits and signs, or None: a word problem
    (`word_problems.solved`: a change or share in percent, a split, what is left, prices per unit),
    operator words and signs, shares and discounts (`PERCENT_WORDS`) less a coupon, and prices times
    quantities (`priced`). Signs and digits of any width ("１２＋３０"), numbers written in words too."""
    text = _NO_SUM.sub(" ", in_figures(unicodedata.normalize("NFKC", text)))  # "2026-12-18", "CMP-2610-11"
    found = solved(text) or _read(text) or priced(text)
    return found and _less_coupon(text, found)


_HUNDRED_AND = re.compile(r"\b(hundred|thousand)\s+and\s+(?=[a-z])", re.IGNORECASE)  # "two hundred and six"
_WAN = re.compile(r"(\d+(?:\.\d+)?)\s*([万千])")  # "5万": 50000, "8 千": 8000
_PERCENT_ZH = re.compile(r"百分之\s*([零〇一二两三四五六七八九十百千]+)")  # 百分之 and a numeral: a percent


def in_figures(text: str) -> str:
    """`text` with the numbers it writes in words in figures (三百 as 300, "one thousand three hundred and
    forty" as 1340, "5万" as 50000, 百分之 and a Chinese numeral as a percent); a discount's digits, said
    in 折, stay as written."""
    text = _PERCENT_ZH.sub(lambda m: f"{chinese(m[1])}%", _HUNDRED_AND.sub(r"\1 ", text))
    text = _WAN.sub(lambda m: _figure(float(m[1]) * (10000 if m[2] == "万" else 1000)), text)
    for start, end, value in reversed(numbers_at(text)):
        said = text[start:end]
        if (
            said.replace(",", "").replace(".", "").isdigit()
            or text[end : end + 1] == "折"
            or text[end : end + 2] == "分之"
        ):
            continue  # in figures already; a discount's digits before 折, or a percent's 百
        text = f"{text[:start]} {value} {text[end:]}"
    return text


def _figure(number: float) -> str:
    return str(int(number)) if number.is_integer() else str(number)


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
    spelled = _THEN.sub(r"(\1) \2", spelled)  # "3299 - 400，再 * 2": (3299 - 400) * 2
    pieces = [" ".join(p.split()) for p in _EXPRESSION.findall(spelled) if p.strip()]
    if len(pieces) == 2 and re.fullmatch(_NUM, pieces[0]) and pieces[1][0] in "*/":
        return f"{pieces[0]} {pieces[1]}"  # a price, then a discount said apart from it: its factor
    for candidate in sorted(_EXPRESSION.findall(spelled), key=len, reverse=True):
        expression = " ".join(candidate.split())
        if _is_arithmetic(expression) and not _LONE_PERCENT.fullmatch(expression):
            return expression
    return None


# an operation done to what came before: "减400，再乘以2", "then divide by 3"
_THEN = re.compile(
    r"(\d[\d\s.+\-*/()]*\d|\d)\s*[，,]?\s*(?:再|然后|接着|\bthen\b|\band then\b)\s*([-+*/])", re.IGNORECASE
)
_LONE_PERCENT = re.compile(r"\(\s*[0-9.]+\s*/\s*100\s*\)")  # "at 6% for 8 years": a rate, no sum to do


def _is_arithmetic(expression: str) -> bool:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(node, ast.BinOp) for node in ast.walk(tree))
