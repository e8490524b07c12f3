"""The agent loop over real loopback HTTP, through both backends: the JSON the agent sends is asserted."""

from __future__ import annotations

import json
import time

import pytest
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from agent.agent import ChatAgent
from agent.config import Settings
from agent.guards import envelope_of, untrusted
from agent.llm_wrapper import CustomLLMWrapper
from agent.memory import MemoryManager
from agent.tools import FunctionTool, ToolRegistry
from agent.types import LLMError, MaxRoundsError, ToolContext
from app.models.choice import make_llm
from tests.support.fake_llm import Pieces, Reply, call, streamed, text, tool_calls
from tools.model_tool import AddModelTool


class Add(FunctionTool):
    name = "add"
    effect = "read"  # it computes: it changes nothing
    description = "Add two integers."
    parameters = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        if args["a"] < 0:
            raise RuntimeError("negative numbers are not supported")
        return json.dumps(args["a"] + args["b"])


@pytest.fixture(params=["wrapper", "chatopenai"])
def agent(request, fake_llm):
    llm = make_llm(Settings(llm_backend=request.param, llm_model="fake-model"), fake_llm.url, api_key="k")
    registry = ToolRegistry()
    registry.register(Add())
    return ChatAgent(llm, registry, user_id="alice", memory=MemoryManager("SYS"))


def sent(fake_llm, i: int) -> list[dict]:
    """Request i's messages, normalized: content null and "" are the same to us, arguments compared parsed."""
    out = []
    for m in fake_llm.requests[i]["messages"]:
        m = {k: v for k, v in m.items() if v is not None and k != "name"}
        m.setdefault("content", "")
        for c in m.get("tool_calls", []):
            c["function"]["arguments"] = _maybe_json(c["function"]["arguments"])
        out.append(m)
    return out


def _maybe_json(raw: str):
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def assistant(*calls: dict) -> dict:
    return {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": c["id"],
                "type": "function",
                "function": {
                    "name": c["function"]["name"],
                    "arguments": _maybe_json(c["function"]["arguments"]),
                },
            }
            for c in calls
        ],
    }


def tool_result(call_id: str, envelope: dict, name: str = "add") -> dict:
    content = untrusted(name, json.dumps(envelope, ensure_ascii=False))
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def test_text_answer(agent, fake_llm):
    fake_llm.add(text("你好！"))
    assert agent.send_message("hi") == "你好！"
    assert sent(fake_llm, 0) == [{"role": "system", "content": "SYS"}, {"role": "user", "content": "hi"}]
    assert fake_llm.requests[0]["tools"] == [
        {
            "type": "function",
            "function": {"name": "add", "description": "Add two integers.", "parameters": Add.parameters},
        }
    ]


def test_one_tool_round(agent, fake_llm):
    c = call("add", {"a": 2, "b": 3}, "call_abc123")
    fake_llm.add(tool_calls(c), text("2+3=5"))
    assert agent.send_message("2+3?") == "2+3=5"
    assert sent(fake_llm, 1)[2:] == [assistant(c), tool_result("call_abc123", {"ok": True, "data": 5})]


def test_several_rounds(agent, fake_llm):
    calls = [call("add", {"a": i, "b": 1}, f"call_{i}") for i in range(3)]
    fake_llm.add(*[tool_calls(c) for c in calls], text("done"))
    assert agent.send_message("count") == "done"
    assert len(fake_llm.requests) == 4
    assert sent(fake_llm, 3)[2:] == [
        m
        for i, c in enumerate(calls)
        for m in (assistant(c), tool_result(c["id"], {"ok": True, "data": i + 1}))
    ]


def test_two_calls_in_one_reply(agent, fake_llm):
    c1, c2 = call("add", {"a": 1, "b": 1}, "call_1"), call("add", {"a": 2, "b": 2}, "call_2")
    fake_llm.add(tool_calls(c1, c2), text("2 and 4"))
    assert agent.send_message("two sums") == "2 and 4"
    assert sent(fake_llm, 1)[2:] == [
        assistant(c1, c2),
        tool_result("call_1", {"ok": True, "data": 2}),
        tool_result("call_2", {"ok": True, "data": 4}),
    ]


