"""Free text: the value of a string argument with no list of values, pattern or format, for the demo's
reader — what the person put in quotes (the tool's one free text), what follows its label ("备注 叉车碰的"),
else, for a grounded one, a code, a market name, or a run of the person's words that is none of the
tool's own (`spans.py`: a city, of a request for the weather tool)."""

from __future__ import annotations

import re
from typing import Any

from agent.tools import FunctionTool
from app.models.embedded import spans
from app.models.embedded.facts import alone
from app.models.embedded.identifiers import fits
from app.models.embedded.values import CLAUSE_END, LABEL_LINKS, PARTICLES, quoted


def free_text(
    name: str, spec: dict[str, Any], tool: FunctionTool, text: str, found: dict, properties: dict[str, Any]
) -> list[str]:
    """A string's value with no list, pattern or format: quoted, after its label, a code, a name or a span."""
    if _only_free(spec, tool, properties) and (said := quoted(text)):
        return said  # "caption 'See you in 2027'": what the person put in quotes
    if _free(spec) and alone(tool.name) and (after := _after_label(text, name, spec)):
        return [after] if fits(after, spec) else []  # "备注 叉车碰的", "note: fragile"
    if name in tool.grounded and spec.get("type") == "string":  # a code, else a market name, else a span
        free = [c for c in found["codes"] if c not in found["claimed"]]
        if found["codes"] or found["names"]:
            return [v for v in free or found["names"] if fits(v, spec)]
        if name in tool.parameters.get("required", []) and found["spans"]():  # a remark names none
            return [
                v for v in spans.value(text, _own(tool), str(spec.get("description", name))) if fits(v, spec)
            ]
    return []


def _only_free(spec: dict[str, Any], tool: FunctionTool, properties: dict[str, Any]) -> bool:
    """Is this the one free text of a tool read from its schema alone?"""
    return _free(spec) and alone(tool.name) and sum(1 for p in properties.values() if _free(p)) == 1


def _after_label(text: str, name: str, spec: dict[str, Any]) -> str:
    """What follows a free text's label in the words, to the clause's end: the label is the argument's
    name ("note") or the last two characters of its description's opening Chinese ("给司机的备注": 备注)."""
    described = str(spec.get("description", ""))
    first = re.match(r"\s*([\u3400-\u9fff]+)", described)
    said = [name.replace("_", " "), *([first[1][-2:]] if first else [])]
    for label in (w for w in said if len(w) >= 2):
        pattern = rf"(?<![A-Za-z]){re.escape(label)}(?![A-Za-z])" if label.isascii() else re.escape(label)
        if m := re.search(pattern, text, re.IGNORECASE):
            link = LABEL_LINKS.match(text[m.end() :])
            after = text[m.end() + (link.end() if link else 0) :]
            value = PARTICLES.sub("", CLAUSE_END.split(after, 1)[0].strip())
            if value:
                return value
    return ""


def _free(spec: dict[str, Any]) -> bool:
    """A free text: a string with no list of values, pattern or format."""
    listed = spec.get("enum") or spec.get("pattern") or spec.get("format")
    return spec.get("type") == "string" and not listed


def _own(tool: FunctionTool) -> str:
    """The tool's own words: its name and description."""
    return f"{tool.name.replace('_', ' ')} {tool.description}"
