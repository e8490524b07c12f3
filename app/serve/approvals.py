"""Approvals over HTTP: a call that needs the person's confirmation pauses the turn (the registry's
confirm raises AwaitingApproval), the answer asks them about that exact call, and their next message —
yes or no, or an AG-UI resume — approves or refuses it, within its lifetime (SERVE_APPROVAL_SECONDS,
10 minutes).

An approval is bound to the call, its tool and its exact arguments, and is used once: `confirm` agrees
only to the call it names, and only while the turn that resumes it runs (a context variable of that
thread, as the MCP server's confirmation finds its request).

The same path asks about a call whose outcome nobody knows (`OutcomeUnknown`: it was running when the
server died, and running it again could act twice): whether it runs again (`rerun_answer`).
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
APPROVE, RERUN = "approve", "rerun"  # what is asked: may the call run; may it run again
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
    kind: str = APPROVE
    seconds: float = APPROVAL_SECONDS  # how long it stays open (SERVE_APPROVAL_SECONDS)

    @classmethod
    def of(cls, waiting: AwaitingApproval, now: float, seconds: float = APPROVAL_SECONDS) -> Approval:
        return cls(
            "appr_" + secrets.token_hex(8),
            waiting.call_id,
            waiting.name,
            waiting.arguments,
            waiting.run_id,
            now + seconds,
            RERUN if isinstance(waiting, OutcomeUnknown) else APPROVE,
            seconds,
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
        zh, en = (
            (f"{round(self.seconds / 60)} 分钟", f"{round(self.seconds / 60)} minutes")
            if self.seconds >= 60
            else (f"{self.seconds:g} 秒", f"{self.seconds:g} seconds")
        )
        if self.kind == RERUN:
            return (
                f"服务器中断时 {self.call()} 正在运行：它可能已经执行，也可能没有。要再运行一次吗？"
                f"回复“同意”再运行，或“拒绝”不再运行（{zh}内有效）。\n"
                f"{self.call()} was running when the server stopped: it may or may not have run. Run it "
                f"again? Reply “yes” to run it again or “no” to leave it (valid for {en})."
            )
        return (
            f"需要你的批准才能运行 {self.call()}。回复“同意”运行它，或“拒绝”（{zh}内有效）。\n"
            f"Approval needed to run {self.call()}. Reply “yes” to run it or “no” to refuse "
            f"(valid for {en})."
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
    """The registry's confirm over HTTP: the person's answer to exactly this call, once (to run it again,
    after a crash, is to approve it too); else the turn stops here and the person is asked
    (AwaitingApproval)."""
    approved = _answer((APPROVE, RERUN), ctx.call_id, name, arguments, use=True)
    if approved is None:
        raise AwaitingApproval(name, arguments)
    return approved


class OutcomeUnknown(AwaitingApproval):
    """A call that was running when the server died, whose outcome nobody knows, and which could act
    twice if run again: it waits for the person to say whether it runs again."""

    decision = "outcome_unknown"

    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        super().__init__(name, arguments, "may or may not have run; the person is asked to run it again")


def rerun_answer(call_id: str, name: str, arguments: dict[str, Any]) -> bool | None:
    """The person's answer to whether this call runs again; None when they gave none."""
    return _answer((RERUN,), call_id, name, arguments, use=False)


def _answer(
    kinds: tuple[str, ...], call_id: str, name: str, arguments: dict[str, Any], use: bool
) -> bool | None:
    """The answer the person gave about this call, if of one of `kinds`; `use`: once (an approval), else
    as often as asked (whether it runs again, asked after it was approved with the same answer)."""
    grant = _grant.get()
    if grant is None or (grant.used and use) or grant.approval.kind not in kinds:
        return None
    if (grant.approval.call_id, grant.approval.name, grant.approval.arguments) != (call_id, name, arguments):
        return None
    grant.used = grant.used or use
    return grant.approved
