"""Streamed answers: text as it arrives, tool-call deltas assembled whatever the provider's habit."""

from __future__ import annotations

import json
import time

import pytest
from langchain_core.messages import AIMessageChunk

from agent.agent import ChatAgent
from agent.config import Settings
from agent.guards import envelope_of
from agent.llm.streaming import StreamAssembler, sse_events
from agent.llm.tool_calls import normalize
from agent.llm_wrapper import CustomLLMWrapper, parse_response
from agent.memory import MemoryManager
from agent.tools import ToolRegistry
from agent.types import LLMError
from app.models.choice import make_llm
from tests.agent.test_agent_loop import Add
from tests.support.fake_llm import Pieces, Reply, call, chunks, streamed, text, tool_calls

BASE = {"id": "s", "model": "m"}
ADD_TOOL = {
    "type": "function",
    "function": {"name": "add", "description": "Add.", "parameters": Add.parameters},
}


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
    watcher = Pieces()
    return ChatAgent(llm, registry, memory=MemoryManager("SYS"), observer=watcher), watcher.pieces


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
    agent = ChatAgent(make_llm(Settings(), fake_llm.url), ToolRegistry(), observer=Pieces())
    fake_llm.add(text("plain JSON"))
    assert agent.send_message("hi") == "plain JSON"
    assert json.dumps(fake_llm.requests[0]).count('"stream": true') == 1


@pytest.mark.parametrize("backend", ["wrapper", "chatopenai"])
def test_an_empty_stream_falls_back_to_a_plain_request(backend, fake_llm):
    llm = make_llm(Settings(llm_backend=backend), fake_llm.url)
    agent = ChatAgent(llm, ToolRegistry(), observer=Pieces())
    fake_llm.add(Reply({}, events=[]), text("asked plainly"))
    assert agent.send_message("hi") == "asked plainly"
    assert [bool(r.get("stream")) for r in fake_llm.requests] == [True, False]
    assert "stream_options" not in fake_llm.requests[1]


def test_line_separators_inside_the_json_survive(fake_llm):
    agent = ChatAgent(make_llm(Settings(), fake_llm.url), ToolRegistry(), observer=Pieces())
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


@pytest.mark.parametrize("backend", ["wrapper", "chatopenai"])
def test_a_trickling_stream_is_cut_at_the_timeout(backend, fake_llm):
    llm = make_llm(Settings(llm_timeout=1, llm_backend=backend), fake_llm.url)
    events = [{"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": "."}}]}] * 3000
    fake_llm.add(Reply({}, events=events))
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not finish its answer in time"):
        ChatAgent(llm, ToolRegistry(), observer=Pieces()).send_message("hi")
    assert time.monotonic() - started < 15  # the timeout, not the 30 s the stream would take


ADD_CALL = call("add", {"a": 20, "b": 22}, "call_s1")


def merged(chunks: list) -> AIMessageChunk:
    out = chunks[0]
    for chunk in chunks[1:]:
        out = out + chunk
    return out


def test_stream_yields_chunks_with_tool_call_chunks_and_usage_on_the_last(fake_llm):
    fake_llm.add(streamed(tool_calls(ADD_CALL, content="Adding.")))
    chunks = list(CustomLLMWrapper(base_url=fake_llm.url).bind_tools([ADD_TOOL]).stream("x"))
    assert all(isinstance(c, AIMessageChunk) for c in chunks)
    assert sum(1 for c in chunks if c.tool_call_chunks) >= 3  # the head and argument pieces, as they came
    last = chunks[-1]
    assert last.chunk_position == "last"
    assert last.usage_metadata == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}
    assert last.response_metadata["finish_reason"] == "tool_calls"
    whole = merged(chunks)
    assert whole.content == "Adding."
    assert whole.tool_calls == [
        {"name": "add", "args": {"a": 20, "b": 22}, "id": "call_s1", "type": "tool_call"}
    ]
    assert fake_llm.requests[0]["stream_options"] == {"include_usage": True}


