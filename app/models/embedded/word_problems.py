"""Word problems, read by the host for the embedded demo model: the sum a story of numbers asks for, as an
expression of digits and signs — a change or a share in percent ("from 80 to 100, what percent increase";
"failed 9 of 300 runs, what is the failure rate in percent"), an even split ("90 元 3 个人分", "divided
among 4"), what a budget or a whole leaves ("budget 2000, 3 chairs at 450 each, how much is left"; "50 台，
送修 8 台，其余多少台"), and prices times quantities ("4 箱 每箱 30，2 袋 每袋 15"). Numbers come in figures
(`arithmetic.in_figures` reads the written ones first).
"""

from __future__ import annotations

import re

_EN = re.IGNORECASE
NUM = r"\d+(?:\.\d+)?"  # a number in figures


def solved(text: str) -> str | None:
    """The expression a story of numbers asks for, or None: a change or share in percent, an even split,
    what a budget or a whole leaves, prices per unit times their counts."""
    return rate(text) or split(text) or remaining(text) or per_unit(text)


# a change asked for in percent ("what percent increase"): from the first number to the second
_ASKS_RATE = re.compile(
    r"百分之(?:多少|几)|多少\s*%|几个百分点|百分比|what\s+percent|how\s+many\s+percent|by\s+what\s+percentage|"
    r"\bin percent\b|\bas a percent(?:age)?\b|"
    r"percent(?:age)?\s+(?:increase|decrease|change|rise|drop|growth)",
    _EN,
)
_FALLS = re.compile(r"降|跌|少了|减少|下滑|decrease|drop|fall|fell|decline|down", _EN)
_SPLIT = re.compile(
    r"平分|均分|平摊|分摊|人分|分给|每人(?:多少|几|分|得|能|要)|\bsplit\b|\bshare[sd]?\s+(?:equally|evenly)|"
    r"divided?\s+(?:equally|evenly)|(?:divided|shared)\s+(?:equally\s+|evenly\s+)?(?:among|amongst|between)|"
    r"how much (?:does |do |will )?(?:each|every)\b|\beach (?:person |one )?(?:gets?|pays?|receives?)\b",
    _EN,
)
# a share of a whole asked in percent ("failure rate", "占百分之几"), not a change from one to the other
_SHARE = re.compile(r"率|占|比例|\bout of\b|\brate\b|\bshare\b|\bof (?:them|the total|all)\b", _EN)
_CHANGES = re.compile(
    r"增长|增加|下降|提高|减少|涨|跌|\bfrom\b|increase|decrease|rise|drop|growth|change", _EN
)


def split(text: str) -> str | None:
    """An amount shared evenly ("3 个人平分 90 元", "split 120 between 4"): the larger number over the
    smaller, when the words hold just those two."""
    numbers = re.findall(NUM, text)
    if not _SPLIT.search(text) or len(numbers) != 2:
        return None
    count, amount = sorted(numbers, key=float)
    return f"{amount} / {count}"


def rate(text: str) -> str | None:
    """The change from one number to another in percent, when that is asked ("from 80 to 100, what percent
    increase"): two numbers, the rise (or, where the words say it fell, the fall) over the first; or a share
    of a whole ("rate", 率), the smaller over the larger."""
    numbers = re.findall(NUM, text)
    if not _ASKS_RATE.search(text) or len(numbers) != 2:
        return None
    if _SHARE.search(text) and not _CHANGES.search(
        text
    ):  # "9 of 300 failed: what rate?": the part over the whole
        part, whole = sorted(numbers, key=float)
        return f"{part} / {whole} * 100"
    first, then = numbers
    change = f"({first} - {then})" if _FALLS.search(text) else f"({then} - {first})"
    return f"{change} / {first} * 100"


_UNIT = r"(?:台|部|个|件|只|支|箱|份|张|套|pcs|units?|phones?|items?|cases?|pieces?|boxes)"
_QUANTITY = re.compile(
    rf"(?:(?:买|进了|卖了|订了|buy|bought|order(?:ed)?|get)\s*({NUM})|({NUM})\s*{_UNIT})", _EN
)
_PRICE = re.compile(
    rf"(?:[$¥￥]|每{_UNIT}|一{_UNIT}[^\d]{{0,6}}|单价|\bat\b|@)\s*({NUM})|({NUM})\s*(?:元|块|dollars?|bucks|yuan|each|apiece)",
    _EN,
)
_ADDED = re.compile(rf"(?:plus|and|加|再加|另加|运费|shipping)\D{{0,12}}?({NUM})(?!\s*{_UNIT})", _EN)


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
    if not terms or waiting or len(said) + len(extra) != len(re.findall(NUM, text)):
        return None
    return " + ".join([*terms, *extra])


_BUDGET = re.compile(rf"(?:预算|手上有|手里有|\bbudget(?: of| is)?|\b(?:we|i) have)\D{{0,6}}?({NUM})", _EN)
_EACH_WORD = re.compile(r"每|\beach\b|\bapiece\b|\bper\b", _EN)
_LEFT = re.compile(r"还剩|剩下|剩余|剩多少|其余|\bleft\b|\bremain|\bthe rest\b|\bleftover", _EN)


def remaining(text: str) -> str | None:
    """What is left, when that is asked: of a budget, the budget less what is bought ("budget 2000, 3
    chairs at 450 each, how much is left"); else of a whole, the larger of two numbers less the smaller
    ("50 台，送修 8 台，其余多少台")."""
    if not _LEFT.search(text):
        return None
    if budget := _BUDGET.search(text):
        rest = text[: budget.start(1)] + " " + text[budget.end(1) :]
        numbers = re.findall(NUM, rest)
        each = len(numbers) == 2 and _EACH_WORD.search(rest)  # "3 chairs at 450 each"
        spent = priced(rest) or per_unit(rest) or (" * ".join(numbers) if each else None)
        spent = spent or (numbers[0] if len(numbers) == 1 else None)
        return f"{budget[1]} - ({spent})" if spent else None
    numbers = re.findall(NUM, text)
    if len(numbers) != 2:
        return None
    part, whole = sorted(numbers, key=float)
    return f"{whole} - {part}"


_EACH = re.compile(rf"每\s*([\u3400-\u9fff])\s*({NUM})")  # "每箱 30": a price by its measure word


def per_unit(text: str) -> str | None:
    """Prices by their measure word times the counts of it said before them ("4 箱 每箱 30，2 袋 每袋 15":
    4 * 30 + 2 * 15), when every number of the words is one of them."""
    terms = []
    for m in _EACH.finditer(text):
        counts = list(re.finditer(rf"({NUM})\s*{re.escape(m[1])}", text[: m.start()]))
        if not counts:
            return None
        terms.append(f"{counts[-1][1]} * {m[2]}")
    if not terms or len(re.findall(NUM, text)) != 2 * len(terms):
        return None
    return " + ".join(terms)
