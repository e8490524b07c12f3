"""Steps: how the loop makes a model request and runs a tool call, given as a hook, so that a host may have
the last word just before a step acts (the served agent does: app/serve/steps.py) — a turn cut off by a
dead process, taken up again, does not run a call twice that must not be, and a turn taken up elsewhere
makes no further step here.

By default a request is made, and a call runs, here and now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage

from agent.tools import Executed, Starting
from agent.types import ToolContext


class Steps:
    def model(self, request: Callable[[], AIMessage]) -> AIMessage:
        """One request to the model (`request`): what it answered. A host may refuse to make it by raising
        (the served agent does, for a turn another worker has taken up)."""
        return request()

    def tool(
        self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[Starting | None], Executed]
    ) -> Executed:
        """One tool call of the model's, run by the registry (`run`), with the host's last word before it
        acts (`Starting`, or None): what it gave. It may raise AwaitingApproval, as the registry does: the
        call then waits for the person."""
        return run(None)
