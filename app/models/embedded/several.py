"""Several requests in one message ("奥斯陆几点了？顺便算一下 (12+30)*7"): each part, split where the person
joins one request to another (顺便, 另外, also, and then), is planned alone; the parts that call another tool
than the whole message's plan are planned beside it, so that the answer covers the whole request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar


class _Planned(Protocol):  # a plan of routing.py, as far as this reads it
    @property
    def kind(self) -> str: ...

    @property
    def tool(self) -> str: ...


Plan = TypeVar("Plan", bound=_Planned)

JOINS = re.compile(
    r"顺便|另外|同时|然后再|然后|再帮我|(?<=\S)\s*再(?=看|查|算|问|开|登记|帮)|"
    r"\b(?:also|and then|as well as|plus)\b|[;；]",
    re.IGNORECASE,
)  # "先查 X 保修 再看下 Y": 再 before a verb
_EDGES = " \t，,。.?？!！、"


def parts(typed: str) -> list[str]:
    """The message cut where the person joins one request to another, each part trimmed."""
    return [part.strip(_EDGES) for part in JOINS.split(typed) if part.strip(_EDGES)]


def beside(plan: Plan, typed: str, plan_one: Callable[[str], Plan]) -> tuple[Plan, ...]:
    """The plans of the message's other parts that call a tool the whole message's plan does not."""
    pieces = parts(typed)
    if plan.kind != "tool" or len(pieces) < 2:
        return ()
    found: list[Plan] = []
    for piece in pieces:
        other = plan_one(piece)
        if other.kind == "tool" and other.tool not in {plan.tool, *(p.tool for p in found)}:
            found.append(other)
    return tuple(found)
