"""Steps: how the loop runs its two kinds of step — a request to the model, a tool call — given as a hook,
so that a host may record each one as it ends (the served agent does: agent/serve/steps.py) and a turn
cut off by a dead process goes on from where it was, without running a finished step again.

By default a step simply runs, here and now, and independent tool calls of one reply run side by side.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage

from agent.tools import Executed
from agent.types import ToolContext


class Steps:
    concurrent = True  # independent calls of one reply may run at once (a recorded turn runs them in order)

    def model(self, request: Callable[[], AIMessage]) -> AIMessage:
        """One request to the model: its reply."""
        return request()

    def tool(self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[], Executed]) -> Executed:
        """One tool call of the model's, run by the registry (`run`): what it gave. It may raise
        AwaitingApproval, as the registry does: the call then waits for the person."""
        return run()
