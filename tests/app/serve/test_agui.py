"""The AG-UI face of `main.py serve --workers 4`, on SQLite and on Postgres: RunAgentInput in, the
protocol's events out (read back as `ag-ui-protocol` types); a delete is an interrupt the client answers
with `resume`; a thread is its user's; a retried run is answered once."""

from __future__ import annotations

import json

import requests
from ag_ui.core import (
    AssistantMessage,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    Tool,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)

from tests.support.fake_llm import call, streamed, text, tool_calls
from tests.support.serve_support import agui_run, devices


def run_input(thread: str, run: str, *messages, **fields) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread,
        run_id=run,
        messages=list(messages),
        state={},
        tools=[],
        context=[],
        forwarded_props={},
        **fields,
    )


def said(events) -> str:
    return "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))


def test_a_run_streams_the_protocols_events_for_calls_results_and_text(agent):
    agent.llm.add(
        tool_calls(call("add_device_model", {"model": "CPH2250"}, "c1")), streamed(text("Added CPH2250."))
    )
    events = agui_run(agent, "alice", run_input("t-add", "r1", UserMessage(id="u1", content="add CPH2250")))
    assert [e.type.value for e in events] == [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "TEXT_MESSAGE_START",
        *["TEXT_MESSAGE_CONTENT"] * (len(events) - 8),
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    started, start, args, result = events[0], events[1], events[2], events[4]
    assert isinstance(started, RunStartedEvent) and (started.thread_id, started.run_id) == ("t-add", "r1")
    assert isinstance(start, ToolCallStartEvent) and (start.tool_call_id, start.tool_call_name) == (
        "c1",
        "add_device_model",
    )
    assert isinstance(args, ToolCallArgsEvent) and json.loads(args.delta) == {"model": "CPH2250"}
    assert (
        isinstance(result, ToolCallResultEvent) and json.loads(result.content)["data"]["createdBy"] == "alice"
    )
    assert isinstance(result.metadata["durationMs"], int)  # how long the call ran, for a page's card
    assert said(events) == "Added CPH2250."
    assert isinstance(events[-1], RunFinishedEvent) and events[-1].outcome.type == "success"
    assert ("CPH2250", "alice") in devices(agent.database)


def test_a_delete_is_an_interrupt_and_runs_when_the_client_resumes_with_approval(agent):
    agent.llm.add(tool_calls(call("add_device_model", {"model": "V2227A"}, "a1")), text("Added."))
    first = UserMessage(id="u1", content="add V2227A")
    agui_run(agent, "alice", run_input("t-del", "r1", first))
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "V2227A"}, "d1")))
    delete = UserMessage(id="u2", content="delete V2227A")
    history = [first, AssistantMessage(id="a1", content="Added."), delete]
    paused = agui_run(agent, "alice", run_input("t-del", "r2", *history))
    outcome = paused[-1].outcome
    assert isinstance(paused[-1], RunFinishedEvent) and outcome.type == "interrupt"
    [interrupt] = outcome.interrupts
    assert (interrupt.reason, interrupt.tool_call_id) == ("tool_approval", "d1")
    assert interrupt.response_schema["properties"]["approved"]["type"] == "boolean" and interrupt.expires_at
    assert 'delete_device_model({"model": "V2227A"})' in interrupt.message
    assert not [e for e in paused if isinstance(e, ToolCallResultEvent)]
    assert ("V2227A", "alice") in devices(agent.database)
    agent.llm.add(text("Deleted V2227A."))
    approve = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    resumed = agui_run(agent, "alice", run_input("t-del", "r3", *history, resume=[approve]))
    [result] = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert result.tool_call_id == "d1" and json.loads(result.content)["data"]["deleted"] is True
    assert said(resumed) == "Deleted V2227A." and resumed[-1].outcome.type == "success"
    assert "V2227A" not in [model for model, _ in devices(agent.database)]


def test_a_cancelled_interrupt_refuses_the_call(agent):
    agent.llm.add(tool_calls(call("add_device_model", {"model": "PHA120"}, "a1")), text("Added."))
    agui_run(agent, "alice", run_input("t-keep", "r1", UserMessage(id="u1", content="add PHA120")))
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "PHA120"}, "d1")))
    paused = agui_run(
        agent, "alice", run_input("t-keep", "r2", UserMessage(id="u2", content="delete PHA120"))
    )
    agent.llm.add(text("Kept it."))
    cancel = ResumeEntry(interrupt_id=paused[-1].outcome.interrupts[0].id, status="cancelled")
    resumed = agui_run(agent, "alice", run_input("t-keep", "r3", resume=[cancel]))
    [result] = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert json.loads(result.content)["error"].startswith("the person refused")
    assert ("PHA120", "alice") in devices(agent.database)


def test_a_thread_is_its_users_and_a_retried_run_is_answered_once(agent):
    agent.llm.add(text("alice's answer"), text("bob's answer"))
    alice = agui_run(
        agent, "alice", run_input("shared-name", "r1", UserMessage(id="u1", content="secret plan"))
    )
    bob = agui_run(agent, "bob", run_input("shared-name", "r1", UserMessage(id="u1", content="hello")))
    assert (said(alice), said(bob)) == ("alice's answer", "bob's answer")
    assert [m.get("content") for m in agent.llm.requests[1]["messages"][1:]] == ["hello"]
    again = agui_run(
        agent, "alice", run_input("shared-name", "r1", UserMessage(id="u1", content="secret plan"))
    )
    assert said(again) == "alice's answer" and len(agent.llm.requests) == 2


def test_a_run_that_brings_its_own_tools_or_no_input_is_a_400(agent):
    with_tools = run_input("t", "r", UserMessage(id="u", content="hi"))
    with_tools.tools = [Tool(name="confirm", description="ask", parameters={"type": "object"})]
    headers = {"Authorization": f"Bearer {agent.keys['bob']}"}
    body = with_tools.model_dump(mode="json", by_alias=True)
    refused = requests.post(f"{agent.url}/agui", json=body, headers=headers, timeout=30)
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "tools_not_supported")
    broken = requests.post(f"{agent.url}/agui", json={"threadId": "t"}, headers=headers, timeout=30)
    assert broken.status_code == 400 and "RunAgentInput" in broken.json()["error"]["message"]
    assert requests.post(f"{agent.url}/agui", json=body, timeout=30).status_code == 401
    assert agent.llm.requests == []
