"""Relevance: whether a request is about a registered tool at all — a request in a tool's own verb, and
one that names what no tool does (the weather with no weather tool, a search).
"""

from __future__ import annotations

import re

from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded import meaning, reading
from app.models.embedded.acts import asked
from app.models.embedded.overlap import texts


def own_verb(name: str) -> str:
    """The first word of a tool's name ("book", of book_meeting_room; "get", of getWeather)."""
    return re.split(r"_|(?<=[a-z])(?=[A-Z])", name)[0]


def commanded(text: str, registry: ToolRegistry) -> bool:
    """Does the message start with the verb a tool's name starts with ("calculate my bmi", of the tool
    calculate_bmi; "calculate …" of the calculator): a request in the tools' own words."""
    first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", text)
    verbs = {own_verb(t.name).casefold() for t in registry.tools()}
    word = first[1].casefold() if first else ""
    return word in verbs or len(word) >= 5 and any(verb[:5] == word[:5] for verb in verbs)  # calculator


def in_own_verb(text: str, tool: FunctionTool) -> bool:
    """Does the request hold the tool's own verb: the first word of its name ("book", of book_meeting_room),
    or the first two characters of its description's Chinese and the second of them alone (预订, 订), and
    neither denied nor told as done (`acts.py`)?"""
    verbs = [rf"\b{re.escape(own_verb(tool.name))}\w*"]
    if chinese := re.search(r"[\u3400-\u9fff]{2}", tool.description):
        verbs += [re.escape(chinese[0]), re.escape(chinese[0][1])]
    pattern = re.compile("|".join(verbs), re.IGNORECASE | re.ASCII)  # a verb inside Chinese words
    return bool(pattern.search(asked(text, pattern)))  # not denied, nor told as done ("不用添加")


def names_what_it_does(text: str, tool: FunctionTool) -> bool:
    """Does the request name what the tool does, by a word of `cues.yaml`'s `cannot` (the weather, a
    search) that the tool's own texts hold? ("how is the weather?" names the tool described as 查询…天气.)"""
    own = texts(tool).casefold()
    return any(word.casefold() in own for word in reading.cannot_said(text))


def unserved(text: str, fitting: list[FunctionTool]) -> bool:
    """Does the request name what the demo's own tools do not do (`cues.yaml`'s `cannot`: the weather, a
    search) that no fitting tool does: none names it in its own texts, nor does the word, read by the
    learned reader, name one ("weather" names the tool described as 查询…天气)?"""
    return any(
        not any(word.casefold() in texts(t).casefold() for t in fitting)
        and not meaning.choose(word, fitting).names_it
        for word in dict.fromkeys(reading.cannot_said(text))
    )
