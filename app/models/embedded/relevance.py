"""Relevance: whether a request is about a registered tool at all — a request in a tool's own verb, one
that names what no tool does (the weather with no weather tool, a search), and one that shares a word
and a value with a tool read from its schema alone yet is about something else.
"""

from __future__ import annotations

import re

from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded import meaning, reading
from app.models.embedded.facts import FACTS
from app.models.embedded.overlap import strays, texts

STRAYS = 3  # words of a request that are neither a tool's nor a value, beyond which it may be elsewhere
ELSEWHERE_FAR = -0.05  # a request this much nearer other kinds of request than a tool is not about it


def commanded(text: str, registry: ToolRegistry) -> bool:
    """Does the message start with the verb a tool's name starts with ("calculate my bmi", of the tool
    calculate_bmi; "calculate …" of the calculator): a request in the tools' own words."""
    first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", text)
    verbs = {re.split(r"_|(?<=[a-z])(?=[A-Z])", t.name)[0].casefold() for t in registry.tools()}
    word = first[1].casefold() if first else ""
    return word in verbs or len(word) >= 5 and any(verb[:5] == word[:5] for verb in verbs)  # calculator


def elsewhere(tool: FunctionTool, text: str, values: dict[str, list[str]]) -> bool:
    """Is a request that shares a word and a value with a tool read from its schema alone (no row of
    facts) about something else: the learned reader finds it far nearer requests of other kinds than
    the tool, or not nearer the tool by a margin while many of its words are neither the tool's nor a
    value ("convert 100 dollars to euros", of a converter of temperatures). Tuned on the development
    prompts; a tool with facts is the rules' own."""
    if tool.name in FACTS or not meaning.available():
        return False
    near = meaning.nearness(text, [tool])
    beyond = near[tool.name] - near[""]
    return beyond < ELSEWHERE_FAR or beyond < meaning.BEYOND and strays(tool, text, values) >= STRAYS


def unserved(text: str, fitting: list[FunctionTool]) -> bool:
    """Does the request name what the demo's own tools do not do (`cues.yaml`'s `cannot`: the weather, a
    search) that no fitting tool does: none names it in its own texts, nor does the word, read by the
    learned reader, name one ("weather" names the tool described as 查询…天气)?"""
    return any(
        not any(word.casefold() in texts(t).casefold() for t in fitting)
        and not meaning.choose(word, fitting).names_it
        for word in dict.fromkeys(reading.cannot_said(text))
    )
