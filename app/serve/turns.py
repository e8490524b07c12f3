"""Turns: one turn of the served agent — admitted and leased for a request, then run as a durable
workflow (durable.py) by the host's ChatAgent on the stored history, and given back with its outcome. An
approval's answer runs with no workflow of its own: its conversation keeps the turn with its lease
(admitted.py), from which a recovery starts its workflow only if its runner dies.

What a request asks for, in order: the same turn again (its client's key says so) — its stored answer, or,
when it was cut off, the rest of it, each call with the idempotency key it had; an answer to the approval
that waits — the call runs or is refused, and the turn goes on; else the person's new message. A call
that needs approval stops the turn, and the answer asks for it.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Protocol

from langchain_core.messages import AIMessage, BaseMessage

from agent.agent import ChatAgent
from agent.steps import Steps
from agent.tools import ToolRegistry
from agent.types import AwaitingApproval
from app.host import Host
from app.serve.admitted import Admitted, TurnRequest
from app.serve.approvals import Approval, answer_in, answered
from app.serve.conversations import Conversation, ConversationStore
from app.serve.errors import Cancelled, LeaseLost, RequestError, Stopped
from app.serve.events import Bridge, Failed, Finished, Started, Text
from app.serve.follow import Followers, follow
from app.serve.journal import Journal
from app.serve.leases import Held, adopt
from app.serve.limits import ServeLimits
from plumbing.sql import DatabaseUnavailable

log = logging.getLogger("app.serve")
STANDBY_SECONDS = 1.0  # how often a recovery looks again at a turn a live executor holds


class Runner(Protocol):
    def __call__(self, admitted: Admitted, bridge: Bridge) -> None: ...


def nobody_approves(server: str, offered: list[str]) -> bool:
    """New or changed MCP tools under `serve`: nobody here may approve them for everyone, so they are not
    offered; the operator reviews them in the chat and restarts."""
    log.warning("MCP server %r: tools not offered (review them in the chat): %s", server, "; ".join(offered))
    return False


class Turns:
    def __init__(
        self,
        host: Host,
        store: ConversationStore,
        limits: ServeLimits,
        owner: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.host, self.store, self.limits, self.clock = host, store, limits, clock
        self.owner = owner  # who holds the leases of the turns run here: this start of the worker (leases.py)
        # how an admitted turn runs, and its steps: here and now, unless durably (durable.py)
        self.runner: Runner = self.go_on
        self.steps: Callable[[ToolRegistry, Conversation], Steps] = lambda registry, conversation: Steps()
        self.followers = Followers(store, limits.runs_per_user)
        self.held = Held(store.db, limits.lease_seconds)  # the leases of the turns under way here, renewed

    def run(self, request: TurnRequest, bridge: Bridge) -> None:
        """Admit the turn (its refusal told to `bridge` at once), then run it, telling `bridge` all that
        happens; unless its client left while the turn waited for a thread."""
        if bridge.gone.is_set():
            return
        conversation, told = self._admit(request, bridge)
        if conversation is None:
            return
        if not told:
            bridge.put(Started(conversation.id, conversation.run_id))
        try:
            if conversation.last_state == "new" and request.history:  # kept before the turn runs
                conversation = self.store.keep(conversation, request.history)
            admitted = Admitted(replace(request, history=[], key_hash=None), conversation)
            (self.go_on if conversation.kept else self.runner)(admitted, bridge)
        except Exception as e:  # it did not start: the lease is given back
            self.store.finish(conversation, "failed", None, None)
            bridge.put(Failed(e))

    def _admit(self, request: TurnRequest, bridge: Bridge) -> tuple[Conversation | None, bool]:
        """The turn admitted, its conversation leased here, and whether `bridge` was told it started; None
        when `bridge` was told all already: refused, or this run, sent again while it runs, followed to its
        end (not run twice). A run whose lease was released before it started (its executor died first:
        recovery.py) is admitted here."""
        told = False
        for _ in range(3):
            try:
                keep, limits = self._kept(request), self.limits
                conversation = self.store.begin(
                    request.user, request.where, self.owner, limits, request.key_hash, keep
                )
            except Exception as e:
                bridge.put(Failed(e))
                return None, told
            if not conversation.following:
                return conversation, told
            if not told:
                bridge.put(Started(conversation.id, conversation.run_id))
                told = True
            if self.followers.follow(conversation, bridge):
                return None, told
        bridge.put(Failed(Stopped("the turn stopped before it answered; send it again to go on")))
        return None, told

    def _kept(self, request: TurnRequest) -> Callable[[Conversation], str | None] | None:
        """How its conversation keeps the turn `request` asks for, when it answers the approval that waits
        (its turn runs with no workflow: admitted.py); None where no turn runs but as a workflow."""
        if self.runner == self.go_on:
            return None

        def keep(conversation: Conversation) -> str | None:
            with contextlib.suppress(RequestError):  # a wrong answer fails as the turn runs, as any turn's
                if self._decision(conversation.pending, request) is not None:
                    return Admitted(request, conversation).to_json()
            return None

        return keep

    def go_on(self, admitted: Admitted, bridge: Bridge, recovered: bool = False) -> None:
        """Run an admitted turn to its end (`recovered`: taken up again, from what it stored), telling
        `bridge` how it ended, however that was. One that another worker took up meanwhile stops, and its
        client follows the turn there."""
        try:
            bridge.put(self._to_the_end(admitted, bridge, recovered))
        except LeaseLost as lost:
            log.warning("turn %s taken up elsewhere: this execution stopped", admitted.conversation.run_id)
            if not follow(self.store, admitted.conversation, bridge, after=lost.told):
                bridge.put(Failed(Stopped("the turn stopped before it answered; send it again to go on")))
        except Exception as e:
            bridge.put(Failed(e))

    def _to_the_end(self, admitted: Admitted, bridge: Bridge, recovered: bool) -> Finished:
        conversation, request = admitted.conversation, admitted.request
        if recovered:
            conversation = self._adopt(conversation)
        with self.held.holding(conversation.lease, self.limits.hold_seconds):  # renewed while it runs
            try:
                done = self._turn(conversation, request, bridge, recovered)
            except Cancelled as e:
                self.store.finish(conversation, "cancelled", str(e), None)
                raise
            except Exception as e:
                kept = conversation.pending if isinstance(e, RequestError) else None
                self.store.finish(conversation, "failed", None, kept)
                raise
            state = "awaiting" if done.pending else "done"
            self.store.finish(conversation, state, done.answer, done.pending)
            return done

    def _adopt(self, conversation: Conversation) -> Conversation:
        """The recovered turn's lease, taken at its next generation (leases.py). While a live worker still
        holds it (it only seemed dead), this recovery stands by — its workflow stays unfinished, to be
        recovered again if this worker dies — and takes the turn up only once that lease is cut."""
        lease = conversation.lease
        while True:
            with contextlib.suppress(DatabaseUnavailable):  # away for a moment: stand by, as for a live one
                seconds = self.limits.lease_seconds
                taken = adopt(self.store.db, lease, conversation.run_id, self.owner, seconds)
                if taken is not None:
                    return replace(conversation, owner=taken.owner, gen=taken.gen)
            time.sleep(STANDBY_SECONDS)

    def _turn(
        self, conversation: Conversation, request: TurnRequest, bridge: Bridge, recovered: bool
    ) -> Finished:
        again = conversation.last_run == conversation.run_id
        if again and conversation.last_state == "cancelled":  # a run the person cancelled is not resumed
            raise Cancelled(conversation.last_answer or "the turn was cancelled")
        if again and conversation.last_state in ("done", "awaiting") and conversation.last_answer is not None:
            bridge.put(Text(conversation.last_answer))  # a retry of a turn that answered: the same answer
            return self._finished(conversation, conversation.last_answer, conversation.pending)
        if self.host.mcp is not None:  # a server's announced changes: changed tools go, new ones wait
            self.host.mcp.sync(nobody_approves)
        journal = Journal(self.store, conversation, bridge)
        stored = self.store.messages(conversation.id, before=conversation.next_seq)  # as the turn found it
        history = [message for _, message in stored]
        went: list[BaseMessage] = []  # what it did before a restart cut it off, when it runs again
        if recovered:
            went = [message for _, message in self.store.messages(conversation.id, since=journal.seq)]
            journal.found(went)
            history += went
        this_run = [message for run_id, message in stored if run_id == conversation.run_id] if again else []
        steps = self.steps(self.host.registry, conversation)
        with self.host.agent(request.user, observer=journal, history=history, steps=steps) as agent:
            try:
                answer = self._step(agent, conversation, request, this_run + went)
            except LeaseLost as lost:
                lost.told = journal.seq - 1  # its client was told the messages before: not again
                raise
            except AwaitingApproval as waiting:
                pending = Approval.of(waiting, self.clock(), self.limits.approval_seconds)
                bridge.put(Text(pending.question()))
                return self._finished(conversation, pending.question(), pending, journal)
        return self._finished(conversation, answer, None, journal)

    def _step(
        self, agent: ChatAgent, conversation: Conversation, request: TurnRequest, this_run: list
    ) -> str:
        last = this_run[-1] if this_run else None
        if isinstance(last, AIMessage) and not last.tool_calls and not last.invalid_tool_calls:
            return last.text  # the same turn again, cut off after it answered
        pending, approved = conversation.pending, self._decision(conversation.pending, request)
        if pending is not None and approved is not None:  # the person's answer (again, if cut off)
            with answered(pending, approved):
                return agent.resume(pending.run_id)
        if this_run:  # the same turn again, cut off before it answered: its rest
            return agent.resume(conversation.run_id)
        if request.message is None:
            raise RequestError("nothing to answer: the request has no new message and no approval waits")
        return agent.send_message(request.message, run_id=conversation.run_id)

    def _decision(self, pending: Approval | None, request: TurnRequest) -> bool | None:
        """The person's answer to the approval that waits: True, False, or None (it has none)."""
        if request.approval is not None:
            approval_id, approved = request.approval
            if pending is None or pending.id != approval_id:
                raise RequestError(
                    f"no approval {approval_id!r} waits in this conversation", "no_such_approval"
                )
            if pending.expires_at < self.clock():
                raise RequestError(f"approval {approval_id!r} expired; ask again", "approval_expired")
            return approved
        if pending is None or pending.expires_at < self.clock() or not request.answers_in_words:
            return None  # none, expired or not asked here: the call stays unanswered, repaired as cancelled
        return answer_in(request.message)

    @staticmethod
    def _finished(
        conversation: Conversation, answer: str, pending: Approval | None, journal: Journal | None = None
    ) -> Finished:
        usage = dict(journal.usage) if journal else {}
        return Finished(conversation.id, conversation.run_id, answer, pending, usage)
