"""Overlap: how much of a request a tool's own texts cover, for the demo's router: the words they share
(rarer words among the tools count more), what is left about something else (`strays`), and what a
request is about once its acts and filler are set aside.

A tool's texts are what the registry holds for it (its name, description and parameters' titles and
descriptions) and the worked examples of its facts, when it has some (`facts.py`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import cache, lru_cache
from typing import Any

from agent.tool_selection import tokens
from agent.tools import FunctionTool
from app.models.embedded import reading, spans
from app.models.embedded.facts import facts

LATIN, CJK_RUN = re.compile(r"[A-Za-z]+"), re.compile(r"[\u3400-\u9fff]+")


def strays(tool: FunctionTool, text: str, values: dict[str, list[str]]) -> float:
    """How much of `text` is about something other than `tool`: its Latin words (stop words aside) that
    are in neither the tool's texts nor a value, and half a word for each CJK character that no pair
    of characters (or, alone, no character) of the tool's texts or of a value covers. A terse request
    ("What time is it now?", "计算 (3 + 4) * 5") has little of it; a remark has more."""
    known = " ".join([texts(tool), *(v for found in values.values() for v in found)])
    vocabulary, lowered = set(words(known)), known.casefold()
    latin = [w for w in words(" ".join(LATIN.findall(text))) if w not in vocabulary and w not in lowered]
    loose = 0
    for run in CJK_RUN.findall(text):
        pairs = [i for i in range(len(run) - 1) if run[i : i + 2] in known]
        covered = {i for p in pairs for i in (p, p + 1)} | ({0} if len(run) == 1 and run in known else set())
        loose += len(run) - len(covered)
    return len(latin) + loose / 2


def without_acts(text: str) -> str:
    """What a request is about: its words without the acts (`reading.py`) and the filler (`spans.py`)."""
    for act in reading.ACTS:
        text = act.sub(" ", text)
    return spans.unfilled(text)


def shared_words(text: str, tool: FunctionTool, among: list[FunctionTool]) -> float:
    """The request's words found in the tool's texts, each weighted by how few of the tools have it."""
    asked = set(words(text))
    own = {t.name: set(words(texts(t))) for t in among}
    having = Counter(word for found in own.values() for word in found)
    return sum(math.log(1 + len(among) / having[w]) for w in asked & own[tool.name])


def fit(text: str, tool: FunctionTool, among: list[FunctionTool], values: dict[str, list[str]]) -> float:
    """How well `tool` fits the request: words shared with its texts (rarer words count more), and two
    for each of its arguments the words fill."""
    return shared_words(text, tool, among) + 2 * sum(1 for found in values.values() if found)


def words(text: str) -> list[str]:
    """Words for matching: Latin words without stop words, by their stems ("distances" is "distance"), and
    CJK pairs (single characters say little)."""
    return [_stem(w) for w in tokens(text) if not (len(w) == 1 and reading.CJK.match(w))]


@lru_cache(maxsize=8192)  # a served agent reads words without end
def _stem(word: str) -> str:
    """An English word's Snowball stem; any other word as it is."""
    return _english().stemWord(word) if word.isascii() and word.isalpha() else word


@cache
def _english() -> Any:
    import snowballstemmer  # the local extra's, as the reader's other libraries

    return snowballstemmer.stemmer("english")


def texts(tool: FunctionTool) -> str:
    properties = tool.parameters.get("properties", {})
    about = " ".join(f"{spec.get('title', '')} {spec.get('description', '')}" for spec in properties.values())
    examples = (request for request, _ in facts(tool.name).examples)
    return " ".join([tool.name.replace("_", " "), tool.description, about, *examples])
