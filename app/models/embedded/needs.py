"""Needs: what a tool needs of a request to be called — its required values (those the host injects aside),
one of its `one_of` arguments (`facts.py`), named by the longest label the words hold — and whether the words
give it a value its own pattern claims (an identifier of its own: an IMEI)."""

from __future__ import annotations

from functools import partial
from typing import Any

from agent.grounding import said_or_named
from agent.tools import FunctionTool
from app.models.embedded import spans
from app.models.embedded.arguments import labels
from app.models.embedded.facts import alone, facts
from app.models.embedded.identifiers import identifier, runs, whole


def lacking(tool: FunctionTool, values: dict[str, list[str]], text: str) -> list[str]:
    """The arguments the tool needs that the words give no value."""
    needed = [
        *(p for p in required(tool) if not values.get(p)),
        *_one_of_missing(tool, values, text),
        *_unsure(tool, values, text),
    ]
    return list(dict.fromkeys(needed))


def _unsure(tool: FunctionTool, values: dict[str, list[str]], text: str) -> list[str]:
    """A write of a tool read from its schema alone, with several values of a required argument not
    listed together (two desks, one or the other), or two of any argument said as one or the other: which
    one is a question, not several writes, nor a write without it."""
    if tool.effect == "read" or not alone(tool.name):
        return []
    properties = tool.parameters.get("properties", {})
    listed = {p: spec.get("enum") for p, spec in properties.items()}
    several = [
        p
        for p in required(tool)
        if len(values.get(p, [])) > 1 and not listed.get(p) and not spans.listed(text, values[p])
    ]  # an enum's values are named by their words: "IG and FB"
    return several + [p for p, spec in properties.items() if p not in several and _either(spec, text)]


def _either(spec: dict, text: str) -> bool:
    """Does the request give two identifiers of the argument's pattern as one or the other (two asset tags
    joined by "or")? Which one is a question, for an optional argument too: no write without it."""
    pattern = spec.get("pattern")
    if not pattern:
        return False
    said = [run for run in runs(text) if identifier(run)]
    fitting = [run for run in said if whole(run, pattern) or whole(run.upper(), pattern)]
    return len(set(fitting)) > 1 and spans.alternatives(text, fitting)


def patterned_value(tool: FunctionTool, values: dict[str, list[str]]) -> bool:
    """Do the words give the tool a value its pattern claims (an identifier of its own: an IMEI)?"""
    properties = tool.parameters.get("properties", {})
    return any(found and properties.get(name, {}).get("pattern") for name, found in values.items())


def _one_of_missing(tool: FunctionTool, values: dict[str, list[str]], text: str) -> list[str]:
    """When none of the tool's `one_of` arguments (facts.py) has a value: the one the words name by its
    longest label (the English name's, when the words name it), else the first."""
    one_of = facts(tool.name).one_of
    if not one_of or any(values.get(p) for p in one_of):
        return []
    properties = tool.parameters.get("properties", {})
    named = [
        (len(label), p)
        for p in one_of
        for label in labels(tool, p, properties.get(p, {}))
        if label.casefold() in text.casefold()
    ]
    return [max(named)[1] if named else one_of[0]]


def required(tool: FunctionTool) -> list[str]:
    return [p for p in tool.parameters.get("required", []) if p not in tool.injected]


def unsaid(tool: FunctionTool, calls: tuple[dict[str, Any], ...], typed: str) -> list[str]:
    """The grounded arguments of a tool read from its schema alone whose planned value the person did not
    write, in the tool's own form ("20:00" of "晚上8点", when the time must be the person's words): the host
    would refuse the call, so the demo asks for them instead."""
    if not alone(tool.name):
        return []
    found = [
        name
        for call in calls
        for name, value in call.items()
        if name in tool.grounded
        and not said_or_named(str(value), (typed,), partial(tool.canonical, name), tool.aliases(name))
    ]
    return list(dict.fromkeys(found))
