"""Spelling: a request as the demo's reader knows its words, however the person typed them.

People type "pls put it in the db", "the Englissh name", "天加" (for 添加). Before the host reads what a
request asks (`reading.py`), the words it looks for are written out: the short forms of chat and synonyms
(`cues.yaml`), a Latin word one letter off the reader's word (a letter dropped, added, changed, or two
swapped, by rapidfuzz's optimal string alignment distance) that is no word of English itself (`english.py`),
and Chinese characters that sound like the reader's word (by pypinyin, loaded only when no word of what is
to be done is found as written). Codes, numbers and the words the reader does not know stay as typed:
values are still taken from the person's own words, and a write still asks the person first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import yaml

from app.models.embedded import english
from app.models.embedded.corrections import corrected

CUES = Path(__file__).with_name("cues.yaml")
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9'-])[A-Za-z]+(?:'[A-Za-z]+)?(?![A-Za-z0-9-])")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")


@cache
@cache
def cues() -> dict:
    """The cue lexicons (cues.yaml), read once; nobody changes them."""
    return yaml.safe_load(CUES.read_text(encoding="utf-8"))


def normalized(text: str, patterns: tuple[re.Pattern[str], ...], acts: tuple[re.Pattern[str], ...]) -> str:
    """`text` without the values the person takes back (corrections.py), with the words of `patterns` (the
    reader's) written as the reader spells them. Characters are
    read by their sound only when no word of `acts` (what is to be done) is there as written."""
    text = _spelled_out(corrected(text))
    latin, chinese = _vocabulary(patterns)
    text = _LATIN_WORD.sub(lambda m: _nearest(m[0], latin), text)
    if _CJK_RUN.search(text) and not any(act.search(text) for act in acts):
        text = _by_sound(text, chinese)
    return text


def _spelled_out(text: str) -> str:
    for word, meant in [*cues()["synonyms"].items(), *cues()["cantonese"].items()]:
        text = text.replace(word, meant)
    spelled = cues()["spelled"]
    short = "|".join(re.escape(form) for form in sorted(spelled, key=len, reverse=True))
    return re.sub(
        rf"(?<![A-Za-z0-9'_.-])(?:{short})(?![A-Za-z0-9'_-])",  # not within "sz-db-02"
        lambda m: spelled.get(m[0].lower(), m[0]),
        text,
        flags=re.IGNORECASE,
    )


@cache
def _vocabulary(patterns: tuple[re.Pattern[str], ...]) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the Latin words of `patterns`, lower case; their Chinese words of two characters or more)."""
    sources = " ".join(p.pattern for p in patterns)
    latin = frozenset(w.lower() for w in [*re.findall(r"(?<![\\?])[A-Za-z]{3,}", sources), *cues()["nouns"]])
    chinese = tuple(dict.fromkeys(w for w in _CJK_RUN.findall(sources) if len(w) >= 2))
    return latin, chinese


def _nearest(word: str, vocabulary: frozenset[str]) -> str:
    """`word`, or the reader's word it is one letter off (the first in order, when several are)."""
    lowered = word.lower()
    if len(word) < cues()["typo_length"] or lowered in vocabulary:
        return word
    from rapidfuzz.distance import OSA

    near = sorted(v for v in vocabulary if abs(len(v) - len(lowered)) <= 1 and OSA.distance(v, lowered) == 1)
    return near[0] if near and not english.known(lowered) else word  # "whole" is no "whose"


def _by_sound(text: str, words: tuple[str, ...]) -> str:
    """`text` with each run of characters that sounds as one of `words` (tones aside) written as it."""
    try:
        lazy_pinyin = _pinyin()
    except ImportError:  # the [local] extra brings it; without it, homophones stay as typed
        return text
    sounds = _sounds(words)
    kept_words = "|".join(map(re.escape, cues()["as_written"]))
    out = []
    for run in re.split(rf"({kept_words})|([\u3400-\u9fff]+)", text):
        if not run or not _CJK_RUN.fullmatch(run) or re.fullmatch(kept_words, run):
            out.append(run or "")
            continue
        spoken, i, kept = lazy_pinyin(run), 0, []
        while i < len(run):
            ahead = (sounds.get(tuple(spoken[i : i + n])) for n in (3, 2) if i + n <= len(run))
            found = next((w for w in ahead if w), None)
            kept.append(found or run[i])
            i += len(found) if found else 1
        out.append("".join(kept))
    return "".join(out)


@cache
def _sounds(words: tuple[str, ...]) -> dict[tuple[str, ...], str]:
    """How each of `words` sounds (its syllables, tones aside) -> the word, worked out once."""
    lazy_pinyin = _pinyin()
    return {tuple(lazy_pinyin(word)): word for word in sorted(words, key=len)}


def _pinyin() -> Callable[[str], list[str]]:
    """pypinyin's `lazy_pinyin`, without its dictionary of phrases: a word's sound here is its characters'
    sounds one by one, on both sides of the comparison, and the phrases are most of its loading time."""
    os.environ.setdefault("PYPINYIN_NO_PHRASES", "1")  # read by pypinyin when it is first imported
    from pypinyin import lazy_pinyin

    return lazy_pinyin