@pytest.mark.parametrize(
    "bad_call, error",
    [
        (call("subtract", {"a": 1}, "call_u"), "unknown tool 'subtract'; available tools: add"),
        (call("add", '{"a": 1, "b": ', "call_u"), "not valid JSON"),
        (
            call("add", {"a": "one", "b": 2}, "call_u"),
            "invalid arguments for 'add': a: 'one' is not of type 'integer'",
        ),
        (
            call("add", {"a": -1, "b": 2}, "call_u"),
            "tool 'add' failed: RuntimeError: negative numbers are not supported",
        ),
    ],
)
def test_mistakes_go_back_to_the_model_as_tool_results(agent, fake_llm, bad_call, error):
    fake_llm.add(tool_calls(bad_call), text("sorry"))
    assert agent.send_message("do it") == "sorry"
    *_, sent_call, sent_result = sent(fake_llm, 1)
    assert sent_call["tool_calls"][0]["id"] == "call_u"
    assert (sent_result["role"], sent_result["tool_call_id"]) == ("tool", "call_u")
    envelope = envelope_of(sent_result["content"])
    assert envelope["ok"] is False
    assert error in envelope["error"]


def test_max_rounds(agent, fake_llm):
    fake_llm.default = tool_calls(call("add", {"a": 1, "b": 1}, "call_loop"))
    with pytest.raises(MaxRoundsError, match="after 10 rounds"):
        agent.send_message("loop forever")
    assert len(fake_llm.requests) == 10
    assert [r["tool_choice"] for r in fake_llm.requests] == ["auto"] * 9 + ["none"]


def test_an_empty_reply_is_asked_again_without_tools(agent, fake_llm):
    fake_llm.add(text(""), text("here are words"))
    assert agent.send_message("hi") == "here are words"
    assert [r["tool_choice"] for r in fake_llm.requests] == ["auto", "none"]
    assert [m["role"] for m in fake_llm.requests[1]["messages"]] == ["system", "user"]


def test_endpoint_500_is_a_clear_error(agent, fake_llm):
    fake_llm.default = Reply({"error": {"message": "internal"}}, 500)
    with pytest.raises(LLMError, match=r"answered HTTP 500"):
        agent.send_message("hi")


def test_connection_refused_is_a_clear_error(agent, fake_llm):
    url = fake_llm.url
    fake_llm.__exit__()
    with pytest.raises(LLMError, match=f"cannot reach LLM endpoint {url}"):
        agent.send_message("hi")


def test_calls_without_ids_get_one_that_their_results_carry(agent, fake_llm):
    body = tool_calls(
        {"type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 1}'}},
        {"id": "", "type": "function", "function": {"name": "add", "arguments": '{"a": 2, "b": 2}'}},
    )
    fake_llm.add(body, text("ok"))
    assert agent.send_message("sums") == "ok"
    *_, assistant_sent, first, second = fake_llm.requests[1]["messages"]
    ids = [c["id"] for c in assistant_sent["tool_calls"]]
    assert all(ids) and len(set(ids)) == 2
    assert [first["tool_call_id"], second["tool_call_id"]] == ids


def test_llm_timeout_bounds_each_request(fake_llm):
    llm = make_llm(Settings(llm_timeout=0.5), fake_llm.url)
    registry = ToolRegistry()
    registry.register(Add())
    fake_llm.add(Reply(text("late"), delay=30))
    started = time.monotonic()
    with pytest.raises(LLMError, match="did not answer"):
        ChatAgent(llm, registry).send_message("hi")
    assert time.monotonic() - started < 15  # bounded by the timeout, not the server's 30 s


class Slow(FunctionTool):
    name = "slow"
    effect = "read"
    description = "Wait 0.3 s."
    parameters = {"type": "object", "properties": {"i": {"type": "integer"}}}
    spans: list[tuple[float, float]] = []  # (started, finished) of every call, in finishing order

    def call(self, ctx: ToolContext, input: str) -> str:
        started = time.monotonic()
        time.sleep(0.3)
        self.spans.append((started, time.monotonic()))
        return input


class SlowInOrder(Slow):
    name = "slow_in_order"
    sequential = True


def test_independent_calls_run_concurrently_and_answer_in_call_order(fake_llm):
    registry = ToolRegistry()
    registry.register(Slow())
    registry.register(SlowInOrder())
    agent = ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry)
    fake_llm.add(
        tool_calls(*[call("slow", {"i": i}, f"c{i}") for i in range(5)]),
        text("done"),
        tool_calls(*[call("slow_in_order", {"i": i}, f"s{i}") for i in range(2)]),
        text("done"),
    )
    Slow.spans = []
    agent.send_message("five at once")
    assert max(s for s, _ in Slow.spans) < min(f for _, f in Slow.spans)  # all five ran side by side
    results = [
        (m["tool_call_id"], envelope_of(m["content"])["data"])
        for m in fake_llm.requests[1]["messages"]
        if m["role"] == "tool"
    ]
    assert results == [(f"c{i}", {"i": i}) for i in range(5)]
    Slow.spans = []
    agent.send_message("two in order")
    (_, first_done), (second_started, _) = Slow.spans
    assert first_done <= second_started  # one after the other


