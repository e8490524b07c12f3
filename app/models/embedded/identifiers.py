"""Identifiers: what a person types as an identifier or a quoted text, for a tool read from its schema alone —
runs of letters and figures as written ("IT-LT-00421", "861234050112347", "20:00"), runs typed apart that
make one ("8697 3104 5902 216", "IT LT 00877"); what the person put in quotes is `values.quoted`."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from agent import dates
from agent.tool_selection import tokens
from agent.tools import FunctionTool
from app.models.embedded import english, spelling
from app.models.embedded.facts import alone
from app.models.embedded.values import QUOTED, beside_a_code


def runs(text: str) -> list[str]:
    """Runs of letters and figures as written ("IT-LT-00421", "861234050112347", "lcm2581-01", "20:00")."""
    return re.findall(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+|(?<=[0-9]):[0-9]{2})*", text)  # not "IMEI:8644…"


def joined(text: str) -> list[str]:
    """Runs written apart, joined as one identifier ("8697 3104 5902 216", "IT LT 00877", "cmp 2612 02"):
    two to four runs in a row, one space or dash between them, with no dash and with dashes."""
    parts = re.findall(r"[A-Za-z0-9]+|[^A-Za-z0-9]+", unlike(text))
    found = []
    for i in (i for i, part in enumerate(parts) if part[0].isalnum() and _piece(part)):
        group = [parts[i]]
        for j in range(i + 1, min(len(parts), i + 8)):
            if j % 2 != i % 2 and parts[j] not in (" ", "-") or j % 2 == i % 2 and not _piece(parts[j]):
                break
            group.append(parts[j])
            if len(group) >= 3 and j % 2 == i % 2:
                words = group[::2]
                found += ["".join(words), "-".join(words)]
    return [f for f in found if identifier(f)]


def _piece(part: str) -> bool:
    """Could the run be a piece of an identifier typed apart: figures, or a short code of letters ("IT",
    "cmp"), not a word ("post")?"""
    return bool(re.search("[0-9]", part)) or len(part) <= 3


def unlike(text: str) -> str:
    """`text` without what holds figures but is no identifier: dates, and what the person put in quotes."""
    for start, end in dates.moments(text)[::-1]:
        text = text[:start] + " " * (end - start) + text[end:]
    return QUOTED.sub(" ", text)


def identifier(run: str) -> bool:
    """Could the run be an identifier: letters with figures ("sz-db-02"), or six figures or more (an
    IMEI), not a number of a sum ("50")?"""
    return bool(re.search("[0-9]", run)) and (bool(re.search("[A-Za-z]", run)) or len(run) >= 6)


def patterned(spec: dict[str, Any], tool: FunctionTool, text: str, found: dict) -> list[str]:
    """The values a pattern fits: codes, sums and words as written; for a tool read from its schema
    alone, runs as typed, in capitals, or joined ("blp881", "IT LT 00877"); identifiers first."""
    words = [w for w in found["words"] if whole(w, spec["pattern"]) and not own_word(w, tool)]
    words = [w for w in words if w.casefold() not in _enum_words(tool) and not english.common(w)]
    words = sorted(words, key=english.frequency)
    if alone(tool.name) and (named := [n for n in proper_names(text) if whole(n, spec["pattern"])]):
        words = named  # "distance from Chicago to Denver": the names, not "distance"
    fitting = [v for v in [*found["codes"], *found["arithmetic"], *words] if fits(v, spec)]
    for written in ([], found["runs"], joined(text)) if alone(tool.name) else ():
        said = [form for w in written for form in (w, w.upper())]
        fitting = fitting or [w for w in said if fits(w, spec) and whole(w, spec["pattern"])]
    if any(re.search("[0-9]", v) for v in fitting):  # an identifier, not the words around it
        fitting = [v for v in fitting if re.search("[0-9]", v)]
    return list(dict.fromkeys(beside_a_code(fitting)))


_CAPITALIZED = re.compile(r"(?<![A-Za-z])[A-Z][a-z'\-]+(?:[ -][A-Z][a-z'\-]+)*(?![A-Za-z])")


def proper_names(text: str) -> list[str]:
    """Names as English writes them, each word capitalized ("Denver", "New York"), not a common word
    that merely opens a sentence ("What"), nor a verb of request that opens one ("Find")."""
    found = []
    for m in _CAPITALIZED.finditer(text):
        words = m[0].split(" ")
        opens = _opens(text, m.start())
        if opens and words[0].casefold() in spelling.cues()["requests"]:
            words = words[1:]  # "Find Denver" is Denver
        if words and not (len(words) == 1 and english.common(words[0]) and opens):  # "What", not "New York"
            found.append(" ".join(words))
    return list(dict.fromkeys(found))


def _opens(text: str, at: int) -> bool:
    """Does a sentence begin at `at`: nothing but spaces before it, or the end of a sentence?"""
    i = at - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    return i < 0 or text[i] in ".!?。！？"


def _enum_words(tool: FunctionTool) -> frozenset[str]:
    """The words that name a value of one of the tool's enums: the values, and the words its texts give
    for them (aliases.py)."""
    properties = tool.parameters.get("properties", {})
    enums = [name for name, spec in properties.items() if spec.get("enum")]
    named = [form for name in enums for word in tool.aliases(name) for form in (word, word.replace("-", ""))]
    listed = [
        w for name in enums for v in properties[name]["enum"] for w in [str(v), *re.split(r"[_ -]", str(v))]
    ]
    return frozenset(w.casefold() for w in [*named, *listed])


def own_word(word: str, tool: FunctionTool) -> bool:
    """Is `word` one of the tool's own words, typed as a word ("server", of "Get server status"), not as
    a code in capitals ("MSFT", an example of a ticker)?"""
    return not word.isupper() and word.casefold() in _own_words(tool.name, tool.description)


@cache
def _own_words(name: str, description: str) -> frozenset[str]:
    """The words of a tool's name and description (not a parameter's example: "例如 zhangwei")."""
    return frozenset(tokens(f"{name.replace('_', ' ')} {description}"))


def whole(word: str, pattern: str) -> bool:
    try:
        return re.fullmatch(pattern, word) is not None
    except re.error:  # a pattern Python does not read: no word is taken by it
        return False


def fits(value: str, spec: dict[str, Any]) -> bool:
    pattern, most = spec.get("pattern"), spec.get("maxLength")
    return (most is None or len(value) <= most) and (pattern is None or re.search(pattern, value) is not None)
