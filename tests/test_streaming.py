"""Streamed answers: text as it arrives, tool-call deltas assembled whatever the provider's habit."""

from __future__ import annotations

import json
import time

import pytest

from agent.agent import ChatAgent
from agent.config import Settings
from agent.guards import envelope_of
from agent.llm.provider import make_llm
from agent.llm.streaming import StreamAssembler, sse_events
from agent.llm_wrapper import parse_response
from agent.tools import ToolRegistry
from agent.types import LLMError
from tests.fake_llm import Reply, call, chunks, streamed, text, tool_calls
from tests.test_agent_loop import Add

BASE = {"id": "s", "model": "m"}


def assembled(*deltas: dict, finish: str | None = "tool_calls") -> dict:
    assembler = StreamAssembler()
    for delta in deltas:
        assembler.add({**BASE, "choices": [{"index": 0, "delta": delta}]})
    if finish:
        assembler.add({**BASE, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return assembler.body()


def calls_of(body: dict) -> list[tuple]:
    message = parse_response(body)
    return [(c["id"], c["name"], c["args"]) for c in message.tool_calls]


def test_sse_lines():
    lines = [
        ": keep-alive",
        "",
        'data: {"a": 1}',
        "data: not json",
        'data: {"b": 2}',
        "data: [DONE]",
        'data: {"c": 3}',
    ]
    assert list(sse_events(lines)) == [{"a": 1}, {"b": 2}]


def test_deltas_joined_by_index_even_interleaved():
    body = assembled(
        {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "add", "arguments": ""}}]},
        {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "add", "arguments": '{"a": 2,'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1, "b": 1}'}}]},
        {"tool_calls": [{"index": 1, "function": {"arguments": ' "b": 2}'}}]},
    )
    assert calls_of(body) == [("a", "add", {"a": 1, "b": 1}), ("b", "add", {"a": 2, "b": 2})]


def test_no_index_name_and_arguments_in_separate_entries():
    body = assembled(
        {"tool_calls": [{"id": "a", "function": {"name": "add"}}]},
        {"tool_calls": [{"function": {"arguments": '{"a": 1,'}}]},
        {"tool_calls": [{"function": {"arguments": ' "b": 1}'}}]},
        {"tool_calls": [{"id": "b", "function": {"name": "add", "arguments": '{"a": 3, "b": 3}'}}]},
    )
    assert calls_of(body) == [("a", "add", {"a": 1, "b": 1}), ("b", "add", {"a": 3, "b": 3})]


def test_all_arguments_in_the_first_chunk_and_repeated_at_the_end():
    whole = '{"a": 5, "b": 6}'
    body = assembled(
        {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "add", "arguments": whole}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": whole}}]},
    )
    assert calls_of(body) == [("a", "add", {"a": 5, "b": 6})]


def test_a_stream_ending_inside_the_arguments_runs_nothing():
    body = assembled(
        {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "add", "arguments": '{"a": 5'}}]},
        finish=None,
    )
    message = parse_response(body)
    assert message.tool_calls == []
    assert message.invalid_tool_calls[0]["error"].startswith("the reply was cut off inside the arguments")


@pytest.fixture(params=["wrapper", "chatopenai"])
def streaming_agent(request, fake_llm):
    llm = make_llm(Settings(llm_backend=request.param, llm_model="fake-model"), fake_llm.url, api_key="k")
    registry = ToolRegistry()
    registry.register(Add())
    pieces: list[str] = []
    return ChatAgent(llm, registry, system_prompt="SYS", on_text=pieces.append), pieces


def test_text_streams_in_pieces(streaming_agent, fake_llm):
    agent, pieces = streaming_agent
    fake_llm.add(streamed(text("Hello there, 你好, how are you today?")))
    assert agent.send_message("hi") == "Hello there, 你好, how are you today?"
    assert len(pieces) >= 3 and "".join(pieces) == "Hello there, 你好, how are you today?"
    assert fake_llm.requests[0]["stream"] is True


def test_a_streamed_tool_call_runs_and_answers_with_its_id(streaming_agent, fake_llm):
    agent, _ = streaming_agent
    fake_llm.add(streamed(tool_calls(call("add", {"a": 20, "b": 22}, "call_s1"))), streamed(text("42")))
    assert agent.send_message("20+22?") == "42"
    result = fake_llm.requests[1]["messages"][-1]
    assert (result["tool_call_id"], envelope_of(result["content"])) == ("call_s1", {"ok": True, "data": 42})


def test_a_broken_stream_inside_the_arguments_is_an_error_for_the_model(streaming_agent, fake_llm):
    agent, _ = streaming_agent
    events = chunks(tool_calls(call("add", {"a": 20, "b": 22}, "call_s1")))[:3]  # head + one argument piece
    fake_llm.add(Reply({}, events=events, done=False), streamed(text("sorry")))
    assert agent.send_message("20+22?") == "sorry"
    result = fake_llm.requests[1]["messages"][-1]
    assert result["tool_call_id"] == "call_s1"
    assert "cut off inside the arguments" in envelope_of(result["content"])["error"]


def test_a_server_that_ignores_stream_still_works(fake_llm):
    pieces: list[str] = []
    agent = ChatAgent(make_llm(Settings(), fake_llm.url), ToolRegistry(), on_text=pieces.append)
    fake_llm.add(text("plain JSON"))
    assert agent.send_message("hi") == "plain JSON"
    assert json.dumps(fake_llm.requests[0]).count('"stream": true') == 1


def test_an_empty_stream_falls_back_to_a_plain_request(fake_llm):
    pieces: list[str] = []
    agent = ChatAgent(make_llm(Settings(), fake_llm.url), ToolRegistry(), on_text=pieces.append)
    fake_llm.add(Reply({}, events=[]), text("asked plainly"))
    assert agent.send_message("hi") == "asked plainly"
    assert [r.get("stream") for r in fake_llm.requests] == [True, None]


def test_line_separators_inside_the_json_survive(fake_llm):
    pieces: list[str] = []
    agent = ChatAgent(make_llm(Settings(), fake_llm.url), ToolRegistry(), on_text=pieces.append)
    fake_llm.add(streamed(text("line one\u2028line two\u0085end")))
    assert agent.send_message("hi") == "line one\u2028line two\u0085end"


def test_malformed_chunks_are_skipped_and_error_events_reported():
    assembler = StreamAssembler()
    for chunk in [
        {"choices": [None, {"delta": "x"}]},
        {"choices": [{"delta": {"tool_calls": [None, {"index": 0, "function": "add"}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "add", "arguments": 5}}]}}]},
        {"choices": "nope"},
    ]:
        assembler.add(chunk)
    assert assembler.body()["choices"][0]["message"]["tool_calls"][0]["function"] == {
        "name": "add",
        "arguments": "5",
    }
    with pytest.raises(LLMError, match="reported an error mid-stream"):
        assembler.add({"error": {"message": "overloaded"}})


def test_a_trickling_stream_is_cut_at_the_timeout(fake_llm):
    llm = make_llm(Settings(llm_timeout=1), fake_llm.url)
    events = [{"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": "."}}]}] * 300
    fake_llm.add(Reply({}, events=events))
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not finish its answer in time"):
        ChatAgent(llm, ToolRegistry(), on_text=lambda piece: None).send_message("hi")
    assert time.monotonic() - started < 2.5
