"""The OpenAI-compatible face: `POST /v1/chat/completions` (plain and streamed) and `GET /v1/models`, in
the shapes the official `openai` SDK reads, where the model is the agent: the server runs the whole tool
loop and answers.

A request's messages are its history, as OpenAI clients expect; one that names a stored conversation
(`conversation_id`, which every answer carries) continues it from its last message. The calls the agent
ran come as fields OpenAI clients ignore: `agent_tool_calls` in a plain answer, `agent_tool_call` and
`agent_tool_result` chunks (with no choices) in a stream, as they happen. A call that waits for the
person's approval is asked about in the answer and named in `pending_approval`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from agent.guards import safe
from app.serve.admitted import TurnRequest
from app.serve.conversations import Where
from app.serve.errors import AfterCalls, Cancelled, RequestError, describe, error_body
from app.serve.events import CallAnswered, CallMade, Event, Failed, Finished, Started, Text
from app.serve.history import content_text, from_client
from app.serve.service import Service, Signed, service, signed_for_turn, signed_in
from app.serve.streams import EventStream, gather, start_turn

MODEL_ID = "tool-use-agent"
router = APIRouter()


class ApprovalAnswer(BaseModel):
    id: str = Field(max_length=100)
    approved: bool


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens...: the host decides those

    model: str = MODEL_ID
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: bool = False
    stream_options: dict[str, Any] | None = None
    tools: list[Any] | None = None
    functions: list[Any] | None = None
    tool_choice: Any = None
    conversation_id: str | None = Field(None, max_length=100)
    approval: ApprovalAnswer | None = None  # an explicit answer to `pending_approval`, instead of yes/no


@router.get("/v1/models")
async def models(user: Annotated[str, Depends(signed_in)]) -> dict[str, Any]:
    model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "tool-use-agent"}
    return {"object": "list", "data": [model]}


@router.post("/v1/chat/completions", response_model=None)
async def chat_completions(
    body: ChatRequest,
    request: Request,
    signed: Annotated[Signed, Depends(signed_for_turn)],
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> Any:
    served: Service = service(request)
    bridge, started = await start_turn(
        served.turns, served.threads, turn_request(body, signed, idempotency_key)
    )
    if body.stream:
        usage = bool((body.stream_options or {}).get("include_usage"))
        return EventStream(bridge, started, Chunks(started, usage), served.limits.send_seconds)
    events = await gather(request, bridge)
    done = events[-1]
    if isinstance(done, Failed) and isinstance(done.error, Cancelled):  # an answer, which no SDK retries
        events[-1] = Finished(started.conversation_id, started.run_id, str(done.error))
    elif isinstance(done, Failed):
        made_calls = any(isinstance(event, CallMade) for event in events)
        raise AfterCalls(done.error) if made_calls else done.error
    return JSONResponse(completion(events))  # JSON as it is: FastAPI's encoder would walk it again


def turn_request(body: ChatRequest, signed: Signed, idempotency_key: str | None) -> TurnRequest:
    if body.tools or body.functions or body.tool_choice not in (None, "auto", "none"):
        raise RequestError(
            "this agent runs its own tools; a request may not bring tools (tools, functions, tool_choice)",
            "tools_not_supported",
            "tools",
        )
    last = body.messages[-1]
    if body.approval is None and last.get("role") != "user":
        raise RequestError("the last message must be the person's (role user)", param="messages")
    message = (
        content_text(last.get("content"), len(body.messages) - 1) if last.get("role") == "user" else None
    )
    history = from_client(body.messages[:-1]) if body.conversation_id is None else []
    where = Where(conversation_id=body.conversation_id, run_key=idempotency_key)
    approval = (body.approval.id, body.approval.approved) if body.approval else None
    return TurnRequest(signed.user, message, where, history, approval, key_hash=signed.key_hash)


def completion(events: list[Event]) -> dict[str, Any]:
    done = events[-1]
    assert isinstance(done, Finished)
    message = {"role": "assistant", "content": safe(done.answer), "refusal": None}
    return {
        "id": f"chatcmpl-{done.run_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": usage(done.usage),
        "conversation_id": done.conversation_id,
        "agent_tool_calls": tool_calls(events),
        "pending_approval": done.pending.public() if done.pending else None,
    }


def tool_calls(events: list[Event]) -> list[dict[str, Any]]:
    """The calls the turn made or answered (an approved one was made before), each with its result
    (None: not run, e.g. waiting for approval)."""
    entries: dict[str, dict[str, Any]] = {}
    for event in [e for e in events if isinstance(e, CallMade | CallAnswered)]:
        entry = entries.setdefault(event.id, {"id": event.id, "name": event.name, "arguments": None})
        if isinstance(event, CallMade):
            entry.update(arguments=event.arguments, result=None)
        elif isinstance(event, CallAnswered):
            entry["result"] = event.envelope
    return list(entries.values())


def usage(counts: dict[str, int]) -> dict[str, int]:
    prompt, completion_tokens = counts.get("input_tokens", 0), counts.get("output_tokens", 0)
    total = counts.get("total_tokens", 0) or prompt + completion_tokens
    return {"prompt_tokens": prompt, "completion_tokens": completion_tokens, "total_tokens": total}


class Chunks:
    """A turn's events as `chat.completion.chunk` server-sent events."""

    def __init__(self, started: Started, include_usage: bool) -> None:
        self.id, self.created = f"chatcmpl-{started.run_id}", int(time.time())
        self.include_usage = include_usage

    def __call__(self, event: Event) -> Iterator[str]:
        if isinstance(event, Started):
            delta = {"role": "assistant", "content": ""}
            yield self._chunk([_choice(delta)], conversation_id=event.conversation_id)
        elif isinstance(event, Text) and event.delta:
            yield self._chunk([_choice({"content": safe(event.delta)})])
        elif isinstance(event, CallMade):
            yield self._chunk(
                [], agent_tool_call={"id": event.id, "name": event.name, "arguments": event.arguments}
            )
        elif isinstance(event, CallAnswered):
            yield self._chunk(
                [], agent_tool_result={"id": event.id, "name": event.name, "result": event.envelope}
            )
        elif isinstance(event, Finished):
            yield from self._finished(event)
        elif isinstance(event, Failed):
            status, type, code, message = describe(event.error)
            yield _sse(error_body(message, type, code))

    def _finished(self, done: Finished) -> Iterator[str]:
        pending = done.pending.public() if done.pending else None
        yield self._chunk(
            [_choice({}, "stop")], conversation_id=done.conversation_id, pending_approval=pending
        )
        if self.include_usage:
            yield self._chunk([], usage=usage(done.usage))
        yield "data: [DONE]\n\n"

    def _chunk(self, choices: list[dict[str, Any]], **extra: Any) -> str:
        chunk = {"id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": MODEL_ID}
        return _sse({**chunk, "choices": choices, **extra})


def _choice(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"index": 0, "delta": delta, "finish_reason": finish_reason, "logprobs": None}


def _sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"
