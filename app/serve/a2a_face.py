"""The A2A face (protocol 1.0, the official `a2a-sdk`): the agent card at `/.well-known/agent-card.json` and
the JSON-RPC binding at `POST /a2a`, where each task is one of our served turns for the person its API key
signs in.

A task's context is a conversation of the person's (an A2A context id names it as an AG-UI thread id does,
and a conversation of the OpenAI face is named by its id), so the same conversation goes on on any face.
A message on a task runs in its task's conversation; one sent again finds its task (a2a_placing.py).
A call that waits for the person's approval leaves the task `input-required`; their "yes" or "no", sent
as a message on that task, runs or refuses that call, and the task ends as its turn does. Words in any
other task answer no approval. The tasks are kept in the agent's database (a2a_store.py).
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any

from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.context import ServerCallContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import add_a2a_routes_to_fastapi, create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    SendMessageRequest,
    SubscribeToTaskRequest,
    Task,
    TaskState,
)
from a2a.utils.errors import (
    ContentTypeNotSupportedError,
    InvalidParamsError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from fastapi import FastAPI, Request
from starlette.authentication import SimpleUser
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response
from starlette.routing import Route

from app.serve.a2a_card import RPC_PATH, agent_card, for_base
from app.serve.a2a_placing import context_builder, place
from app.serve.a2a_store import RUNNING, A2ATaskStore, agent_says, outcome, owner, shown_approval
from app.serve.admitted import TurnRequest
from app.serve.approvals import answer_in
from app.serve.conversations import Where
from app.serve.errors import Cancelled, RequestError, Unauthorized, answer, describe
from app.serve.events import CallAnswered, CallMade, Failed, Finished
from app.serve.service import Service, signed_in
from app.serve.streams import start_turn

MAX_MESSAGE_CHARS = 100_000  # the words of one message; the body gate holds the whole request to 1 MiB
POLL_SECONDS = 0.3  # how often a subscription to a task another worker runs looks at it again
ENDED = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_FAILED}
ENDED |= {TaskState.TASK_STATE_REJECTED}
PAUSED = {TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}
_base_url: contextvars.ContextVar[str] = contextvars.ContextVar("a2a_base_url", default="")


def mount(app: FastAPI, service: Service) -> None:
    """Serve the A2A face of `service` on `app`."""
    card = agent_card(service.host.registry)
    store = A2ATaskStore(service.turns.store.db)
    handler = Handler(
        TurnExecutor(service),
        store,
        card,
        request_context_builder=context_builder(),
        interrupted_task_timeout=service.limits.approval_seconds,
    )
    handler.service, handler.tasks = service, store
    card_routes = create_agent_card_routes(card, card_modifier=_at_base)
    rpc_routes = create_jsonrpc_routes(handler, RPC_PATH)
    add_a2a_routes_to_fastapi(
        app,
        agent_card_routes=[_wrapped(route, _with_base) for route in card_routes],
        jsonrpc_routes=[_wrapped(route, _signed) for route in rpc_routes],
    )


Endpoint = Callable[[Request], Awaitable[Response]]


def _wrapped(route: Any, gate: Callable[[Endpoint], Endpoint]) -> Route:
    return Route(route.path, gate(route.endpoint), methods=sorted(route.methods - {"HEAD"}))


def _with_base(endpoint: Endpoint) -> Endpoint:
    async def card(request: Request) -> Response:
        _base_url.set(str(request.base_url))
        return await endpoint(request)

    return card


async def _at_base(card: AgentCard) -> AgentCard:
    return for_base(card, _base_url.get()) if _base_url.get() else card


def _signed(endpoint: Endpoint) -> Endpoint:
    """The SDK's endpoint behind our API keys: the person a key signs in is the request's user, which the
    SDK's context builder hands on to the handler and the executor (a 401 without a good key)."""

    async def rpc(request: Request) -> Response:
        try:
            user = await signed_in(request)
        except Unauthorized as e:
            return answer(e)
        request.scope["user"] = SimpleUser(user)
        return await endpoint(request)

    return rpc


def checked(params: SendMessageRequest) -> str:
    """The words of a message, or a JSON-RPC error before anything is written: text parts only, not empty,
    not over MAX_MESSAGE_CHARS."""
    for i, part in enumerate(params.message.parts):
        if part.WhichOneof("content") != "text":
            kind = part.WhichOneof("content") or "empty"
            raise ContentTypeNotSupportedError(
                message=f"message.parts[{i}] is {kind}: only text parts are read"
            )
    words = "\n".join(part.text for part in params.message.parts)
    if not words.strip():
        raise InvalidParamsError(message="the message has no words: send a text part")
    if len(words) > MAX_MESSAGE_CHARS:
        raise InvalidParamsError(
            message=f"the message is {len(words)} characters; at most {MAX_MESSAGE_CHARS}"
        )
    return words


