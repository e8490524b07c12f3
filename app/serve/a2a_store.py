"""TaskStore: the A2A face's tasks in the agent's own database (the `a2a_tasks` table, SQLite or Postgres),
each its person's, through the official SDK's `TaskStore` interface; and what a task says when its turn
ends (`outcome`), the same whether its executor says it or the store does.

The turn a task runs is the conversation's (turns.py): the conversation is the one record of what the turn
did and how it ended. A task whose turn ended with no executor to tell it — the server died mid-turn and a
restart finished the turn — is settled from the conversation when it is next read.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.tasks import TaskStore
from a2a.types.a2a_pb2 import (
    Artifact,
    ListTasksRequest,
    ListTasksResponse,
    Message,
    Part,
    Role,
    Task,
    TaskState,
    TaskStatus,
)
from a2a.utils.errors import InvalidParamsError
from google.protobuf.json_format import MessageToDict, MessageToJson, Parse, ParseDict
from google.protobuf.struct_pb2 import Value
from langchain_core.messages import AIMessage, messages_from_dict

from agent.guards import safe
from app.serve.approvals import Approval
from plumbing.sql import Database

PAGE_SIZE = 50
RUNNING = (TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING)
SAVE = (
    "INSERT INTO a2a_tasks (id, user_id, context_id, state, updated_at, task) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at, "
    "task = excluded.task WHERE a2a_tasks.user_id = excluded.user_id"
)


def owner(context: ServerCallContext) -> str:
    """The person a request is signed in as (the host put it there from the API key: a2a_face.py)."""
    return context.user.user_name


def agent_says(task: Task, text: str, data: dict[str, Any] | None = None) -> Message:
    parts = [Part(text=safe(text))] if text else []
    parts += [Part(data=ParseDict(data, Value()))] if data else []
    return Message(
        message_id=f"{task.id}-{time.time_ns()}",
        role=Role.ROLE_AGENT,
        parts=parts,
        context_id=task.context_id,
    )


def outcome(task: Task, state: str, answer: str | None, pending: Approval | None = None) -> Task:
    """`task` as its turn ended, by the conversation's state: done (the answer is the task's artifact
    `answer`), awaiting (the person is asked), cancelled or failed (`answer`: what it says)."""
    ended = Task()
    ended.CopyFrom(task)
    ended.status.Clear()
    if state == "done":
        del ended.artifacts[:]
        ended.artifacts.append(
            Artifact(artifact_id="answer", name="answer", parts=[Part(text=safe(answer or ""))])
        )
        ended.status.state = TaskState.TASK_STATE_COMPLETED
    elif state == "awaiting" and pending is not None:
        asks = agent_says(task, pending.question(), {"pending_approval": pending.public()})
        ended.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_INPUT_REQUIRED, message=asks))
    elif state == "cancelled":
        said = agent_says(task, answer or "the turn was cancelled; what it did is kept")
        ended.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_CANCELED, message=said))
    else:
        said = agent_says(
            task, answer or "the turn failed before it answered; send the message again to go on"
        )
        ended.status.CopyFrom(TaskStatus(state=TaskState.TASK_STATE_FAILED, message=said))
    ended.status.timestamp.GetCurrentTime()
    return ended


def shown_approval(task: Task) -> str | None:
    """The id of the approval `task` waits for, as it showed it (None: it waits for none)."""
    if task.status.state != TaskState.TASK_STATE_INPUT_REQUIRED or not task.status.HasField("message"):
        return None
    for part in task.status.message.parts:
        if part.HasField("data"):
            shown = MessageToDict(part.data).get("pending_approval")
            if isinstance(shown, dict) and isinstance(shown.get("id"), str):
                return shown["id"]
    return None


class A2ATaskStore(TaskStore):
    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db, self.clock = db, clock

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await asyncio.to_thread(self._save, task, owner(context))

    def _save(self, task: Task, user: str) -> None:
        row = (task.id, user, task.context_id, int(task.status.state), self.clock(), MessageToJson(task))
        self.db.write(SAVE, row)

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        return await asyncio.to_thread(self._get, task_id, owner(context))

    def _get(self, task_id: str, user: str) -> Task | None:
        with self.db.reading() as db:
            row = db.execute(
                "SELECT task FROM a2a_tasks WHERE id = ? AND user_id = ?", (task_id[:200], user)
            ).fetchone()
        return None if row is None else self._settled(Parse(row["task"], Task()), user)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        return await asyncio.to_thread(self._list, params, owner(context))

    def _list(self, params: ListTasksRequest, user: str) -> ListTasksResponse:
        start = _offset(params.page_token)
        size = params.page_size or PAGE_SIZE
        where, values = _filters(params, user)
        with self.db.reading() as db:
            total = db.execute(f"SELECT COUNT(*) AS n FROM a2a_tasks WHERE {where}", values).fetchone()["n"]
            rows = db.execute(
                f"SELECT task FROM a2a_tasks WHERE {where} ORDER BY updated_at DESC, id DESC "
                "LIMIT ? OFFSET ?",
                (*values, size, start),
            ).fetchall()
        tasks = [self._settled(Parse(row["task"], Task()), user) for row in rows]
        more = str(start + size) if start + size < total else ""
        return ListTasksResponse(tasks=tasks, next_page_token=more, page_size=size, total_size=total)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        sql = "DELETE FROM a2a_tasks WHERE id = ? AND user_id = ?"
        await asyncio.to_thread(self.db.write, sql, (task_id, owner(context)))

    def _settled(self, task: Task, user: str) -> Task:
        """The task, settled from its conversation when its turn ended with nobody to tell it."""
        run = dict(MessageToDict(task.metadata)) if task.HasField("metadata") else {}
        if task.status.state not in RUNNING or "run_id" not in run:
            return task
        with self.db.reading() as db:
            row = db.execute(
                "SELECT run_id, state, answer, pending FROM conversations WHERE id = ? AND user_id = ?",
                (run.get("conversation_id"), user),
            ).fetchone()
            if row is None or (row["run_id"] == run["run_id"] and row["state"] == "running"):
                return task
            if row["run_id"] == run["run_id"]:
                ended = outcome(task, row["state"], row["answer"], Approval.from_json(row["pending"]))
            else:  # a later turn began: this one had answered, with its last reply
                ended = outcome(task, "done", _last_reply(db, run), None)
        self._save(ended, user)
        return ended


def _last_reply(db: Any, run: dict[str, Any]) -> str:
    rows = db.execute(
        "SELECT message FROM messages WHERE conversation_id = ? AND run_id = ? ORDER BY seq",
        (run["conversation_id"], run["run_id"]),
    ).fetchall()
    replies = [
        m for m in messages_from_dict([json.loads(r["message"]) for r in rows]) if isinstance(m, AIMessage)
    ]
    return replies[-1].text if replies else ""


def _filters(params: ListTasksRequest, user: str) -> tuple[str, tuple]:
    where, values = ["user_id = ?"], list[Any]([user])
    if params.context_id:
        where.append("context_id = ?")
        values.append(params.context_id)
    if params.status:
        where.append("state = ?")
        values.append(int(params.status))
    return " AND ".join(where), tuple(values)


def _offset(token: str) -> int:
    if not token:
        return 0
    if not token.isdigit() or len(token) > 12:
        raise InvalidParamsError(message=f"not a page token of this server: {token[:50]!r}")
    return int(token)
