"""The OpenAI-compatible face of `main.py serve --workers 4`, on SQLite and on Postgres, driven by the
official `openai` SDK, LangChain's ChatOpenAI and this project's CustomLLMWrapper; the model behind it is
the scripted loopback LLM. Two people: what alice does is hers; bob cannot see it; carol may not add."""

from __future__ import annotations

import json

import openai
import pytest
import requests
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI

from agent.guards import envelope_of
from agent.llm_wrapper import CustomLLMWrapper
from tests.conftest import clean_env, run_main
from tests.support.fake_llm import call, streamed, text, tool_calls
from tests.support.serve_support import devices


def client(agent, user: str, **options) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{agent.url}/v1", api_key=agent.keys[user], max_retries=0, **options)


def test_the_sdk_gets_the_answer_of_the_whole_tool_loop_and_the_calls_it_ran(agent):
    code = "PJD110" if "postgres" in agent.database else "RMX1901"
    agent.llm.add(tool_calls(call("add_device_model", {"model": code}, "c1")), text(f"Added {code}."))
    answer = client(agent, "alice").chat.completions.create(
        model="tool-use-agent", messages=[{"role": "user", "content": f"add {code}"}]
    )
    assert (answer.choices[0].message.content, answer.choices[0].finish_reason) == (f"Added {code}.", "stop")
    assert answer.model_extra["conversation_id"].startswith("conv_")
    [ran] = answer.model_extra["agent_tool_calls"]
    assert (ran["id"], ran["name"], json.loads(ran["arguments"])) == (
        "c1",
        "add_device_model",
        {"model": code},
    )
    assert ran["result"]["ok"] and ran["result"]["data"]["createdBy"] == "alice"
    assert (code, "alice") in devices(agent.database)
    first, second = agent.llm.requests
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "add_device_model" in {t["function"]["name"] for t in first["tools"]}
    result = second["messages"][-1]
    assert (result["role"], result["tool_call_id"], envelope_of(result["content"])["ok"]) == (
        "tool",
        "c1",
        True,
    )


def test_a_stream_shows_each_call_and_result_as_they_happen_then_the_text(agent):
    agent.llm.add(
        tool_calls(call("calculator", {"expression": "6*7"}, "c1")), streamed(text("It is 42, as computed."))
    )
    stream = client(agent, "bob").chat.completions.create(
        model="tool-use-agent",
        messages=[{"role": "user", "content": "what is 6*7?"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    kinds = [_kind(chunk) for chunk in chunks]
    assert kinds[0] == "start" and kinds[-2:] == ["finish", "usage"]
    assert kinds.index("call") < kinds.index("result") < kinds.index("text")
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "It is 42, as computed."
    result = next(c.model_extra["agent_tool_result"] for c in chunks if _kind(c) == "result")
    assert (result["id"], result["result"]) == (
        "c1",
        {"ok": True, "data": {"expression": "6*7", "result": 42}},
    )
    assert chunks[-1].usage.total_tokens == 30  # two model replies of 15
    assert chunks[0].model_extra["conversation_id"] == chunks[-2].model_extra["conversation_id"]


def _kind(chunk) -> str:
    extra = chunk.model_extra or {}
    if "agent_tool_call" in extra:
        return "call"
    if "agent_tool_result" in extra:
        return "result"
    if chunk.usage is not None:
        return "usage"
    if chunk.choices and chunk.choices[0].finish_reason:
        return "finish"
    return "start" if chunk.choices[0].delta.role else "text"


def test_a_stored_conversation_continues_server_side_and_nobody_else_can_read_or_continue_it(agent):
    agent.llm.add(text("Hello alice."), text("You said hi."))
    alice = client(agent, "alice")
    first = alice.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    conversation = first.model_extra["conversation_id"]
    second = alice.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "what did I say?"}],
        extra_body={"conversation_id": conversation},
    )
    assert (second.choices[0].message.content, second.model_extra["conversation_id"]) == (
        "You said hi.",
        conversation,
    )
    sent = [(m["role"], m.get("content")) for m in agent.llm.requests[1]["messages"][1:]]
    assert sent == [("user", "hi"), ("assistant", "Hello alice."), ("user", "what did I say?")]
    with pytest.raises(openai.NotFoundError) as refused:
        client(agent, "bob").chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "show me"}],
            extra_body={"conversation_id": conversation},
        )
    assert refused.value.body["code"] == "not_found" and len(agent.llm.requests) == 2


