"""The official `a2a-sdk` client against the served agent, for the tests: `A2A(agent, "alice")` is alice's
client (her API key as the bearer token), and each call runs to its end in a fresh event loop, so that
the tests stay plain functions."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
from a2a.client import ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    SubscribeToTaskRequest,
    Task,
)
from google.protobuf.json_format import MessageToDict

from tests.support.serve_support import ServedAgent


def message(words: str, task: Task | None = None, context_id: str = "", message_id: str = "") -> Message:
    return Message(
        message_id=message_id or uuid.uuid4().hex,
        role=Role.ROLE_USER,
        parts=[Part(text=words)],
        task_id=task.id if task else "",
        context_id=task.context_id if task else context_id,
    )


class A2A:
    def __init__(self, agent: ServedAgent, user: str, streaming: bool = False, polling: bool = False) -> None:
        """`polling`: a message's answer is its task as soon as it is made (`return_immediately`)."""
        self.url, self.key, self.streaming, self.polling = agent.url, agent.keys[user], streaming, polling

    async def _call(self, act: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(headers=headers, timeout=60) as http:
            config = ClientConfig(streaming=self.streaming, polling=self.polling, httpx_client=http)
            client = await create_client(self.url, config)
            return await act(client)

    def run(self, act: Any) -> Any:
        return asyncio.run(self._call(act))

    def send(self, words: str, task: Task | None = None, **where: str) -> list[StreamResponse]:
        """Every response to one message: the task (plain), or the stream's events."""
        request = SendMessageRequest(message=message(words, task, **where))

        async def act(client: Any) -> list[StreamResponse]:
            return [event async for event in client.send_message(request)]

        return self.run(act)

    def send_message(self, sent: Message) -> Task:
        """The task that answers one message, sent exactly as given."""

        async def act(client: Any) -> list[StreamResponse]:
            return [event async for event in client.send_message(SendMessageRequest(message=sent))]

        [response] = self.run(act)
        return response.task

    def task(self, words: str, task: Task | None = None, **where: str) -> Task:
        [response] = self.send(words, task, **where)
        return response.task

    def get(self, task_id: str) -> Task:
        return self.run(lambda client: client.get_task(GetTaskRequest(id=task_id)))

    def list(self, **filters: Any) -> Any:
        return self.run(lambda client: client.list_tasks(ListTasksRequest(**filters)))

    def cancel(self, task_id: str) -> Task:
        return self.run(lambda client: client.cancel_task(CancelTaskRequest(id=task_id)))

    def subscribe(self, task_id: str) -> list[StreamResponse]:
        async def act(client: Any) -> list[StreamResponse]:
            return [event async for event in client.subscribe(SubscribeToTaskRequest(id=task_id))]

        return self.run(act)


def text_of(parts: Any) -> str:
    return "".join(part.text for part in parts)


def data_of(parts: Any) -> list[dict[str, Any]]:
    return [MessageToDict(part)["data"] for part in parts if part.HasField("data")]


def metadata(task: Task) -> dict[str, Any]:
    return json.loads(json.dumps(MessageToDict(task.metadata)))