def test_deltas_without_index_become_chunks_langchain_merges_right(fake_llm):
    deltas = [
        {"tool_calls": [{"id": "a", "function": {"name": "add"}}]},
        {"tool_calls": [{"function": {"arguments": '{"a": 1, "b": 1}'}}]},
        {"tool_calls": [{"id": "b", "function": {"name": "add", "arguments": '{"a": 3, "b": 3}'}}]},
        {"tool_calls": [{"function": {"arguments": '{"a": 3, "b": 3}'}}]},  # repeated at the end
    ]
    events = [{**BASE, "choices": [{"index": 0, "delta": d}]} for d in deltas]
    events.append({**BASE, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    fake_llm.add(Reply({}, events=events))
    whole = merged(list(CustomLLMWrapper(base_url=fake_llm.url).stream("x")))
    assert [(c["id"], c["args"]) for c in whole.tool_calls] == [
        ("a", {"a": 1, "b": 1}),
        ("b", {"a": 3, "b": 3}),
    ]


async def test_async_invoke_and_stream_on_httpx(fake_llm):
    fake_llm.add(
        Reply({"error": "slow down"}, 429, {"Retry-After": "0"}), text("你好"), streamed(tool_calls(ADD_CALL))
    )
    llm = CustomLLMWrapper(base_url=fake_llm.url, api_key="k")
    reply = await llm.ainvoke("hi")
    chunks = [c async for c in llm.bind_tools([ADD_TOOL]).astream("x")]
    assert (reply.content, len(fake_llm.requests)) == ("你好", 3)
    assert merged(chunks).tool_calls[0]["args"] == {"a": 20, "b": 22}
    assert chunks[-1].usage_metadata["total_tokens"] == 15
    assert fake_llm.headers[0]["Authorization"] == "Bearer k"


async def test_async_failures_are_one_clear_line(fake_llm):
    fake_llm.add(Reply({"error": "no"}, 500), Reply({"error": "no"}, 400))
    llm = CustomLLMWrapper(base_url=fake_llm.url)
    with pytest.raises(LLMError, match=r"chat/completions answered HTTP 500"):
        await llm.ainvoke("x")
    with pytest.raises(LLMError, match=r"answered HTTP 400"):
        [c async for c in llm.astream("x")]
    with pytest.raises(LLMError, match=r"cannot reach LLM endpoint http://127.0.0.1:9/v1"):
        await CustomLLMWrapper(base_url="http://127.0.0.1:9/v1").ainvoke("x")


async def test_async_stream_broken_off_inside_the_arguments_runs_nothing(fake_llm):
    events = chunks(tool_calls(ADD_CALL))[:3]
    fake_llm.add(Reply({}, events=events, done=False), Reply({}, events=[]), text("plain"))
    llm = CustomLLMWrapper(base_url=fake_llm.url)
    cut = merged([c async for c in llm.astream("x")])
    assert cut.response_metadata["finish_reason"] == "incomplete"
    message = normalize(cut)
    assert (
        message.tool_calls == [] and "cut off inside the arguments" in message.invalid_tool_calls[0]["error"]
    )
    fallback = merged([c async for c in llm.astream("x")])  # an empty event stream: asked plainly
    assert fallback.content == "plain" and [bool(r.get("stream")) for r in fake_llm.requests[1:]] == [
        True,
        False,
    ]


async def test_async_trickling_stream_is_cut_at_the_timeout(fake_llm):
    events = [{"id": "s", "model": "m", "choices": [{"index": 0, "delta": {"content": "."}}]}] * 3000
    fake_llm.add(Reply({}, events=events))
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not finish its answer in time"):
        [c async for c in CustomLLMWrapper(base_url=fake_llm.url, timeout=1).astream("x")]
    assert time.monotonic() - started < 15  # the timeout, not the 30 s the stream would take


async def test_chatopenai_backend_async_failures_are_one_clear_line(fake_llm):
    fake_llm.add(Reply({"error": {"message": "no"}}, 400), text("ok"))
    llm = make_llm(Settings(llm_backend="chatopenai"), fake_llm.url)
    with pytest.raises(LLMError, match=r"chat/completions answered HTTP 400"):
        await llm.ainvoke("x")
    assert (await llm.ainvoke("x")).content == "ok"
