"""Admitted: a turn as a request asks for it (TurnRequest) and as it was admitted (Admitted) — what its
DBOS workflow is given — and the JSON form in which its conversation keeps an approval's turn, which runs
with no workflow of its own, while it runs: a recovery starts its workflow from it when its runner died
(recovery.py), so that the approved call still runs at most once."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from langchain_core.messages import BaseMessage

from app.serve.approvals import Approval
from app.serve.conversations import Conversation, Where


@dataclass(frozen=True)
class TurnRequest:
    user: str
    message: str | None  # the person's new words; None: only an answer to the approval that waits
    where: Where = Where()
    history: list[BaseMessage] = field(default_factory=list)  # before `message`, for a new conversation
    approval: tuple[str, bool] | None = None  # (approval id, approved?): an explicit answer (AG-UI resume)
    # may `message` answer the approval that waits ("yes")? Not where answers name their approval (A2A)
    answers_in_words: bool = True
    key_hash: str | None = None  # the key that signed it, checked again as it is admitted (not kept)


@dataclass(frozen=True)
class Admitted:
    """A turn admitted and leased: what its workflow is given, and runs again from after a restart."""

    request: TurnRequest  # without the client's history: the conversation keeps it (ids, not history)
    conversation: Conversation  # with the lease its first execution holds

    def to_json(self) -> str:
        """The turn as its conversation keeps it: ids and the person's words, never the history nor the
        key that signed it."""
        request = asdict(replace(self.request, history=[], key_hash=None))
        conversation = asdict(replace(self.conversation, pending=None))
        conversation["pending"] = asdict(self.conversation.pending) if self.conversation.pending else None
        return json.dumps({"request": request, "conversation": conversation}, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str, user: str) -> Admitted:
        """The turn kept as `to_json` wrote it, for `user` (the conversation's, whatever the text says);
        ValueError when it is not such a turn."""
        try:
            kept = json.loads(text)
            request: dict[str, Any] = kept["request"]
            conversation: dict[str, Any] = kept["conversation"]
            approval = request.pop("approval")
            where = Where(**request.pop("where"))
            asked = TurnRequest(
                **(request | {"user": user, "where": where, "history": [], "key_hash": None}),
                approval=(str(approval[0]), bool(approval[1])) if approval else None,
            )
            pending = conversation.pop("pending")
            found = Conversation(
                **(conversation | {"user": user}), pending=Approval(**pending) if pending else None
            )
        except (TypeError, KeyError, IndexError, AttributeError, json.JSONDecodeError) as e:
            raise ValueError(f"not a kept turn: {type(e).__name__}") from None
        return cls(asked, found)
