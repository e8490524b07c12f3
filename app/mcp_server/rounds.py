"""Questions to the person in MCP's 2026-07-28 revision: multi round-trip requests instead of elicitation.

This revision has no back channel: a tool call that needs the person's answer ends with an
`InputRequiredResult` (the question), and the client calls again with the answer. The call then runs
from the start, and each question it asks takes the answer given in an earlier round, in order; the
first question without one ends the round. The answers so far travel in the request state, which the
SDK's `RequestStateBoundary` seals and binds to this tool and these exact arguments (`serve.py`), so
an answer is never applied to another call. A tool therefore asks before it acts (as confirmation does).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types

QUESTION = "ask"  # the key of the one question a round asks
Answer = tuple[str, dict[str, Any] | None]  # (accept, decline or cancel; the form's content)


@dataclass
class Rounds:
    """The person's answers of one call's earlier rounds, and the question this round stopped at."""

    answers: list[Answer] = field(default_factory=list)
    asked: int = 0
    pending: tuple[str, dict[str, Any]] | None = None

    @classmethod
    def of(cls, params: types.CallToolRequestParams) -> Rounds:
        """From the call: the sealed state (our own earlier answers) and the answer to its question."""
        if params.request_state is None:
            return cls()  # a first round; answers without our state are not ours to trust
        answers = [(str(action), content) for action, content in json.loads(params.request_state)]
        response = (params.input_responses or {}).get(QUESTION)
        if isinstance(response, types.ElicitResult):
            answers.append((response.action, response.content if response.action == "accept" else None))
        return cls(answers)

    def answer(self, message: str, schema: dict[str, Any]) -> Answer | None:
        """The answer to the next question of the call; None (and the round ends on it) when not given yet."""
        if self.asked < len(self.answers):
            self.asked += 1
            return self.answers[self.asked - 1]
        self.pending = self.pending or (message, schema)
        return None

    def input_required(self) -> types.InputRequiredResult:
        assert self.pending is not None
        message, schema = self.pending
        question = types.ElicitRequest(
            params=types.ElicitRequestFormParams(message=message, requested_schema=schema)  # type: ignore[arg-type]
        )
        state = json.dumps([list(a) for a in self.answers], ensure_ascii=False)
        return types.InputRequiredResult(input_requests={QUESTION: question}, request_state=state)
