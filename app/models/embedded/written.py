"""Written: a request for a write tool the developer added, in that tool's own words ("开个单", "open a P1
ticket", "schedule one FB post"), where the reader's words of writing (`reading.py`) are those of adding
and changing what is stored, and would read it as a question.

Only a tool with no row of worked facts (`facts.py`) is read this way: it is known by its schema alone.
Such a request asks for the write when the tool fits it best of all the tools the demo runs (the words it
shares with the tool's texts, and the values it gives the tool's arguments), and the person asks for
something (a request, an imperative, a statement), not how things are, and does not deny the act.
"""

from __future__ import annotations

import re

from agent.tools import FunctionTool
from app.models.embedded import reading
from app.models.embedded.acts import asked
from app.models.embedded.arguments import values_for
from app.models.embedded.facts import NONE, facts
from app.models.embedded.overlap import shared_words

_DENIED = re.compile(r"先(?:别|不要|莫)|不用|别|暂时不|\b(?:don'?t|do not|never ?mind|no need)\b", re.I)


def requested(text: str, tools: list[FunctionTool]) -> FunctionTool | None:
    """The added write tool the words ask to run, if they ask for one (see the module's docstring)."""
    scored = sorted(((_fit(t, text, tools), i, t) for i, t in enumerate(tools)), key=lambda s: (-s[0], s[1]))
    if not scored or scored[0][0] <= 0:
        return None
    best = scored[0][2]
    if best.effect != "write" or facts(best.name) != NONE:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None  # as near another tool: which one is a question
    return best if _asks_for_it(text, best) else None


def _fit(tool: FunctionTool, text: str, tools: list[FunctionTool]) -> float:
    """The words the request shares with the tool's texts, and two for each argument its words fill."""
    values = values_for(tool, text, tuple(tools), ranking=True)
    return shared_words(text, tool, tools) + 2 * sum(1 for found in values.values() if found)


def _asks_for_it(text: str, tool: FunctionTool) -> bool:
    """A request or a statement, not a question of how things are ("开单了没有？"), nor a denial."""
    if _DENIED.search(text):
        return False
    verb = re.split(r"_|(?<=[a-z])(?=[A-Z])", tool.name)[0]
    own = re.compile(rf"\b{re.escape(verb)}\w*", re.IGNORECASE)
    if own.search(text) and not own.search(asked(text, own)):
        return False  # "I opened a ticket yesterday": told as done
    question = reading.ASKS_HOW_THINGS_ARE.search(text) is not None
    return not question or reading.REQUEST.search(text) is not None or own.match(text.strip()) is not None
