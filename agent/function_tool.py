"""The FunctionTool interface: what a tool the model may call says about itself, and how it runs.

Mirrors `FunctionTool` in `agent/tools.go` of the tutorial (Name, Description, Parameters, Call). A tool is
a class: the three attributes the model reads, `call`, and what the host needs to know to run it safely —
what it does to the world, who may call it, which values must come from the person. The registry
(agent/tools.py) reads all of it from here and asks nowhere else.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from typing import Any, ClassVar, Literal

from agent.aliases import aliases
from agent.dates import as_date, as_time, wants_clock, wants_date
from agent.numbers import as_number
from agent.types import ToolContext

Effect = Literal["read", "write", "destructive"]


class FunctionTool(ABC):
    """A tool the model may call. Subclasses set the three attributes and implement `call`."""

    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments object

    # what a run does to the world: "read" only looks; "write" adds; "destructive" removes or
    # overwrites and is confirmed by the person first. MCP annotations derive from it too.
    effect: ClassVar[Effect] = "write"
    idempotent: ClassVar[bool] = False  # the same arguments twice change nothing more than once
    # its calls carry the host's Idempotency-Key (ctx.idempotency_key), which its service deduplicates: a
    # call sent twice acts once
    deduplicated: ClassVar[bool] = False
    permission: ClassVar[str | None] = None  # the user must hold it (the tutorial's HasPermission)
    sequential: ClassVar[bool] = False  # never run alongside other calls of the same reply
    injected: ClassVar[dict[str, str]] = {}  # parameter -> ToolContext field the host fills in
    grounded: ClassVar[tuple[str, ...]] = ()  # parameters whose values must come from the person's words
    outward: ClassVar[bool] = False  # a call sends its arguments beyond this host (a message, a payment)
    from_results: ClassVar[tuple[str, ...]] = ()  # parameters whose values may come from tool results
    # grounded parameters that only say who receives what the call carries (a recipient, a channel): one may
    # be a value read in a tool's result when all the call carries is the person's words (agent/provenance.py)
    addressees: ClassVar[tuple[str, ...]] = ()
    trusted: ClassVar[bool] = True  # its definition is this project's (or a trusted server's), not data

    # what it does, in one line for the person, per language ("zh", "en"): front ends list it; without
    # one, the first sentence of the description is shown
    summary: ClassVar[dict[str, str]] = {}

    @property
    def needs_confirmation(self) -> bool:
        """Ask the person before every run."""
        return self.effect == "destructive"

    @property
    def repeatable(self) -> bool:
        """A call of it may run again, when nobody knows whether it ran, without acting twice."""
        return self.effect == "read" or self.idempotent or self.deduplicated

    @abstractmethod
    def call(self, ctx: ToolContext, input: str) -> str:
        """Run the tool. `input` is the validated JSON arguments; raise ToolError for failures."""

    def canonical(self, parameter: str, value: str) -> str:
        """The form in which two values of `parameter` are the same one (grounding compares the person's
        words in it); by default the value itself, and case and spacing never count; an identifier of a
        parameter with a `pattern`, typed in groups, is the same however they are joined ("IT LT 00877" is
        IT-LT-00877; "8697 3104 5902 216" an IMEI), never a sign, a word or a few small numbers ("-500",
        "now here", "200 5"); a date, a time of day or a number is the same however it is written ("12 March
        2026" is 2026-03-12, "晚上8点" 20:00, "eight" 8; `agent/dates.py`, `agent/numbers.py`)."""
        properties = self.parameters.get("properties") or {}
        spec = properties.get(parameter) if isinstance(properties, dict) else None
        if not isinstance(spec, dict):
            return value
        if wants_date(spec):
            return as_date(value) or value
        if wants_clock(spec):
            return as_time(value) or value
        if spec.get("type") in ("number", "integer"):
            return as_number(value) or value
        if spec.get("enum"):  # a listed value however its parts are joined: "check-up" is checkup
            return re.sub(r"[\s_-]+", "", value)
        if isinstance(spec.get("pattern"), str) and _typed_apart(value):
            return re.sub(r"(?<=[A-Za-z0-9])[\s-]+(?=[A-Za-z0-9])", "", value)
        return value

    def aliases(self, parameter: str) -> dict[str, str]:
        """word (case folded) -> the value of the enum `parameter` it names, by this tool's own texts
        ("scaling 洗牙" in its description: 洗牙 names scaling) and the value's words ("root canal" of
        root_canal); a person who writes one has said the value (`agent/aliases.py`)."""
        return aliases(self.parameters, self.description, parameter)


def _typed_apart(value: str) -> bool:
    """Is `value` an identifier in groups: letters and figures both ("IT LT 00877", "IT-LT-00877"), or
    figures alone in groups of three or more, ten or more in all (an IMEI typed in fours)?"""
    groups = [g for g in re.split(r"[\s-]+", value.strip()) if g]
    if not groups or not all(g.isascii() and g.isalnum() for g in groups):
        return False
    joined = "".join(groups)
    if re.search("[A-Za-z]", joined) and re.search("[0-9]", joined):
        return True
    return joined.isdigit() and len(joined) >= 10 and all(len(g) >= 3 for g in groups)
