"""Aliases: the words a tool's own texts give for each value of an enum, as developers write them beside it
("main=总仓", "屏碎/换屏=screen", "drop 跌落", "lbs、磅 → lb", "urgent 加急/急单"), and a value's own words
("root canal" of root_canal), so that a person who names one ("高新店有货没", "洗牙") has said the listed
value: the host's grounding accepts it (`agent/grounding.py`) and the demo model reads it. Read from what the
registry holds: the parameter's description and the tool's.

A text is cut into clauses at commas, semicolons, stops and brackets; a clause that names exactly one of the
enum's values, as a word of its own, maps the rest of its words onto it ("刀/美金/美元 = USD"); a clause
that names two or more of them lists them ("重量 kg/g/lb/oz") and maps nothing.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_ENDS = "，,；;。\n"
_OPEN, _CLOSE = "（(【[", "）)】]"
_SPLIT = re.compile(r"\s*(?:[/|、]|=|→|->|:|：|\bor\b|或)\s*|\s+")
_LABEL = re.compile(r"^[^:：]*[:：](?=[^:：]*$)")
_CJK = re.compile(r"[\u3400-\u9fff]+")
_NOISE = {"", "=", "e.g", "eg", "例如", "比如", "默认", "可选", "即", "是", "指", "the", "a", "an", "is"}


def aliases(parameters: dict[str, Any], description: str, name: str) -> dict[str, str]:
    """word (case folded) -> the enum value of argument `name` it stands for, by the tool's own texts (its
    `description` and its `parameters` schema)."""
    properties = parameters.get("properties")
    spec = properties.get(name) if isinstance(properties, dict) else None
    listed = tuple(str(v) for v in (spec or {}).get("enum") or () if isinstance(v, str))
    if not isinstance(spec, dict) or not listed:
        return {}
    own = _mapped(str(spec.get("description", "")), listed)
    mine = {word for word, _ in own}
    given: dict[str, set[str]] = {}  # word -> the values the texts give it (the parameter's own first)
    for word, value in [*own, *((w, v) for w, v in _mapped(description, listed) if w not in mine)]:
        given.setdefault(word, set()).add(value)
    found = {word: min(values) for word, values in given.items() if len(values) == 1}
    spelled = {v.replace("_", " ").replace("-", " ").casefold(): v for v in listed if re.search("[_-]", v)}
    spelled |= {_plural(v.casefold()): v for v in listed if re.fullmatch("[A-Za-z]+", v)}  # "boxes" of box
    return {w: v for w, v in spelled.items() if w not in given} | _shortened(given) | found


def _plural(word: str) -> str:
    return word + "es" if re.search("(?:s|x|z|ch|sh)$", word) else word + "s"


def _shortened(given: dict[str, set[str]]) -> dict[str, str]:
    """A Chinese alias also by two or more of its characters in a row ("春熙路店": 春熙路, 春熙;
    "东莞虎门B仓": 虎门), where no word the texts give another value holds them."""
    pieces: dict[str, set[str]] = {}
    for word, values in given.items():
        for run in _CJK.findall(word):
            for piece in _pieces(run, whole=run == word):
                pieces.setdefault(piece, set()).update(values)
    return {
        piece: next(iter(values))
        for piece, values in pieces.items()
        if len(values) == 1 and piece not in given
    }


def _pieces(run: str, whole: bool) -> set[str]:
    """The run's characters two or more in a row (not the whole alias itself)."""
    return {
        run[i:j]
        for i in range(len(run))
        for j in range(i + 2, len(run) + 1)
        if not (whole and j - i == len(run))
    }


@cache
def _mapped(text: str, listed: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """(word, value) for each word a clause of `text` gives a listed value ("5楼小会议室" of two rooms:
    twice)."""
    named = {v.casefold(): v for v in listed}
    pairs: dict[tuple[str, str], None] = {}  # a word given to two values is twice here, and names neither
    for clause in _clauses(text):
        pairs |= dict.fromkeys(_mapped_clause(clause, named).items())
    return tuple(pairs)


def _mapped_clause(clause: str, named: dict[str, str]) -> dict[str, str]:
    """(word -> value) of one clause; a clause that names several values is read item by item, when its
    items each name one ("unit (瓶 bottle, 盒 box)")."""
    whole = _words_of(clause)
    values = {named[w.casefold()] for w in whole if w.casefold() in named}
    if len(values) == 1:
        return _aliases_of(whole, values.pop(), named)
    found: dict[str, str] = {}
    for item in re.split(r"[,，;；/|]", clause) if len(values) > 1 else ():
        words = _words_of(item)
        one = {named[w.casefold()] for w in words if w.casefold() in named}
        if len(one) == 1:  # the words next to the value: "unit (瓶 bottle" gives 瓶, not "unit"
            value = one.pop()
            at = next(i for i, w in enumerate(words) if w.casefold() == value.casefold())
            found |= {
                w: v
                for w, v in _aliases_of(words[max(at - 1, 0) : at + 2], value, named).items()
                if w not in found
            }
    return found


def _words_of(clause: str) -> list[str]:
    clause = _LABEL.sub("", clause)  # "测试类型：drop 跌落": the label is no alias
    return [w.strip(" '\"“”‘’`*,，;；") for w in _SPLIT.split(clause.strip())]


def _aliases_of(words: list[str], value: str, named: dict[str, str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for word in words:
        for alias in _forms(word):
            if alias.casefold() not in named and alias.casefold() not in _NOISE:
                found.setdefault(alias.casefold(), value)
    return found


def _clauses(text: str) -> list[str]:
    """`text` cut at commas, semicolons and stops outside brackets; a bracket's words stay with the value
    before it ("hardware 硬件（电脑、屏幕、键盘）"), as words of their own."""
    clauses: list[str] = []
    current: list[str] = []
    depth = 0
    for i, char in enumerate(text):
        depth += (char in _OPEN) - (char in _CLOSE and depth > 0)
        stop = char == "." and text[i + 1 : i + 2] in ("", " ")  # "= xiaohongshu. This only…"
        if (char in _ENDS or stop) and depth == 0:
            clauses.append("".join(current))
            current = []
        else:
            current.append(" " if char in _OPEN + _CLOSE else char)
    return [*clauses, "".join(current)]


def _forms(word: str) -> list[str]:
    """A word as an alias: itself, or its Chinese when it mixes Chinese with figures ("常温25℃": 常温)."""
    if not word or word.isdigit():
        return []
    chinese = _CJK.findall(word)
    if chinese and chinese != [word]:
        return [c for c in chinese if len(c) > 1]
    return [word]