def test_without_a_conversation_the_request_messages_are_the_history(agent):
    agent.llm.add(text("Paris, still."))
    history = [
        {"role": "system", "content": "Answer briefly."},
        {"role": "user", "content": "capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": [{"type": "text", "text": "and now?"}]},
    ]
    client(agent, "bob").chat.completions.create(model="m", messages=history)
    sent = [(m["role"], m.get("content")) for m in agent.llm.requests[0]["messages"][1:]]
    assert sent == [
        ("system", "Answer briefly."),
        ("user", "capital of France?"),
        ("assistant", "Paris."),
        ("user", "and now?"),
    ]


def test_langchain_chatopenai_and_the_tutorials_wrapper_talk_to_the_agent(agent):
    agent.llm.add(text("one"), streamed(text("two, streamed")), text("three"))
    chat = ChatOpenAI(
        base_url=f"{agent.url}/v1", api_key=agent.keys["bob"], model="tool-use-agent", max_retries=0
    )
    assert chat.invoke([HumanMessage("first")]).content == "one"
    assert "".join(chunk.text for chunk in chat.stream("second")) == "two, streamed"
    wrapper = CustomLLMWrapper(base_url=f"{agent.url}/v1", api_key=agent.keys["bob"], model="tool-use-agent")
    assert wrapper.invoke("third").content == "three"


def test_a_user_without_add_model_is_refused_and_nothing_is_written(agent):
    agent.llm.add(tool_calls(call("add_device_model", {"model": "CPH2411"}, "c1")), text("I may not add it."))
    answer = client(agent, "carol").chat.completions.create(
        model="m", messages=[{"role": "user", "content": "add CPH2411"}]
    )
    [ran] = answer.model_extra["agent_tool_calls"]
    assert (
        not ran["result"]["ok"]
        and "permission denied: user 'carol' lacks 'add_model'" in ran["result"]["error"]
    )
    assert "CPH2411" not in [model for model, _ in devices(agent.database)]


def test_no_key_a_wrong_key_or_a_revoked_key_is_a_401_in_openais_shape(agent, tmp_path):
    url = f"{agent.url}/v1/chat/completions"
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    for headers in ({}, {"Authorization": "Bearer sk-agent-wrong"}, {"Authorization": "Basic eDp5"}):
        refused = requests.post(url, json=body, headers=headers, timeout=30)
        assert refused.status_code == 401 and refused.headers["WWW-Authenticate"] == "Bearer"
        assert set(refused.json()["error"]) == {"message", "type", "code", "param"}
        assert refused.json()["error"]["code"] == "invalid_api_key"
    dave = agent.key("dave")
    assert client(agent, "bob").models.list().data[0].id == "tool-use-agent"
    done = run_main("keys", "revoke", "dave", env=agent.env, cwd=agent.cwd)
    assert done.returncode == 0 and "dave" in run_main("keys", "list", env=agent.env, cwd=agent.cwd).stdout
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{agent.url}/v1", api_key=dave, max_retries=0).models.list()
    assert agent.llm.requests == []


def test_keys_are_stored_hashed_and_shown_once(agent):
    key = agent.key("erin")
    listed = run_main("keys", "list", env=agent.env, cwd=agent.cwd).stdout
    assert "erin" in listed and key not in listed
    stored = agent.query("SELECT key_hash FROM api_keys WHERE name = 'erin'")
    assert len(stored) == 1 and key not in stored[0][0] and len(stored[0][0]) == 64
    again = run_main("keys", "add", "erin", env=clean_env(**agent.env), cwd=agent.cwd)
    assert again.returncode == 2 and "already has a key" in again.stderr


def test_a_request_that_brings_tools_is_a_clear_400(agent):
    tools = [
        {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}
    ]
    with pytest.raises(openai.BadRequestError) as refused:
        client(agent, "bob").chat.completions.create(
            model="m", messages=[{"role": "user", "content": "hi"}], tools=tools
        )
    assert (refused.value.body["code"], refused.value.body["param"]) == ("tools_not_supported", "tools")
    assert "runs its own tools" in refused.value.body["message"] and agent.llm.requests == []
