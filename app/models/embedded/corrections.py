"""Corrections: a value the person takes back in the same message ("5 packs, no wait, make it 3 packs",
"五箱 不对不对 六箱", "at 9am, eh no sorry, make it 9.45am") is no value: the reader reads the message
without it and without the words that take it back.

A word of taking back counts only between two values of one kind (two numbers, or two times or dates),
close on each side: "sorry to bother you, 3 boxes please" takes nothing back.
"""

from __future__ import annotations

import re

from agent import dates
from agent.numbers import MEASURES, numbers_at

TAKEN_BACK = re.compile(
    r"(?:\b(?:eh|uh|um|oh|oops)\b[\s,]*)?"
    r"(?:\bno[\s,]+wait\b|\bwait[\s,]+no\b|\bno[\s,]+sorry\b|\bsorry\b|\bi mean\b|\bno[\s,]+no\b"
    r"|\bscratch that\b)"
    r"(?:[\s,]*\b(?:make (?:it|that)|change (?:it|that) to|i mean)\b)?"
    r"|\bmake (?:it|that)\b"
    r"|不对不对|不对|哦不是|不是不是|啊不|呃不|说错了|我是说",
    re.IGNORECASE,
)
NEAR = 16  # characters between a value and the words that take it back, on either side


def corrected(text: str) -> str:
    """`text` without each value taken back and the words that take it back."""
    for marker in reversed(list(TAKEN_BACK.finditer(text))):
        before = _value_before(text, marker.start(), marker.end())
        if before is not None:
            text = text[: before[0]] + text[before[1] : marker.start()] + " " + text[marker.end() :]
    return text


def _value_before(text: str, at: int, end: int) -> tuple[int, int] | None:
    """The span of the last value before the words from `at` to `end`, when a value of the same kind
    follows them, each within NEAR characters."""
    for spans in (dates.moments(text), [(s, e) for s, e, _ in numbers_at(text)]):
        earlier = [(s, e) for s, e in spans if e <= at and at - e <= NEAR]
        later = [(s, e) for s, e in spans if s >= end and s - end <= NEAR]
        if earlier and later:
            taken_from, taken_to = earlier[-1]
            return taken_from, taken_to + bool(MEASURES.match(text, taken_to))  # "五箱": its measure word too
    return None
