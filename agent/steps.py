"""Steps: how the loop runs a tool call, given as a hook, so that a host may have the last word just before
a call acts (the served agent does: agent/serve/steps.py), and a turn cut off by a dead process, taken
up again, does not run a call twice that must not be.

By default a call simply runs, here and now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent.tools import Executed, Starting
from agent.types import ToolContext


class Steps:
    def tool(
        self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[Starting | None], Executed]
    ) -> Executed:
        """One tool call of the model's, run by the registry (`run`), with the host's last word before it
        acts (`Starting`, or None): what it gave. It may raise AwaitingApproval, as the registry does: the
        call then waits for the person."""
        return run(None)
