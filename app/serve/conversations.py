"""ConversationStore: the served agent's conversations in the database, so that any worker serves any of
them and a worker that dies loses nothing that was stored.

A turn first takes its conversation's lease (`begin`, leases.py), in the transaction that admits it under
the user's limits (limits.py), then stores each message as the loop adds it (`append`: a journal), each
step fenced by the lease (fence.py), and gives the lease back with its outcome (`finish`). A conversation
is found only with its user's id: another person's is a 404.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.messages import BaseMessage, messages_from_dict, messages_to_dict

from app.serve.approvals import Approval
from app.serve.errors import Busy, NotFound
from app.serve.fence import HELD, Lease, hold
from app.serve.fence import insert as fenced
from app.serve.keyed import keyed_id, run_id, signed
from app.serve.leases import leased, taking
from app.serve.limits import ServeLimits
from plumbing.sql import Cursor, Database

COLUMNS = "id, user_id, run_id, state, answer, pending"
MESSAGES = "messages (conversation_id, seq, run_id, message)"
INSERT_MESSAGE = f"INSERT INTO {MESSAGES} VALUES (?, ?, ?, ?)"
NEW = {"run_id": None, "state": "new", "answer": None, "pending": None, "leased": 0}  # a new one, as found


@dataclass(frozen=True)
class Conversation:
    """A conversation as a turn found it: the last turn's run id, state, answer and pending approval."""

    id: str
    user: str
    run_id: str  # this turn's
    next_seq: int
    last_run: str | None = None
    last_state: str = "new"  # new, running, done, awaiting, failed, cancelled
    last_answer: str | None = None
    pending: Approval | None = None
    following: bool = False  # the run is running already: the client follows it (follow.py)
    owner: str = ""  # the executor that holds the lease for this execution of the turn
    gen: int = 0  # the lease's generation it holds
    kept: bool = False  # its conversation keeps the turn (an approval's: admitted.py), run with no workflow

    @property
    def lease(self) -> Lease:
        return Lease(self.id, self.owner, self.gen)


@dataclass(frozen=True)
class Where:
    """Which conversation a request names: a stored one, an AG-UI thread of the user's, or a new one
    (named by the client's idempotency key, if it sent one, so that a retry finds it)."""

    conversation_id: str | None = None
    thread_id: str | None = None
    run_key: str | None = None


