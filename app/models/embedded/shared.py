"""Shared: arguments of one tool that take the same kind of value — one enum ("from" and "to" currencies)
or one pattern ("from_city", "to_city") — each take one of the values said, in order; more values than
arguments, when those past one argument's are listed together ("from London to Paris, to Berlin and to
Madrid"), give that argument each of them (a call each); else fewer or more values than arguments:
which is which is a question, and none is taken."""

from __future__ import annotations

import re
from typing import Any

from app.models.embedded.spans import listed


def shared(
    properties: dict[str, Any], values: dict[str, list[str]], text: str, at: dict[str, int] | None = None
) -> dict[str, list[str]]:
    """`values` with the arguments that share an enum or a pattern given one value each, in order; `at`:
    where the words name each listed value."""
    return _shared_patterns(properties, _shared_enums(properties, values, text, at or {}), text)


def _shared_enums(
    properties: dict[str, Any], values: dict[str, list[str]], text: str, at: dict[str, int]
) -> dict[str, list[str]]:
    """Arguments that share one enum ("from" and "to" currencies) take the values named in the order
    they are named, one each, unless the words before them say which is which ("how many yen for 75
    pounds": the pounds are converted from); fewer values named than arguments: which is which is a
    question, and none is taken."""
    groups: dict[tuple, list[str]] = {}
    for name, spec in properties.items():
        if spec.get("enum"):
            groups.setdefault(tuple(map(str, spec["enum"])), []).append(name)
    for group in (group for group in groups.values() if len(group) > 1):
        values.update(_one_each(group, _directed(group, values[group[0]], text, at), text))
    return values


_TARGET = re.compile(r"(?:\b(?:to|into|in)\s+(?:[A-Za-z]+\s+){0,2}|换成|转成|兑成)$", re.IGNORECASE)
_SOURCE = re.compile(r"\b(?:from|for|of)\s+(?:[\d,.]+\s*)?(?:[A-Za-z]+\s+){0,2}$", re.IGNORECASE)


def _directed(group: list[str], said: list[str], text: str, at: dict[str, int]) -> list[str]:
    """Two values for a "from" and a "to" argument, in the order of the arguments: by the words before
    each ("for 75 British pounds" is the source, "into Indian rupees" the target), else as said."""
    directed = len(group) == 2 and _is(group[0], "from", "source") and _is(group[1], "to", "target")
    if not directed or len(said) != 2:
        return said
    before = {v: text[max(0, at[v] - 32) : at[v]] for v in said if v in at}
    if len(before) != 2:
        return said
    targets = [v for v in said if _TARGET.search(before[v])]
    sources = [v for v in said if _SOURCE.search(before[v])]
    if len(targets) == 1:
        return [v for v in said if v not in targets] + targets
    if len(sources) == 1:
        return sources + [v for v in said if v not in sources]
    return said


def _is(name: str, *words: str) -> bool:
    return any(word in re.split(r"[_\W]+|(?<=[a-z])(?=[A-Z])", name.casefold()) for word in words)


def _shared_patterns(
    properties: dict[str, Any], values: dict[str, list[str]], text: str
) -> dict[str, list[str]]:
    """Arguments that share one pattern ("from_city" and "to_city") take the values said in the order
    they are said, one each, in the order the schema lists them ("between Madrid and Rome"); another
    count of values than arguments: which is which is a question, and none is taken."""
    groups: dict[str, list[str]] = {}
    for name, spec in properties.items():
        if spec.get("pattern") and not spec.get("enum"):
            groups.setdefault(str(spec["pattern"]), []).append(name)
    for group in (group for group in groups.values() if len(group) > 1):
        said = sorted(dict.fromkeys(v for name in group for v in values[name]), key=lambda v: _at(text, v))
        values.update(_one_each(group, said, text))
    return values


def _one_each(group: list[str], said: list[str], text: str) -> dict[str, list[str]]:
    """The group's arguments, in the schema's order, given the values said in order: one each; or, with
    more values, the first or the last argument all of a run listed together ("to Paris, to Berlin and
    to Madrid"); else none (which is which is a question)."""
    extra = len(said) - len(group)
    if extra == 0:
        return {name: [said[i]] for i, name in enumerate(group)}
    if extra > 0 and listed(text, said[-extra - 1 :]):  # the last takes the run
        return {name: [said[i]] for i, name in enumerate(group[:-1])} | {group[-1]: said[len(group) - 1 :]}
    if extra > 0 and listed(text, said[: extra + 1]):  # the first takes the run
        rest = said[extra + 1 :]
        return {group[0]: said[: extra + 1]} | {name: [rest[i]] for i, name in enumerate(group[1:])}
    return {name: [] for name in group}


def _at(text: str, value: str) -> int:
    at = text.casefold().find(value.casefold())
    return at if at >= 0 else len(text)
