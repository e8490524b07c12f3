"""Amounts: which number of a request goes to which numeric parameter of a tool, told by the words
that stand next to it.

A number takes the parameter whose own words (its name, split at `_` and camelCase, and its
description) stand nearest it: "weigh 70 kg" is the weight in kilograms, "30 years" the years, "年利率
3.9" the yearly rate. The numbers no word places go to the required parameters no number took, in the
order the schema lists them, only when there are exactly as many of each ("a 200000 loan at 4.5
percent over 30 years": the principal is what is left). Anything else stays unplaced, and the host
asks. A number goes to one parameter only (one radius is not a length and a width too), and a
parameter of integers takes only a whole number.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from agent import dates
from agent.numbers import MEASURES, numbers_at
from agent.tool_selection import tokens
from app.models.embedded import spans, spelling

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_CLAUSE = re.compile(r"[,;，；。!?！？]")
_WORD = re.compile(r"[A-Za-z]+|[\u3400-\u9fff]+|[¥$€£]")
WINDOW = 24  # characters either side of a number where its parameter's words may stand
STEM = 5  # two English words sharing their first five letters are one word ("weighing", "weight")


def placed(text: str, properties: dict[str, Any], required: list[str]) -> dict[str, list[str]]:
    """numeric parameter -> the numbers of `text` that are its value, as decimal strings: one, or for
    the one numeric parameter of a tool, the numbers listed together ("the factorials of 5 and 7": a
    call each)."""
    numeric = [n for n, spec in properties.items() if spec.get("type") in ("number", "integer")]
    text = unicodedata.normalize("NFKC", text)
    moments = dates.moments(text)  # "12 March 2026", "9am": a date or a time of day, no amount
    found = [f for f in numbers_at(text) if not any(start <= f[0] < end for start, end in moments)]
    found = sorted([*found, *_ones(text, properties, numeric)])
    if not numeric or not found:
        return {}
    values = [value for _, _, value in found]
    if spans.alternatives(text, values):
        return {}  # "30 or 40": which one is a question
    if len(numeric) == 1 and numeric[0] in required and spans.listed(text, values):
        return {numeric[0]: values} if all(_allowed(v, properties[numeric[0]]) for v in values) else {}
    return _one_each(text, found, numeric, properties, required)


def _ones(text: str, properties: dict[str, Any], numeric: list[str]) -> list[tuple[int, int, str]]:
    """ "one" before a word the tool names (a listed value or a numeric parameter's word: "one carton",
    "for one hour") is 1; any other "one" is a word ("the one on the left")."""
    named = {str(v).casefold() for spec in properties.values() for v in spec.get("enum") or ()}
    named |= {w for name in numeric for w, _ in _plain(_CAMEL.sub(" ", name).replace("_", " "))}
    return [
        (m.start(), m.start() + 3, "1")
        for m in re.finditer(r"\bone\s+([A-Za-z]+)", text, re.IGNORECASE)
        if any(_same(m[1].casefold(), w) for w in named)
    ]


def _one_each(
    text: str,
    found: list[tuple[int, int, str]],
    numeric: list[str],
    properties: dict[str, Any],
    required: list[str],
) -> dict[str, list[str]]:
    """Each numeric parameter's number, by the words next to it, then the schema's order; and the more
    numbers of one (`_more`): a call each."""
    labels = _labels(numeric, properties)
    scores = [
        (_nearness(_around(text, found, i), labels[name]), -i, name)
        for i in range(len(found))
        for name in numeric
    ]
    taken: dict[str, int] = {}  # parameter -> its (first) number's index
    for score, minus_i, name in sorted(scores, reverse=True):
        i = -minus_i
        if (
            score > 0
            and name not in taken
            and i not in taken.values()
            and _allowed(found[i][2], properties[name])
        ):
            taken[name] = i
    left = [i for i in range(len(found)) if i not in taken.values()]
    open_ = [name for name in numeric if name in required and name not in taken]
    if len(left) > len(open_):  # "in surgery 2 … order eight": a number that names a place is no amount
        unnamed = [i for i in left if not _names_a_place(text, found[i], labels)]
        left = unnamed if len(unnamed) == len(open_) else left
    more: dict[int, str] = {}
    if len(left) == len(open_) and all(
        _allowed(found[i][2], properties[n]) for i, n in zip(left, open_, strict=True)
    ):
        taken |= dict(zip(open_, left, strict=True))  # "a 200000 loan at 4.5 percent": what is left
    else:
        more = _more(text, found, taken, scores, properties)
        left = [i for i in left if i not in more]
        if (
            len(open_) == 1
            and _one_list(text, found, left)
            and all(_allowed(found[i][2], properties[open_[0]]) for i in left)
        ):
            taken[open_[0]] = left[0]  # "after 3, 6, 9 and 12 days": what is left, listed, is the one open
            more |= {i: open_[0] for i in left[1:]}
    return {
        name: [found[j][2] for j in sorted([i, *(j for j, of in more.items() if of == name)])]
        for name, i in taken.items()
    }


def _more(
    text: str,
    found: list[tuple[int, int, str]],
    taken: dict[str, int],
    scores: list[tuple[float, int, str]],
    properties: dict[str, Any],
) -> dict[int, str]:
    """The numbers no parameter took that are more values of one that took a number: named by its words
    alone ("a radius of 3 and a radius of 5"), or listed with one of its numbers ("at 30, 45 and 60
    degrees"): number's index -> the parameter."""
    of = {i: name for name, i in taken.items()}
    best: dict[int, tuple[float, str]] = {}
    for score, minus_i, name in scores:
        if score > best.get(-minus_i, (0.0, ""))[0]:
            best[-minus_i] = (score, name)
    more = {
        i: name
        for i, (_, name) in best.items()
        if i not in of and name in taken and _allowed(found[i][2], properties[name])
    }
    grown = True
    while grown:  # a number listed with one of a parameter's is that parameter's too
        grown = False
        for i in (i for i in range(len(found)) if i not in of and i not in more):
            at = {**of, **more}
            listed = next((at[j] for j in (i - 1, i + 1) if j in at and _joined(text, found, min(i, j))), "")
            if listed and _allowed(found[i][2], properties[listed]):
                more[i], grown = listed, True
    return more


def _names_a_place(text: str, number: tuple[int, int, str], labels: dict[str, dict[str, float]]) -> bool:
    """Does the number name a place or a thing rather than count: "in surgery 2", "at gate 4" (figures
    after a place's word that no parameter has), "#3", "No. 3", "3楼", "5号"?"""
    start, end, _ = number
    if re.match(r"[楼层号室栋区排座]", text[end : end + 1]):
        return True
    if not text[start : start + 1].isdigit():
        return False  # "order eight": a number in words counts
    before = text[max(0, start - 32) : start]
    if re.search(r"(?:#|\bno\.)\s*$", before, re.IGNORECASE):
        return True
    place = re.search(r"\b(?:in|at|on|from|near|by)\s+(?:the\s+)?([A-Za-z]{3,})\s*$", before, re.IGNORECASE)
    own = [word for label in labels.values() for word in label]
    return place is not None and not any(_same(place[1].casefold(), word) for word in own)


def _one_list(text: str, found: list[tuple[int, int, str]], indices: list[int]) -> bool:
    """Are the numbers at `indices` (more than one) one list, each after the one before ("3, 6 and 9")?"""
    return len(indices) > 1 and all(
        j == i + 1 and _joined(text, found, i) for i, j in zip(indices, indices[1:], strict=False)
    )


def _joined(text: str, found: list[tuple[int, int, str]], i: int) -> bool:
    """Are the i-th number and the next listed together ("30, 45 and 60")?"""
    return i + 1 < len(found) and spans.joins(text[found[i][1] : found[i + 1][0]])


def _labels(numeric: list[str], properties: dict[str, Any]) -> dict[str, dict[str, float]]:
    """parameter -> its words and their weight: its name's count twice, its description's once; a word
    every numeric parameter has ("rectangle", of its length and its width) tells none apart."""
    own = {
        name: {w: 1.0 for w, _ in _plain(str(properties[name].get("description", "")))}
        | {w: 1.0 for w in _units(f"{name} {properties[name].get('description', '')}")}
        | {w: 1.0 for w in MEASURES.findall(str(properties[name].get("description", "")))}  # "箱数": 箱
        | {w: 2.0 for w, _ in _plain(_CAMEL.sub(" ", name).replace("_", " "))}
        for name in numeric
    }
    shared = set.intersection(*(set(words) for words in own.values())) if len(own) > 1 else set()
    return {name: {w: v for w, v in words.items() if w not in shared} for name, words in own.items()}


def _units(said: str) -> set[str]:
    """The words of a currency or unit the parameter's own words name (`cues.yaml`'s units: 元 names 块,
    ¥ and rmb too), as `_plain` reads them."""
    lowered = said.casefold()
    named = [
        words
        for code, words in spelling.cues().get("units", {}).items()
        if any(w.casefold() in lowered for w in [code, *words] if len(w) > 1 or not w.isascii())
        or _letter_unit(code, said)  # "Temperature in K"
    ]
    return {w for words in named for word in words for w, _ in _plain(word)}


def _letter_unit(code: str, said: str) -> bool:
    """Does `said` name a unit of one capital letter, standing alone ("in K"; never the g of "e.g.")?"""
    return (
        len(code) == 1
        and code.isupper()
        and re.search(rf"(?<![A-Za-z.]){code}(?![A-Za-z.])", said) is not None
    )


def _around(text: str, found: list[tuple[int, int, str]], i: int) -> list[tuple[str, int]]:
    """The words before and after the i-th number, each with its distance from it in words (0: right
    next to it): within WINDOW characters and its clause, and nearer this number than its neighbours."""
    start, end, _ = found[i]
    low, high = (found[i - 1][1] if i else 0), (found[i + 1][0] if i + 1 < len(found) else len(text))
    before_from = max(low, start - WINDOW, *(m.end() for m in _CLAUSE.finditer(text, low, start)))
    clause = _CLAUSE.search(text, end, high)
    after_to = min(high, end + WINDOW, clause.start() if clause else high)
    before = [w for w, at in _plain(text, before_from, start) if not i or start - at[1] <= at[0] - low]
    last = i + 1 == len(found)
    after = [w for w, at in _plain(text, end, after_to) if last or at[0] - end <= high - at[1]]
    return [(w, d) for d, w in enumerate(reversed(before))] + [(w, d) for d, w in enumerate(after)]


def _plain(text: str, start: int = 0, end: int | None = None) -> list[tuple[str, tuple[int, int]]]:
    """Words of `text[start:end]` with where they stand: English words, lower case and no stop word,
    and Chinese characters' pairs."""
    found: list[tuple[str, tuple[int, int]]] = []
    for m in _WORD.finditer(text, start, len(text) if end is None else end):
        word = m[0]
        if word in "¥$€£":
            found.append((word, m.span()))
        elif word[0] >= "\u3400":
            pairs = [word[i : i + 2] for i in range(len(word) - 1)] or [word]
            found += [(pair, m.span()) for pair in pairs]
        else:
            found += [(w, m.span()) for w in tokens(word)]
    return found


def _nearness(around: list[tuple[str, int]], label: dict[str, float]) -> float:
    """How strongly the words around a number name a parameter: each of its words there counts by its
    weight, the nearer the more."""
    return sum(
        max((weight for own, weight in label.items() if _same(word, own)), default=0.0) / (1 + distance)
        for word, distance in around
    )


def _same(word: str, own: str) -> bool:
    if word == own or f"{word}s" == own or word == f"{own}s":
        return True
    if len(own) == 1 and own >= "\u3400" and own in word:
        return True  # a measure word in a pair: 人 of "15个人" names 人数
    return word.isascii() and own.isascii() and min(len(word), len(own)) >= STEM and word[:STEM] == own[:STEM]


def _allowed(value: str, spec: dict[str, Any]) -> bool:
    """Can the parameter take the number: a whole number for integers, within its bounds."""
    if spec.get("type") == "integer" and not re.fullmatch(r"[0-9]+", value):
        return False
    number = float(value)
    return spec.get("minimum", number) <= number <= spec.get("maximum", number)
