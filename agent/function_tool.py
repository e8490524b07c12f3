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
        words in it); by default the value itself, and case and spacing never count; an identifier whose
        `pattern` takes no space is the same however its groups are typed apart ("IT LT 00877" is
        IT-LT-00877)."""
        spec = self.parameters.get("properties", {}).get(parameter, {})
        pattern = spec.get("pattern") if isinstance(spec, dict) else None
        if isinstance(pattern, str) and not re.search(r"\\s|[ ]", pattern):
            return re.sub(r"[\s-]+", "", value)
        return value