def either(body: dict):
    """The same answer, as server-sent events when the request asks for a stream."""
    return lambda request: streamed(body) if request.get("stream") else Reply(body)


@pytest.mark.parametrize("backend", ["wrapper", "chatopenai"])
@pytest.mark.parametrize("watched", [False, True], ids=["invoked", "streamed"])
def test_the_tutorials_turn_on_both_backends_streamed_or_not(backend, watched, fake_llm, device_service):
    """One code path for every chat model: .stream() when someone watches the text, else .invoke()."""
    llm = make_llm(Settings(llm_backend=backend, llm_model="fake-model"), fake_llm.url, api_key="k")
    registry = ToolRegistry()
    registry.register(AddModelTool(f"{device_service.url}/api/models"))
    watcher = Pieces(watched)
    agent = ChatAgent(
        llm,
        registry,
        user_id="alice",
        permissions=frozenset({"add_model"}),
        memory=MemoryManager("SYS"),
        observer=watcher,
    )
    c = call("add_device_model", {"model": "CPH2223"}, "call_abc123")
    fake_llm.add(either(tool_calls(c)), either(text("已添加 CPH2223。")))
    assert agent.send_message("帮我添加设备型号 CPH2223") == "已添加 CPH2223。"
    assert [bool(r.get("stream")) for r in fake_llm.requests] == [watched, watched]
    assert "".join(watcher.pieces) == ("已添加 CPH2223。" if watched else "")
    sent_call, sent_result = sent(fake_llm, 1)[2:]
    assert sent_call == assistant(c)
    envelope = envelope_of(sent_result["content"])
    assert (sent_result["tool_call_id"], envelope["ok"], envelope["data"]["model"]) == (
        "call_abc123",
        True,
        "CPH2223",
    )
    assert [type(m).__name__ for m in agent.memory.history()][-3:] == [
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]


@pytest.mark.parametrize("watched", [False, True], ids=["invoked", "streamed"])
def test_any_langchain_chat_model_drives_the_loop(watched, fake_llm):
    """langchain-openai's own ChatOpenAI, not a class of ours: the loop only uses the standard interface."""
    llm = ChatOpenAI(base_url=fake_llm.url, api_key=SecretStr("k"), model="fake-model")
    registry = ToolRegistry()
    registry.register(Add())
    watcher = Pieces(watched)
    agent = ChatAgent(llm, registry, memory=MemoryManager("SYS"), observer=watcher)
    c = call("add", {"a": 2, "b": 3}, "call_x")
    fake_llm.add(either(tool_calls(c)), either(text("2+3=5")))
    assert agent.send_message("2+3?") == "2+3=5"
    assert sent(fake_llm, 1)[2:] == [assistant(c), tool_result("call_x", {"ok": True, "data": 5})]
    assert "".join(watcher.pieces) == ("2+3=5" if watched else "")