class ConversationStore:
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db, self.clock = db, clock
        self.leased = f"{leased(db)} AS leased"

    def begin(
        self,
        user: str,
        where: Where,
        owner: str,
        limits: ServeLimits,
        key_hash: str | None = None,
        keep: Callable[[Conversation], str | None] | None = None,
    ) -> Conversation:
        """Admit a turn under the user's limits and lease its conversation to `owner` (created if new); a
        run that is running already is not run twice: the conversation says it is `following` it. With
        `key_hash`, the key that signed the request must be the user's and active (else Unauthorized).
        What `keep` writes of the admitted turn, if anything, is kept with the lease: what a recovery runs
        again if its runner dies (recovery.py)."""
        now = self.clock()
        with self.db.transaction() as db:
            made = signed(db, user, key_hash) if key_hash is not None else None
            limits.count(db, user, now)
            keyed = keyed_id(db, user, where.run_key, made) if where.thread_id is None else None
            row = self._find(db, user, where, keyed) or self._create(db, user, where, now, keyed)
            conversation = _conversation(row, user, run_id(row["id"], where.run_key))
            if row["leased"]:
                if where.run_key is not None and row["run_id"] == conversation.run_id:
                    return replace(conversation, following=True)  # the same run, sent again
                raise Busy("a turn is already running in this conversation; retry when it has answered")
            lease, held = taking(self.db, owner, limits.lease_seconds)
            room, counted = limits.room(user, leased(self.db))  # under the user's turns at once
            taken = db.execute(
                f"UPDATE conversations SET {lease}, run_id = ?, state = 'running', stop_run = NULL, "
                f"turn = NULL, updated_at = ? WHERE id = ? AND {room} RETURNING lease_gen",
                (*held, conversation.run_id, now, row["id"], *counted),
            ).fetchone()
            if taken is None:
                raise limits.full()
            gen = taken["lease_gen"]
            next_seq = db.execute(  # after the lease: a fenced step that was under way is in, or out
                "SELECT COALESCE(MAX(seq), -1) + 1 AS n FROM messages WHERE conversation_id = ?", (row["id"],)
            ).fetchone()["n"]
            conversation = replace(conversation, next_seq=next_seq, owner=owner, gen=gen)
            turn = keep(conversation) if keep else None
            if turn is not None:
                db.execute("UPDATE conversations SET turn = ? WHERE id = ?", (turn, row["id"]))
        return replace(conversation, kept=turn is not None)

    def _find(self, db: Cursor, user: str, where: Where, keyed: str | None) -> Any:
        key: str | None = where.conversation_id or keyed
        sql, keys = "id = ?", [key]
        if where.thread_id is not None:  # an OpenAI-face conversation's thread is its own id
            sql, keys = "(thread_id = ? OR (thread_id IS NULL AND id = ?))", [where.thread_id] * 2
        row = db.execute(
            f"SELECT {COLUMNS}, {self.leased} FROM conversations WHERE {sql} AND user_id = ?", (*keys, user)
        ).fetchone()
        if row is None and where.conversation_id is not None:
            raise NotFound(f"no conversation {where.conversation_id!r} of yours", param="conversation_id")
        return row

    def _create(self, db: Cursor, user: str, where: Where, now: float, keyed: str | None) -> Any:
        """A new conversation; or the one a concurrent request of the same key or thread made meanwhile."""
        conversation_id = keyed or "conv_" + uuid.uuid4().hex
        made = db.execute(
            "INSERT INTO conversations (id, user_id, thread_id, created_at, updated_at, state) "
            "VALUES (?, ?, ?, ?, ?, 'new') ON CONFLICT DO NOTHING",
            (conversation_id, user, where.thread_id, now, now),
        ).rowcount
        if not made:
            return self._find(db, user, where, keyed)
        return {"id": conversation_id, **NEW}

    def keyed_thread(self, user: str, message_id: str) -> str:
        """The thread a client's message id names when the message names no conversation (an A2A task's
        first message): the same for every re-send of it, on any server, and another person's is another."""
        with self.db.reading() as db:
            return "a2a_" + (keyed_id(db, user, message_id) or "").removeprefix("conv_")

    def append(self, conversation: Conversation, seq: int, message: BaseMessage) -> None:
        """Store one message of the turn's, while its execution holds the lease (fence.py)."""
        body = json.dumps(messages_to_dict([message])[0], ensure_ascii=False)
        fenced(self.db, conversation.lease, MESSAGES, (conversation.id, seq, conversation.run_id, body))

    def keep(self, conversation: Conversation, messages: list[BaseMessage]) -> Conversation:
        """Store a new conversation's history from the client, before its first turn runs (no turn's: not
        told again to a client that follows this one, nor taken for what it did); the turn goes on after."""
        rows = [
            (conversation.id, conversation.next_seq + i, "", json.dumps(body, ensure_ascii=False))
            for i, body in enumerate(messages_to_dict(messages))
        ]
        with self.db.transaction() as db:
            hold(db, conversation.lease)
            for row in rows:
                db.execute(INSERT_MESSAGE, row)
        return replace(conversation, next_seq=conversation.next_seq + len(rows))

    def messages(
        self, conversation_id: str, before: int | None = None, since: int = 0
    ) -> list[tuple[str, BaseMessage]]:
        """The history, in order, each message with the run id of the turn that added it; only those
        stored before place `before` (what a turn found when it began, however often it runs) and from
        place `since` on."""
        with self.db.reading() as db:
            rows = db.execute(
                "SELECT run_id, message FROM messages WHERE conversation_id = ? AND seq >= ? AND seq < ? "
                "ORDER BY seq",
                (conversation_id, since, (1 << 62) if before is None else before),
            ).fetchall()
        messages = messages_from_dict([json.loads(row["message"]) for row in rows])
        return [(row["run_id"], message) for row, message in zip(rows, messages, strict=True)]

    def progress(self, conversation: Conversation, after: int) -> tuple[Any, list[tuple[int, BaseMessage]]]:
        """Where a running turn is: its conversation's row (run id, state, answer, pending, `leased`), and
        (seq, message) of what the turn stored after `after`."""
        with self.db.reading() as db:
            row = db.execute(
                f"SELECT {COLUMNS}, {self.leased} FROM conversations WHERE id = ?", (conversation.id,)
            ).fetchone()
            rows = db.execute(
                "SELECT seq, message FROM messages WHERE conversation_id = ? AND run_id = ? AND seq > ? "
                "ORDER BY seq",
                (conversation.id, conversation.run_id, after),
            ).fetchall()
        messages = messages_from_dict([json.loads(found["message"]) for found in rows])
        return row, [(found["seq"], message) for found, message in zip(rows, messages, strict=True)]

    def cancel(self, user: str, conversation_id: str) -> str | None:
        """Ask the turn running in the user's conversation to stop before it runs another call: its run id
        (None: no turn runs there)."""
        with self.db.transaction() as db:
            row = db.execute(
                f"SELECT run_id, state, {self.leased} FROM conversations WHERE id = ? AND user_id = ?",
                (conversation_id, user),
            ).fetchone()
            if row is None:
                raise NotFound(f"no conversation {conversation_id!r} of yours", param="conversation_id")
            if row["state"] != "running" or not row["leased"]:
                return None
            db.execute("UPDATE conversations SET stop_run = run_id WHERE id = ?", (conversation_id,))
            return str(row["run_id"])

    def stopping(self, conversation: Conversation) -> bool:
        """Has the client asked this turn to stop?"""
        with self.db.reading() as db:
            found = db.execute(
                "SELECT 1 FROM conversations WHERE id = ? AND stop_run = ?",
                (conversation.id, conversation.run_id),
            )
            return found.fetchone() is not None

    def starting(self, conversation: Conversation, call_id: str) -> bool:
        """Mark a call of the turn as started, while its execution holds the lease; False when it was
        marked already (it started before)."""
        mark = (conversation.run_id, call_id, self.clock())
        into = "started_calls (run_id, call_id, started_at)"
        return fenced(self.db, conversation.lease, into, mark, "ON CONFLICT DO NOTHING") > 0

    def finish(
        self, conversation: Conversation, state: str, answer: str | None, pending: Approval | None
    ) -> None:
        """Give the lease back, with the turn's outcome (kept to answer a retry of the same turn), unless
        another execution holds it now."""
        outcome = (state, answer, pending.to_json() if pending else None, self.clock())
        self.db.write(
            "UPDATE conversations SET lease_owner = NULL, lease_process = NULL, lease_until = NULL, "
            f"turn = NULL, state = ?, answer = ?, pending = ?, updated_at = ? WHERE run_id = ? AND {HELD}",
            (*outcome, conversation.run_id, *conversation.lease.params()),
        )


def _conversation(row: Any, user: str, run: str) -> Conversation:
    pending = Approval.from_json(row["pending"])
    return Conversation(row["id"], user, run, 0, row["run_id"], row["state"], row["answer"], pending)
