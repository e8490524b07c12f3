"""Grammar-constrained decisions for the embedded model: the schema a reply must match, built from the
offered tools and the user's words, and the reply read back; then GrammarChatModel over loopback HTTP."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage, SystemMessage

from agent.llm_wrapper import CustomLLMWrapper
from agent.models.embedded.grammar import (
    GrammarChatModel,
    arguments_schema,
    call_schema,
    callable_tools,
    grammar,
    read_decision,
    spans,
    whole_sentences,
)
from agent.tools import ToolRegistry
from tests.fake_llm import text
from tools import default_tools

SAID = "把 CPH2437 添加到数据库，营销名 OPPO Find X6"


def registry() -> ToolRegistry:
    tools = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        tools.register(tool)
    return tools


def test_spans_are_runs_of_words_that_cross_only_single_spaces():
    assert spans(SAID) == ["CPH2437", "OPPO", "OPPO Find", "OPPO Find X6", "Find", "Find X6", "X6"]
    assert spans("add cph2223in, then v2145") == [
        "add",
        "add cph2223in",
        "cph2223in",
        "then",
        "then v2145",
        "v2145",
    ]
    assert spans("你好") == []


def test_grounded_values_are_drawn_from_the_users_words_and_must_fit_the_schema():
    add = registry().get("add_device_model")
    assert add is not None
    schema = arguments_schema(add.parameters, add.grounded, SAID)
    assert schema is not None
    assert schema["properties"]["model"] == {"enum": ["CPH2437", "X6"]}  # words with a digit, as a code needs
    assert "marketName" not in schema["properties"]  # optional grounded values are left out, never guessed
    assert schema["required"] == ["model"]
    assert (
        arguments_schema(add.parameters, add.grounded, "把机型添加到数据库") is None
    )  # no code: not callable


def test_only_tools_callable_from_the_users_words_are_offered_in_the_order_given():
    tools = registry()
    definitions = tools.langchain_tools()
    order = ["query_device_model", "list_device_models", "add_device_model"]
    ranked = sorted(
        definitions, key=lambda t: order.index(t["function"]["name"]) if t["function"]["name"] in order else 9
    )
    assert [name for name, _ in callable_tools(ranked, tools, "列出所有机型")][:2] == [
        "list_device_models",
        "calculator",
    ]
    found = callable_tools(ranked, tools, "数据库里有 V2145 吗？")
    assert found[0] == (
        "query_device_model",
        {
            "type": "object",
            "properties": {"keyword": {"enum": ["V2145"]}},
            "required": ["keyword"],
            "additionalProperties": False,
        },
    )


def test_the_grammar_is_a_json_call_or_words_that_do_not_start_like_json():
    schema = call_schema([("list_device_models", {"type": "object", "properties": {}})])
    assert schema["properties"]["tool"] == {"const": "list_device_models"}
    assert grammar(schema) == (
        "%llguidance {}\nstart: call | WORDS\ncall: %json "
        + json.dumps(schema)
        + "\nWORDS: /[^{\\s][^\\x00]*/\n"
    )
    two = call_schema([("a", {}), ("b", {})])
    assert [option["properties"]["tool"]["const"] for option in two["oneOf"]] == ["a", "b"]


def test_a_reply_is_read_as_a_call_or_as_whole_sentences():
    call = read_decision('{"tool": "query_device_model", "arguments": {"keyword": "V2145"}}')
    assert [(c["name"], c["args"]) for c in call.tool_calls] == [("query_device_model", {"keyword": "V2145"})]
    assert call.tool_calls[0]["id"].startswith("call_")
    assert read_decision("Hello there! I can help with models. And then I wo").content == (
        "Hello there! I can help with models."
    )
    assert read_decision('{"tool": "x", "argu').content == '{"tool": "x", "argu'  # cut off: stays words
    assert whole_sentences("你好！我可以帮你。然后") == "你好！我可以帮你。"


def test_grammar_chat_model_sends_the_grammar_and_the_shown_tools(fake_llm):
    tools = registry()
    fake_llm.add(text('{"tool": "query_device_model", "arguments": {"keyword": "V2145"}}'), text("Hi there."))
    model = GrammarChatModel(inner=CustomLLMWrapper(base_url=fake_llm.url), registry=tools)
    history = [SystemMessage("You help."), HumanMessage("数据库里有 V2145 吗？")]
    ranked = sorted(tools.langchain_tools(), key=lambda t: t["function"]["name"] != "query_device_model")
    reply = model.bind_tools(ranked).invoke(
        history
    )  # the selector's order: the first callable one is offered
    assert reply.tool_calls[0]["args"] == {"keyword": "V2145"}
    sent = fake_llm.requests[0]
    assert "tools" not in sent  # llama.cpp refuses a custom grammar beside `tools`: the template gets them
    assert [t["function"]["name"] for t in sent["chat_template_kwargs"]["tools"]] == ["query_device_model"]
    assert sent["chat_template_kwargs"]["examples"][0] == {
        "request": "数据库里有 A5010 吗？",
        "call": {"tool": "query_device_model", "arguments": {"keyword": "A5010"}},
    }
    assert sent["grammar"].startswith("%llguidance {}\nstart: call | WORDS\n")
    words = model.bind_tools(ranked, tool_choice="none").invoke(history)
    assert (words.content, "grammar" in fake_llm.requests[1]) == ("Hi there.", False)
