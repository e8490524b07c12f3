"""English: is a Latin word a word of English, and how common — by pyspellchecker's frequency list (loaded
once, and only when a word needs it). A word of English is no typo of the reader's word ("whole" is not
"whose"), and among values a pattern fits, a name like "chenjie" comes before a word like "owner"."""

from __future__ import annotations

from functools import cache
from typing import Any


def frequency(word: str) -> float:
    """How often `word` is written in English (0.0: not a word of it, or the list is not installed)."""
    words = _words()
    return float(words.word_usage_frequency(word.casefold())) if words is not None else 0.0


COMMON = 1e-5  # a word written more often is a common word ("whole", "owner"; not "john", 4e-6)
_ENDINGS = ("s", "es", "ed", "d", "ing")


def common(word: str) -> bool:
    """Is `word` a common word of English, or a form of one ("floors", of "floor")?"""
    lowered = word.casefold()
    stems = [
        lowered,
        *(lowered[: -len(e)] for e in _ENDINGS if lowered.endswith(e) and len(lowered) > len(e) + 2),
    ]
    return any(frequency(stem) >= COMMON for stem in stems)


def known(word: str) -> bool:
    """Is `word` a word of English?"""
    return frequency(word) > 0.0


@cache
def _words() -> Any:
    try:
        from spellchecker import SpellChecker
    except ImportError:  # the [local] extra brings it; without it, every word is unknown
        return None
    return SpellChecker(language="en", distance=1)
