"""Approvals over HTTP: a call that needs the person's confirmation pauses the turn (the registry's
confirm raises AwaitingApproval), the answer asks them about that exact call, and their next message —
yes or no, or an AG-UI resume — approves or refuses it, within APPROVAL_SECONDS.

An approval is bound to the call, its tool and its exact arguments, and is used once: `confirm` agrees
only to the call it names, and only while the turn that resumes it runs (a context variable of that
thread, as the MCP server's confirmation finds its request).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from agent.grounding import folded
from agent.guards import safe
from agent.types import AwaitingApproval, ToolContext

APPROVAL_SECONDS = 600.0
YES = {
    "yes",
    "y",
    "ok",
    "okay",
    "approve",
    "approved",
    "confirm",
    "sure",
    "是",
    "是的",
    "好",
    "好的",
    "同意",
    "确认",
    "可以",
}
NO = {"no", "n", "refuse", "deny", "cancel", "否", "不", "不要", "不同意", "取消", "拒绝"}


@dataclass(frozen=True)
class Approval:
    """A call waiting for the person: which, with what exact arguments, in which run, until when."""

    id: str
    call_id: str
    name: str
    arguments: dict[str, Any]
    run_id: str
    expires_at: float

    @classmethod
    def of(cls, waiting: AwaitingApproval, now: float) -> Approval:
        return cls(
            "appr_" + secrets.token_hex(8),
            waiting.call_id,
            waiting.name,
            waiting.arguments,
            waiting.run_id,
            now + APPROVAL_SECONDS,
        )

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | None) -> Approval | None:
        return cls(**json.loads(text)) if text else None

    def call(self) -> str:
        return safe(f"{self.name}({json.dumps(self.arguments, ensure_ascii=False)})")

    def question(self) -> str:
        """What the answer says: the exact call, and how to approve or refuse it."""
        minutes = round(APPROVAL_SECONDS / 60)
        return (
            f"需要你的批准才能运行 {self.call()}。回复“同意”运行它，或“拒绝”（{minutes} 分钟内有效）。\n"
            f"Approval needed to run {self.call()}. Reply “yes” to run it or “no” to refuse "
            f"(valid for {minutes} minutes)."
        )

    def expires_iso(self) -> str:
        return datetime.fromtimestamp(self.expires_at, UTC).isoformat(timespec="seconds")

    def public(self) -> dict[str, Any]:
        """What a client is told about it."""
        return {
            "id": self.id,
            "tool_call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "expires_at": self.expires_iso(),
        }


def answer_in(text: str | None) -> bool | None:
    """True for a yes, False for a no, None when the message is something else."""
    word = folded(text or "").strip(" .,!?。！？，")
    return True if word in YES else False if word in NO else None


@dataclass
class Grant:
    approval: Approval
    approved: bool
    used: bool = False


_grant: ContextVar[Grant | None] = ContextVar("approval_grant", default=None)


@contextmanager
def answered(approval: Approval | None, approved: bool) -> Iterator[None]:
    """While the block runs in this thread, `confirm` gives the person's answer to `approval`'s call."""
    token = _grant.set(Grant(approval, approved) if approval else None)
    try:
        yield
    finally:
        _grant.reset(token)


def confirm(name: str, arguments: dict[str, Any], ctx: ToolContext) -> bool:
    """The registry's confirm over HTTP: the person's answer to exactly this call, once; else the turn
    stops here and the person is asked (AwaitingApproval)."""
    grant, call = _grant.get(), (ctx.call_id, name, arguments)
    if (
        grant
        and not grant.used
        and (grant.approval.call_id, grant.approval.name, grant.approval.arguments) == call
    ):
        grant.used = True
        return grant.approved
    raise AwaitingApproval(name, arguments)