class Handler(DefaultRequestHandler):
    """The SDK's request handler, which first checks a message (checked) and places it (a2a_placing.py),
    answers a message sent again with its task, stops a cancelled task's turn wherever it runs, and
    follows a task another worker runs from the store."""

    service: Service
    tasks: A2ATaskStore

    async def on_message_send(self, params: SendMessageRequest, context: ServerCallContext) -> Any:
        checked(params)
        sent = await place(params, context, self.tasks, self.service.turns.store)
        if sent is None:
            return await super().on_message_send(params, context)
        async for task in self._followed(sent, context):
            sent = task
        return sent

    async def on_message_send_stream(
        self, params: SendMessageRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        checked(params)
        sent = await place(params, context, self.tasks, self.service.turns.store)
        if sent is not None:
            async for task in self._followed(sent, context):
                yield task
            return
        async for event in super().on_message_send_stream(params, context):
            yield event

    async def on_cancel_task(self, params: CancelTaskRequest, context: ServerCallContext) -> Task | None:
        task = await self.tasks.get(params.id, context)
        if task is not None and task.status.state in RUNNING:
            conversation = task.metadata.fields.get("conversation_id")
            if conversation is not None:  # the turn stops before its next call, on whichever worker runs it
                await run_in_threadpool(
                    self.service.turns.store.cancel, owner(context), conversation.string_value
                )
        return await super().on_cancel_task(params, context)

    async def on_subscribe_to_task(
        self, params: SubscribeToTaskRequest, context: ServerCallContext
    ) -> AsyncGenerator[Any, None]:
        """The task now, then as it changes, to its end or until it waits for the person: read from the
        store, so that any worker follows a task any worker (or a restart) runs."""
        task = await self.tasks.get(params.id, context)
        if task is None:
            raise TaskNotFoundError
        if task.status.state in ENDED:
            raise UnsupportedOperationError(
                message=f"task {params.id} has ended: {TaskState.Name(task.status.state)}"
            )
        async for now in self._followed(task, context):
            yield now

    async def _followed(self, task: Task, context: ServerCallContext) -> AsyncGenerator[Task, None]:
        """`task`, then as it changes in the store, to its end or until it waits for the person."""
        yield task
        give_up_at = asyncio.get_running_loop().time() + 2 * self.service.limits.turn_seconds
        while task.status.state not in ENDED | PAUSED and asyncio.get_running_loop().time() < give_up_at:
            await asyncio.sleep(POLL_SECONDS)
            now = await self.tasks.get(task.id, context)
            if now is not None and now != task:
                task = now
                yield task


class TurnExecutor(AgentExecutor):
    """Runs a task's message as one served turn of the person's, in the task's conversation: on a task
    that asked for approval, a yes or no answers the approval it showed (by its id), nothing else."""

    def __init__(self, service: Service) -> None:
        self.service = service

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.message is not None and context.task_id
        words = "\n".join(part.text for part in context.message.parts)
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        turn = self._turn(context, task, words)
        served = self.service
        try:
            bridge, started = await start_turn(served.turns, served.threads, turn)
        except RequestError as e:
            await updater.failed(agent_says(task, describe(e)[3]))
            return
        run = {"conversation_id": started.conversation_id, "run_id": started.run_id}
        await updater.update_status(TaskState.TASK_STATE_WORKING, metadata=run)
        if turn.approval is not None and not turn.approval[1]:  # said in the history, not as the end
            said = "The person refused the call that waited for approval; it did not run."
            await updater.update_status(TaskState.TASK_STATE_WORKING, agent_says(task, said))
        async for event in bridge.events():
            await self._tell(updater, task, event)

    @staticmethod
    def _turn(context: RequestContext, task: Task, words: str) -> TurnRequest:
        """The turn a message asks for: in the task's conversation, keyed by the message's id; on a task
        that shows an approval, a yes or no is the answer to that approval, by its id."""
        assert context.message is not None
        where = Where(thread_id=task.context_id, run_key=context.message.message_id)
        user, shown = owner(context.call_context), shown_approval(task)
        said = answer_in(words) if shown else None
        if shown and said is not None:
            return TurnRequest(user, None, where, approval=(shown, said), answers_in_words=False)
        return TurnRequest(user, words, where, answers_in_words=False)

    async def _tell(self, updater: TaskUpdater, task: Task, event: Any) -> None:
        if isinstance(event, CallMade):
            call = {"id": event.id, "name": event.name, "arguments": event.arguments}
            await updater.update_status(
                TaskState.TASK_STATE_WORKING, agent_says(task, "", {"tool_call": call})
            )
        elif isinstance(event, CallAnswered):
            result = {"id": event.id, "name": event.name, "result": event.envelope}
            await updater.update_status(
                TaskState.TASK_STATE_WORKING, agent_says(task, "", {"tool_result": result})
            )
        elif isinstance(event, Finished):
            state = "awaiting" if event.pending else "done"
            await self._end(updater, outcome(task, state, event.answer, event.pending))
        elif isinstance(event, Failed):
            state = "cancelled" if isinstance(event.error, Cancelled) else "failed"
            await self._end(updater, outcome(task, state, describe(event.error)[3]))

    @staticmethod
    async def _end(updater: TaskUpdater, ended: Task) -> None:
        for artifact in ended.artifacts:
            await updater.add_artifact(list(artifact.parts), artifact.artifact_id, artifact.name)
        message = ended.status.message if ended.status.HasField("message") else None
        await updater.update_status(ended.status.state, message)

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """The handler has asked the turn to stop (Handler.on_cancel_task); the task says it stopped."""
        assert context.task_id and context.context_id
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        task = context.current_task or Task(id=context.task_id, context_id=context.context_id)
        await updater.cancel(
            agent_says(task, "cancelled: the turn stops before its next call; what it did is kept")
        )
