"""The AG-UI face: `POST /agui` takes AG-UI's RunAgentInput and streams the run as AG-UI events, built
with the official `ag-ui-protocol` types, so AG-UI front ends can drive the agent.

A thread is the user's conversation of that name (another user's thread of the same name is another
conversation). The client's messages for a new thread are its history; after that, only its last user
message is new. A call that waits for approval ends the run with an interrupt (`RUN_FINISHED`, outcome
`interrupt`); the client answers it with `resume: [{interruptId, status, payload: {approved}}]`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Annotated, Any

from ag_ui.core import (
    Interrupt,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from ag_ui.core.events import BaseEvent
from ag_ui.encoder import EventEncoder
from fastapi import APIRouter, Depends, Request
from pydantic import ValidationError

from agent.guards import safe
from app.serve.admitted import TurnRequest
from app.serve.approvals import Approval
from app.serve.conversations import Where
from app.serve.errors import RequestError, describe
from app.serve.events import CallAnswered, CallMade, Event, Failed, Finished, Started, Text
from app.serve.history import content_text, from_client
from app.serve.service import Service, service, signed_in
from app.serve.streams import EventStream, start_turn

router = APIRouter()
APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean", "description": "run the call (true) or refuse it"}},
    "required": ["approved"],
}


@router.post("/agui", response_model=None)
async def agui(request: Request, user: Annotated[str, Depends(signed_in)]) -> Any:
    try:
        run = RunAgentInput.model_validate_json(await request.body())
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RequestError(f"not an AG-UI RunAgentInput: {where}: {first['msg']}", param=where) from None
    served: Service = service(request)
    bridge, started = await start_turn(served.turns, served.threads, turn_request(run, user))
    encoder = EventEncoder(accept=request.headers.get("accept", "text/event-stream"))
    return EventStream(bridge, started, AguiEvents(run, encoder), served.limits.send_seconds)


def turn_request(run: RunAgentInput, user: str) -> TurnRequest:
    if run.tools:
        raise RequestError(
            "this agent runs its own tools; a run may not bring tools", "tools_not_supported", "tools"
        )
    where = Where(thread_id=run.thread_id[:200], run_key=run.run_id[:200])
    if run.resume:
        entry = run.resume[0]
        payload = entry.payload if isinstance(entry.payload, dict) else {"approved": entry.payload}
        approved = entry.status == "resolved" and payload.get("approved") is True
        return TurnRequest(user, None, where, approval=(entry.interrupt_id, approved))
    messages = [m.model_dump(exclude_none=True) for m in run.messages]
    if not messages or messages[-1].get("role") != "user":
        raise RequestError("the last message must be the person's (role user), or `resume` an interrupt")
    message = content_text(messages[-1].get("content"), len(messages) - 1)
    return TurnRequest(user, message, where, from_client(messages[:-1]))


class AguiEvents:
    """A turn's events as AG-UI events, encoded: text in messages that open and close around tool calls."""

    def __init__(self, run: RunAgentInput, encoder: EventEncoder) -> None:
        self.run, self.encoder = run, encoder
        self.message_id: str | None = None  # the text message open now

    def __call__(self, event: Event) -> Iterator[str]:
        for agui_event in self._events(event):
            yield self.encoder.encode(agui_event)

    def _events(self, event: Event) -> Iterator[BaseEvent]:
        if isinstance(event, Started):
            yield RunStartedEvent(thread_id=self.run.thread_id, run_id=self.run.run_id)
        elif isinstance(event, Text) and event.delta:
            if self.message_id is None:
                self.message_id = f"msg_{uuid.uuid4().hex[:16]}"
                yield TextMessageStartEvent(message_id=self.message_id, role="assistant")
            yield TextMessageContentEvent(message_id=self.message_id, delta=safe(event.delta))
        elif isinstance(event, CallMade):
            yield from self._close_text()
            yield ToolCallStartEvent(tool_call_id=event.id, tool_call_name=event.name)
            if event.arguments:
                yield ToolCallArgsEvent(tool_call_id=event.id, delta=event.arguments)
            yield ToolCallEndEvent(tool_call_id=event.id)
        elif isinstance(event, CallAnswered):
            message_id = f"msg_{uuid.uuid4().hex[:16]}"
            took = None if event.duration_ms is None else {"durationMs": event.duration_ms}
            yield ToolCallResultEvent(
                message_id=message_id,
                tool_call_id=event.id,
                content=event.content(),
                role="tool",
                metadata=took,  # how long the call ran, for a page's card
            )
        elif isinstance(event, Finished | Failed):
            yield from self._close_text()
            yield self._end(event)

    def _close_text(self) -> Iterator[BaseEvent]:
        if self.message_id is not None:
            yield TextMessageEndEvent(message_id=self.message_id)
            self.message_id = None

    def _end(self, event: Finished | Failed) -> BaseEvent:
        if isinstance(event, Failed):
            _, _, code, message = describe(event.error)
            return RunErrorEvent(message=message, code=code)
        outcome = interrupt(event.pending) if event.pending else RunFinishedSuccessOutcome()
        result = {"conversation_id": event.conversation_id}
        return RunFinishedEvent(
            thread_id=self.run.thread_id, run_id=self.run.run_id, result=result, outcome=outcome
        )


def interrupt(approval: Approval) -> RunFinishedInterruptOutcome:
    return RunFinishedInterruptOutcome(
        interrupts=[
            Interrupt(
                id=approval.id,
                reason="tool_approval",
                message=approval.question(),
                tool_call_id=approval.call_id,
                response_schema=APPROVAL_SCHEMA,
                expires_at=approval.expires_iso(),
                metadata={"name": approval.name, "arguments": approval.arguments},
            )
        ]
    )
