"""parse_response is a pure function over the raw JSON; the wrapper's HTTP and the quirks of providers."""

from __future__ import annotations

import json
import time

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import BaseModel

from agent.llm_wrapper import CustomLLMWrapper, message_to_dict, parse_response
from agent.types import LLMError
from tests.support.fake_llm import Reply, call, streamed, text, tool_calls
from tests.support.openai_like_server import OpenAILikeServer

# The tutorial's response example, verbatim: content null and one tool call.
TUTORIAL_RESPONSE = {
    "choices": [
        {
            "message": {
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "add_device_model", "arguments": '{"model": "CPH2223"}'},
                    }
                ],
            }
        }
    ]
}


def test_tutorial_example_parses_into_one_call():
    message = parse_response(TUTORIAL_RESPONSE)
    assert message.content == ""
    assert message.tool_calls == [
        {"name": "add_device_model", "args": {"model": "CPH2223"}, "id": "call_abc123", "type": "tool_call"}
    ]
    assert message.invalid_tool_calls == []
    assert CustomLLMWrapper.parse_response is parse_response


def test_text_answer_and_usage():
    message = parse_response(text("你好"))
    assert message.content == "你好"
    assert message.tool_calls == []
    assert message.usage_metadata == {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}


def test_unparseable_arguments_become_invalid_tool_calls():
    message = parse_response(tool_calls(call("add_device_model", '{"model": "CPH', "call_x")))
    assert message.tool_calls == []
    [bad] = message.invalid_tool_calls
    assert (bad["id"], bad["name"], bad["args"]) == ("call_x", "add_device_model", '{"model": "CPH')
    assert "not valid JSON" in bad["error"]


def test_arguments_that_are_not_an_object_are_invalid():
    message = parse_response(tool_calls(call("f", "[1, 2]", "c1")))
    assert message.invalid_tool_calls[0]["error"] == "arguments must be a JSON object, got list"


@pytest.mark.parametrize("arguments", [{"model": "X1"}, "", None])
def test_arguments_as_object_empty_or_null(arguments):
    body = tool_calls({"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}})
    [parsed] = parse_response(body).tool_calls
    assert parsed["args"] == (arguments or {})


def test_missing_empty_and_duplicated_ids_get_unique_generated_ids():
    body = tool_calls(
        {"type": "function", "function": {"name": "a", "arguments": "{}"}},
        {"id": "", "type": "function", "function": {"name": "b", "arguments": "{}"}},
        call("c", {}, "dup"),
        call("d", {}, "dup"),
    )
    ids = [c["id"] for c in parse_response(body).tool_calls]
    assert ids[2] == "dup"
    assert len(set(ids)) == 4
    assert all(i.startswith("call_") for i in ids[:2] + ids[3:])


def test_tool_calls_written_as_tagged_text_are_recovered():
    body = text(
        'Let me add it.\n<tool_call>{"name": "add_device_model", "arguments": {"model": "CPH2223"}}'
        "</tool_call>"
    )
    message = parse_response(body)
    assert message.content == "Let me add it."
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("add_device_model", {"model": "CPH2223"})
    ]


def test_finish_reason_stop_with_tool_calls_keeps_the_calls():
    body = tool_calls(call("f", {}, "c1"))
    body["choices"][0]["finish_reason"] = "stop"
    assert [c["id"] for c in parse_response(body).tool_calls] == ["c1"]


def test_truncated_call_is_not_run_and_says_why():
    body = tool_calls(call("add_device_model", '{"model": "CPH22', "c1"))
    body["choices"][0]["finish_reason"] = "length"
    message = parse_response(body)
    assert message.tool_calls == []
    assert "cut off inside the arguments" in message.invalid_tool_calls[0]["error"]


def test_no_choices_is_an_endpoint_error():
    with pytest.raises(LLMError, match="without choices"):
        parse_response({"error": {"message": "overloaded"}})


def test_messages_sent_back_keep_calls_and_ids():
    ai = parse_response(tool_calls(call("add_device_model", {"model": "CPH2223"}, "call_abc123")))
    sent = [
        message_to_dict(m)
        for m in [
            SystemMessage("s"),
            HumanMessage("u"),
            ai,
            ToolMessage(content='{"ok": true}', tool_call_id="call_abc123"),
        ]
    ]
    assert sent == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "call_abc123",
                    "type": "function",
                    "function": {"name": "add_device_model", "arguments": '{"model": "CPH2223"}'},
                }
            ],
        },
        {"role": "tool", "content": '{"ok": true}', "tool_call_id": "call_abc123"},
    ]


