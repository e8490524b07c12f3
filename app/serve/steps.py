"""The served turn's tool calls, at most once. Each step of a turn is kept as it ends, in the conversation
(journal.py: the model's reply, a call's result); a turn taken up again after its process died goes on
from what was kept (turns.py), so a finished step is not run again.

A call whose result was not kept was running, or about to, when the process died: nobody knows whether
it acted. It runs again only when that is safe — the tool only reads, is idempotent, or its service
deduplicates the call's Idempotency-Key (the same call has the same key). Otherwise a mark, made as the
call starts, says it may have acted, and the turn stops and asks the person whether it runs again
(approvals.OutcomeUnknown), as it asks to approve a call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage

from agent.steps import Steps
from agent.tools import Executed, Starting, ToolRegistry
from agent.types import ToolContext
from app.serve.approvals import OutcomeUnknown, rerun_answer
from app.serve.conversations import Conversation, ConversationStore
from app.serve.errors import Cancelled
from app.serve.fence import check

NOT_AGAIN = (
    "the person chose not to run this call again: it was running when the server stopped, and may or "
    "may not have taken effect"
)


class OnceSteps(Steps):
    def __init__(self, registry: ToolRegistry, store: ConversationStore, conversation: Conversation) -> None:
        self.registry, self.store, self.conversation = registry, store, conversation

    def model(self, request: Callable[[], AIMessage]) -> AIMessage:
        """A model request, made only while this execution holds the turn's lease (fence.py)."""
        check(self.store.db, self.conversation.lease)
        return request()

    def tool(
        self, ctx: ToolContext, call: Mapping[str, Any], run: Callable[[Starting | None], Executed]
    ) -> Executed:
        tool = self.registry.get(call.get("name") or "")
        if tool is None or tool.repeatable:
            return run(None)
        call_id = call.get("id") or ""

        def starting(name: str, arguments: dict[str, Any]) -> tuple[str, str] | None:
            """Approved and about to act: marked as started, unless it was before (then it may have
            acted, and runs again only on the person's word)."""
            again = rerun_answer(call_id, name, arguments)
            if again is False:
                return "not_run_again", NOT_AGAIN
            if self.store.stopping(self.conversation):  # cancelled, and taken up again since: no call runs
                raise Cancelled("the turn was cancelled; what it did before is kept")
            if not self.store.starting(self.conversation, call_id) and again is None:
                raise OutcomeUnknown(name, arguments)
            return None

        return run(starting)
