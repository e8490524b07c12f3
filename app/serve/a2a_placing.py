"""Where an A2A message goes, before the SDK runs it: a message that names its task runs in that task's
context, whatever it omits; a message that names neither task nor context is keyed on (person, its
messageId), so that sending it again finds the same task and conversation — on any server, after a
restart — instead of starting a second run.

The SDK makes the ids of a new task; `KeyedIds` hands it the keyed ones for the request that asked.
"""

from __future__ import annotations

import hashlib
import uuid
from contextvars import ContextVar

from a2a.server.agent_execution import SimpleRequestContextBuilder
from a2a.server.context import ServerCallContext
from a2a.server.id_generator import IDGenerator, IDGeneratorContext
from a2a.types.a2a_pb2 import SendMessageRequest, Task
from starlette.concurrency import run_in_threadpool

from app.serve.a2a_store import A2ATaskStore, owner
from app.serve.conversations import ConversationStore

_keyed: ContextVar[tuple[str, str] | None] = ContextVar("a2a_keyed_ids", default=None)


class KeyedIds(IDGenerator):
    """The id of a new task (or of its context): the keyed one, when this request's message was keyed."""

    def __init__(self, which: int) -> None:
        self.which = which  # 0: the task's id, 1: its context's

    def generate(self, context: IDGeneratorContext) -> str:
        keyed = _keyed.get()
        return keyed[self.which] if keyed else str(uuid.uuid4())


def context_builder() -> SimpleRequestContextBuilder:
    return SimpleRequestContextBuilder(task_id_generator=KeyedIds(0), context_id_generator=KeyedIds(1))


async def place(
    params: SendMessageRequest, context: ServerCallContext, tasks: A2ATaskStore, store: ConversationStore
) -> Task | None:
    """Fill in what the message omits; the task it was sent for already, when it is a re-send."""
    message = params.message
    if message.task_id and not message.context_id:
        named = await tasks.get(message.task_id, context)
        if named is not None:  # (else the SDK says there is no such task)
            message.context_id = named.context_id
        return None
    if message.task_id or message.context_id or not message.message_id:
        return None
    thread = await run_in_threadpool(store.keyed_thread, owner(context), message.message_id)
    task_id = "task_" + hashlib.sha256(thread.encode()).hexdigest()[:32]
    sent = await tasks.get(task_id, context)
    if sent is None:
        _keyed.set((task_id, thread))  # this request's new task takes the keyed ids
    return sent