def test_wrapper_posts_tools_and_messages(fake_llm):
    fake_llm.add(text("hi"))
    llm = CustomLLMWrapper(base_url=fake_llm.url, api_key="k", model="m")
    tool = {
        "type": "function",
        "function": {"name": "f", "description": "d", "parameters": {"type": "object"}},
    }
    reply = llm.bind_tools([tool], tool_choice="auto").invoke([HumanMessage("hello")])
    assert reply.content == "hi"
    assert fake_llm.requests == [
        {
            "messages": [{"role": "user", "content": "hello"}],
            "tools": [tool],
            "tool_choice": "auto",
            "model": "m",
        }
    ]
    assert fake_llm.headers[0]["Authorization"] == "Bearer k"


def test_429_and_503_are_retried_honouring_retry_after(fake_llm):
    fake_llm.add(
        Reply({"error": "slow down"}, 429, {"Retry-After": "0"}),
        Reply({"error": "busy"}, 503, {"retry-after-ms": "10"}),
        text("done"),
    )
    llm = CustomLLMWrapper(base_url=fake_llm.url)
    assert llm.invoke([HumanMessage("x")]).content == "done"
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 500])
def test_errors_are_not_retried_and_name_endpoint_and_status(fake_llm, status):
    fake_llm.add(Reply({"error": "no"}, status))
    llm = CustomLLMWrapper(base_url=fake_llm.url)
    with pytest.raises(
        LLMError, match=rf"LLM endpoint {fake_llm.url}/chat/completions answered HTTP {status}"
    ):
        llm.invoke([HumanMessage("x")])
    assert len(fake_llm.requests) == 1


def test_retries_stop_at_the_deadline(fake_llm):
    fake_llm.default = Reply({"error": "slow down"}, 429, {"Retry-After": "30"})
    llm = CustomLLMWrapper(base_url=fake_llm.url, timeout=2)
    with pytest.raises(LLMError, match="HTTP 429"):
        llm.invoke([HumanMessage("x")])
    assert len(fake_llm.requests) == 1


def test_connection_refused_is_one_clear_line_at_once():
    """A dead endpoint (a model server that died) fails the request now, not at the turn's deadline."""
    llm = CustomLLMWrapper(base_url="http://127.0.0.1:9/v1", timeout=600)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"cannot reach LLM endpoint http://127.0.0.1:9/v1/chat/completions"):
        llm.invoke([HumanMessage("x")])
    assert time.monotonic() - started < 5


def test_non_json_answer(fake_llm):
    fake_llm.add(Reply(b"<html>"), Reply(b'"just a string"'), Reply({"choices": "nope"}))
    llm = CustomLLMWrapper(base_url=fake_llm.url)
    for expected in ("not JSON", "not a JSON object", "unreadable answer"):
        with pytest.raises(LLMError, match=expected):
            llm.invoke([HumanMessage("x")])


def test_content_null_is_never_sent():
    ai = AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "c1"}])
    assert json.dumps(message_to_dict(ai)).count("null") == 0


def test_odd_names_and_ids_never_raise():
    message = parse_response(text('<tool_call>{"name": 5, "arguments": {}}</tool_call>'))
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("5", {})]
    body = tool_calls({"id": 7, "type": "function", "function": {"name": ["x"], "arguments": "{}"}})
    [odd] = parse_response(body).tool_calls
    assert (odd["id"], odd["name"]) == ("7", '["x"]')


def test_zero_temperature_and_token_limit_are_sent(fake_llm):
    fake_llm.add(text("ok"))
    CustomLLMWrapper(base_url=fake_llm.url, temperature=0, max_tokens=256).invoke([HumanMessage("x")])
    assert (fake_llm.requests[0]["temperature"], fake_llm.requests[0]["max_tokens"]) == (0, 256)
    assert "model" not in fake_llm.requests[0] and "stop" not in fake_llm.requests[0]


