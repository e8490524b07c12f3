"""Spans: a free-text value (a city, a name) as a run of the person's own words, for a grounded string
parameter that no pattern, list or code describes.

The request is cut into runs of the words that are not the tool's own (its name and description, as the
registry holds them), nor words any request holds (`cues.yaml`'s `filler`, English stop words);
punctuation ends a run: a request for the weather in a city leaves the city, when the tool's texts name
the weather. When they are in another language than the request, the word for the weather is left too:
then the learned reader (`meaning.py`) tells a value from the tool's word, as the run nearer the
parameter's description than the tool's own texts. No run, or none that reads as a value: nothing is
taken, and the host asks.
"""

from __future__ import annotations

import re
from functools import cache

from agent.tool_selection import tokens
from app.models.embedded import meaning, spelling

_UNIT = re.compile(r"[A-Za-z][A-Za-z'’.-]*[A-Za-z]|[A-Za-z]|[\u3400-\u9fff]|\S")
_CJK = re.compile(r"[\u3400-\u9fff]")
_AND = re.compile(r"(?<![A-Za-z])and(?![A-Za-z])|[,，、&和与及跟]", re.IGNORECASE)
_OR = re.compile(r"(?<![A-Za-z])or(?![A-Za-z])|或|还是|要么", re.IGNORECASE)
# the words say the person does not know which of the values is meant ("不知道哪个才是", "not sure which")
_UNSURE_WHICH = re.compile(
    r"不知道?(?:是|该)?哪|不确定(?:是)?哪|分不清|搞不清|\bnot sure which\b|"
    r"\b(?:don'?t|do not) know which\b|\bno idea which\b|\bone of (?:them|these|those|the two)\b",
    re.IGNORECASE,
)
TOOL_LIKE = -0.03  # a run nearer the tool's texts than its parameter's by more than this is the tool's word


def runs(text: str, known: str) -> list[str]:
    """The runs of `text` that are none of `known`'s words (nor filler), as written."""
    vocabulary, lowered = set(tokens(known)), known.casefold()
    covered = _covered(text, lowered)
    found: list[list[tuple[int, int]]] = [[]]
    for m in _UNIT.finditer(text):
        unit = m[0]
        if _CJK.match(unit):
            keep = m.start() not in covered
        elif unit[0].isalpha():
            word = unit.casefold()
            keep = word not in vocabulary and word not in _filler() and bool(tokens(word))  # no stop word
        else:
            keep = False
        if keep:
            found[-1].append(m.span())
        elif found[-1]:
            found.append([])
    spans = [piece for run in found if run for piece in _joined(text[run[0][0] : run[-1][1]].strip())]
    return [s for s in spans if not (_CJK.fullmatch(s))]  # one character alone is a particle, not a value


def _joined(run: str) -> list[str]:
    """A run of Chinese cut where 和, 与 or 及 joins two words ("北京和上海") of two characters or more."""
    parts = re.split(r"(?<=[\u3400-\u9fff]{2})[和与及](?=[\u3400-\u9fff]{2})", run)
    return parts if all(len(part) >= 2 for part in parts) else [run]


def _covered(text: str, known: str) -> set[int]:
    """Positions of CJK characters that a pair of `known`'s characters, or a filler word, covers."""
    covered: set[int] = set()
    for i in range(len(text) - 1):
        if _CJK.match(text[i]) and _CJK.match(text[i + 1]) and text[i : i + 2] in known:
            covered |= {i, i + 1}
    for word in _filler():
        if _CJK.match(word):
            for m in re.finditer(re.escape(word), text):
                covered |= set(range(m.start(), m.end()))
    return covered


def value(text: str, known: str, described: str) -> list[str]:
    """The run of `text` that reads as the value of a parameter described by `described` (the tool's
    texts being `known`): the nearest to that description relative to the tool's own texts, when the
    learned reader is there; else the first run."""
    found = runs(text, known)
    if len(found) <= 1 and not meaning.available():
        return found
    if not meaning.available():
        return found[:1]
    scored = [(meaning.relative(run, described, known), run) for run in found]
    values = [run for score, run in scored if score > TOOL_LIKE]
    if listed(text, values):
        return values  # "Paris and London": one value each, and a call each
    if alternatives(text, values):
        return []  # "Rome or Milan": which one is a question
    return [run for score, run in sorted(scored, reverse=True)[:1] if score > TOOL_LIKE]


def _listed(text: str, first: str, then: str) -> bool:
    """Are two values listed together ("Paris and London", "北京和上海"): only "and" or a comma between
    them, and words any request holds ("and in London")? Never "or": one or the other is a question."""
    return joins(_between(text, first, then))


def joins(between: str) -> bool:
    """Do the words between two values list them together: "and" or a comma, and words any request
    holds, never "or"?"""
    rest = _AND.sub(" ", unfilled(between))
    return bool(_AND.search(between)) and not tokens(rest) and not _OR.search(between)


def listed(text: str, values: list[str]) -> bool:
    """Are the values listed together, each after the one before ("5, 7 and 9")?"""
    return len(values) > 1 and all(_listed(text, a, b) for a, b in zip(values, values[1:], strict=False))


def alternatives(text: str, values: list[str]) -> bool:
    """Are two of the values said as one or the other ("PKB110 or PKC110", "罗马还是米兰"), or with words
    that say the person does not know which ("PKB110 和 PKC110，不知道哪个才对")?"""
    if len(values) > 1 and _UNSURE_WHICH.search(text):
        return True
    return any(_OR.search(_between(text, a, b)) for a, b in zip(values, values[1:], strict=False))


def _between(text: str, first: str, then: str) -> str:
    """The words between two values as written ("" when either is not: an enum named by a word for it)."""
    start = text.find(first)
    end = text.find(then, start + len(first)) if start >= 0 else -1
    return text[start + len(first) : end] if end >= 0 else ""


def unfilled(text: str) -> str:
    """`text` without the filler words any request holds (查一下, please)."""
    for word in sorted(_filler(), key=len, reverse=True):
        pattern = re.escape(word) if _CJK.match(word) else rf"(?<![A-Za-z]){re.escape(word)}(?![A-Za-z])"
        text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return text


@cache
def _filler() -> frozenset[str]:
    cues = spelling.cues()
    return frozenset(word.casefold() for word in [*cues["filler"], *cues["requests"]])  # never a city
