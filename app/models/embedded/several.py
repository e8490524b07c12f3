"""Several requests in one message ("奥斯陆几点了？顺便算一下 (12+30)*7"): each part, split where the person
joins one request to another (顺便, 另外, also, and then, "and" before a question or a verb of asking), is
planned alone; the parts that call another tool than the whole message's plan are planned beside it, or,
when each part looks something up with a tool of its own, the parts' plans are the plan; the calls run in
the order asked, so that the answer covers the whole request.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol, TypeVar


class _Planned(Protocol):  # a plan of routing.py, as far as this reads it
    @property
    def kind(self) -> str: ...

    @property
    def tool(self) -> str: ...

    @property
    def calls(self) -> tuple[dict[str, Any], ...]: ...

    @property
    def effect(self) -> str: ...


Plan = TypeVar("Plan", bound=_Planned)

JOINS = re.compile(
    r"顺便|另外|同时|然后再|然后|再帮我|(?<=\S)\s*再(?=看|查|算|问|开|登记|帮)|"
    r"\b(?:also|and then|as well as|plus)\b|[;；]|"
    r"\band (?=(?:what|which|who|where|when|how|give|find|check|tell|look|show|get|calculate|convert)\b)",
    re.IGNORECASE,
)  # "先查 X 保修 再看下 Y": 再 before a verb
_EDGES = " \t，,。.?？!！、"


def parts(typed: str) -> list[str]:
    """The message cut where the person joins one request to another, each part trimmed."""
    return [part.strip(_EDGES) for part in JOINS.split(typed) if part.strip(_EDGES)]


def together(plan: Plan, typed: str, plan_one: Callable[[str], Plan]) -> tuple[Plan, ...]:
    """The message's plans, in the order asked, each part planned once: the parts' own plans when each
    looks something up with a tool of its own ("the population of Mexico in 2015, and what time zone is
    Mexico City in?": read whole, Mexico would be a city too); else the whole message's plan and beside it
    the parts that call another tool; a write of only what the whole message looks up is none ("it says
    X; is X recorded?": X is looked up, not also added)."""
    pieces = parts(typed)
    if len(pieces) < 2 or plan.kind not in ("tool", "missing"):
        return (plan,)
    plans = [plan_one(piece) for piece in pieces]
    looks_up = all(p.kind == "tool" and p.effect == "read" for p in plans)
    if looks_up and len({p.tool for p in plans}) == len(plans):
        return in_order(tuple(plans), typed)
    if plan.kind != "tool":
        return (plan,)
    found: list[Plan] = []
    for other in plans:
        looked_up = plan.effect == "read" and other.effect != "read" and _values(other) <= _values(plan)
        if other.kind == "tool" and other.tool not in {plan.tool, *(p.tool for p in found)} and not looked_up:
            found.append(other)
    return in_order((plan, *found), typed)


def _values(plan: _Planned) -> set[str]:
    return {str(v).casefold() for call in plan.calls for v in call.values()}


def in_order(plans: tuple[Plan, ...], typed: str) -> tuple[Plan, ...]:
    """The plans in the order the person asked for them: by where the first of each one's values stands
    in the message ("先查 862210047713095 保修 再看下 BLP881": the warranty first)."""
    return tuple(sorted(plans, key=lambda plan: _said_at(plan, typed)))


def _said_at(plan: _Planned, typed: str) -> int:
    spots = [typed.find(str(v)) for call in plan.calls for v in call.values() if str(v) and str(v) in typed]
    return min(spots, default=len(typed))