def test_retry_after_as_seconds_http_date_or_milliseconds():
    from datetime import UTC, datetime, timedelta
    from email.utils import format_datetime

    from agent.llm.transport import retry_delay, server_hint

    in_ten = format_datetime(datetime.now(UTC) + timedelta(seconds=10), usegmt=True)
    assert 8 <= server_hint({"retry-after": in_ten}) <= 10
    assert server_hint({"retry-after": "3"}) == 3.0
    assert server_hint({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert server_hint({"retry-after": "soon"}) is None
    assert 0.25 <= retry_delay(1, {}) <= 1.0  # no hint: 0.5 * 2**1 with jitter in [0.5, 1]


def test_without_a_hint_the_waits_double_and_are_jittered_up_to_a_cap():
    """docs/configuration: 429/503 retried with exponential backoff and jitter."""
    from agent.llm.transport import retry_delay

    for attempt in range(5):
        waits = [retry_delay(attempt, {}) for _ in range(50)]
        full = 0.5 * 2**attempt  # the backoff, of which jitter keeps a random half to all
        assert all(full / 2 <= w <= full for w in waits), (attempt, min(waits), max(waits))
        assert len(set(waits)) > 1  # jittered: retries of many clients do not line up
    assert all(10 <= retry_delay(12, {}) <= 20 for _ in range(50))  # capped at 20 s


TOOL_F = {"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}


@pytest.mark.parametrize(
    "given, sent_choice",
    [
        ("any", "required"),
        (True, "required"),
        ("required", "required"),
        ("auto", "auto"),
        ("none", "none"),
        ("f", {"type": "function", "function": {"name": "f"}}),
        ({"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}),
    ],
)
def test_tool_choice_is_sent_as_openai_spells_it(fake_llm, given, sent_choice):
    fake_llm.add(text("ok"))
    CustomLLMWrapper(base_url=fake_llm.url).bind_tools([TOOL_F], tool_choice=given).invoke("x")
    assert fake_llm.requests[0]["tool_choice"] == sent_choice


def test_an_unknown_tool_choice_is_a_clear_error_before_any_request(fake_llm):
    with pytest.raises(
        ValueError, match=r"tool_choice 'g' is not one of auto, none, required, any, True .*\(f\)"
    ):
        CustomLLMWrapper(base_url=fake_llm.url).bind_tools([TOOL_F], tool_choice="g")
    assert fake_llm.requests == []


def test_strict_goes_inside_each_function_and_parallel_calls_can_be_turned_off(fake_llm):
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    fake_llm.add(text("ok"))
    CustomLLMWrapper(base_url=fake_llm.url).bind_tools([add], strict=True, parallel_tool_calls=False).invoke(
        "x"
    )
    sent = fake_llm.requests[0]
    assert "strict" not in sent and sent["parallel_tool_calls"] is False
    assert sent["tools"][0]["function"]["strict"] is True
    assert sent["tools"][0]["function"]["parameters"]["additionalProperties"] is False


def test_stop_and_streaming_given_to_the_constructor_are_honoured(fake_llm):
    fake_llm.add(text("one"), text("two"), streamed(text("three")))
    llm = CustomLLMWrapper(base_url=fake_llm.url, stop=["END"])
    assert llm.invoke("x").content == "one"
    assert llm.invoke("x", stop=["HALT"]).content == "two"
    streaming = CustomLLMWrapper(base_url=fake_llm.url, streaming=True)
    assert streaming.invoke("x").content == "three"
    stops = [r.get("stop") for r in fake_llm.requests]
    assert stops == [["END"], ["HALT"], None]
    assert (fake_llm.requests[2]["stream"], fake_llm.requests[2]["stream_options"]) == (
        True,
        {"include_usage": True},
    )


def test_raw_newlines_inside_argument_strings_are_accepted():
    message = parse_response(tool_calls(call("f", '{"text": "line one\nline two"}', "c1")))
    assert message.tool_calls[0]["args"] == {"text": "line one\nline two"}


def test_parts_the_wrapper_cannot_send_are_a_clear_error():
    image = HumanMessage(
        content=[{"type": "text", "text": "see"}, {"type": "image_url", "image_url": {"url": "x"}}]
    )
    with pytest.raises(ValueError, match="sends text only; this human message has a 'image_url' part"):
        message_to_dict(image)
    assert message_to_dict(HumanMessage("hi", name="ann")) == {"role": "user", "content": "hi", "name": "ann"}


class Joke(BaseModel):
    """A joke."""

    setup: str
    punchline: str


@pytest.mark.parametrize("method", ["function_calling", "json_mode", "json_schema"])
def test_structured_output_by_each_method_against_an_openai_like_server(method):
    with OpenAILikeServer() as server:
        llm = CustomLLMWrapper(base_url=server.url, api_key="k", model="m")
        strict = None if method == "json_mode" else True
        joke = llm.with_structured_output(Joke, method=method, strict=strict)
        result = joke.invoke("Tell a joke as JSON with 'setup' and 'punchline' keys")
        streamed_result = list(joke.stream("Tell a joke as JSON with 'setup' and 'punchline' keys"))[-1]
    sent = server.requests[0]
    assert server.rejected == []
    assert isinstance(result, Joke) and streamed_result == result
    if method == "function_calling":
        assert sent["tool_choice"] == {"type": "function", "function": {"name": "Joke"}}
        assert sent["tools"][0]["function"]["strict"] is True
        assert (result.setup, result.punchline) == ("setup", "punchline")
    elif method == "json_mode":
        assert (sent["response_format"], "tools" in sent) == ({"type": "json_object"}, False)
    else:
        spec = sent["response_format"]["json_schema"]
        assert (spec["name"], spec["strict"], spec["schema"]["required"]) == (
            "Joke",
            True,
            ["setup", "punchline"],
        )


def test_structured_output_with_the_raw_message():
    with OpenAILikeServer() as server:
        llm = CustomLLMWrapper(base_url=server.url, api_key="k", model="m")
        out = llm.with_structured_output(Joke, include_raw=True).invoke("a joke, 'why' then 'because'")
    assert out["parsed"] == Joke(setup="why", punchline="because")
    assert out["parsing_error"] is None and out["raw"].tool_calls[0]["name"] == "Joke"
