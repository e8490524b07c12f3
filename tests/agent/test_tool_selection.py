"""Many tools: past 16, each request carries the best BM25 matches, the always-list, and search_tools."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage

from agent.agent import ChatAgent, TurnPolicy
from agent.llm_wrapper import CustomLLMWrapper
from agent.tool_selection import SearchToolsTool, ToolSelector, tokens
from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext
from tests.support.fake_llm import call, text, tool_calls

TOPICS = [
    "weather forecast for a city",
    "convert currency amounts",
    "translate text between languages",
    "send an email message",
    "book a flight ticket",
    "search orders by date",
    "天气 查询 城市",
    "添加 设备 机型",
] + [f"manage widget number {i} inventory" for i in range(30)]


def make_tool(i: int, topic: str) -> FunctionTool:
    class Generated(FunctionTool):
        name = f"tool_{i}"
        description = topic
        parameters = {"type": "object", "properties": {"q": {"type": "string", "description": topic}}}

        def call(self, ctx: ToolContext, input: str) -> str:
            return json.dumps({"tool": self.name})

    return Generated()


def agent_with_many_tools(fake_llm, **selector) -> ChatAgent:
    registry = ToolRegistry()
    for i, topic in enumerate(TOPICS):
        registry.register(make_tool(i, topic))
    chosen = ToolSelector(**selector)
    registry.register(SearchToolsTool(chosen, registry))  # as the composition root does (app/host.py)
    return ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, policy=TurnPolicy(chosen))


def offered(request: dict) -> list[str]:
    return [t["function"]["name"] for t in request["tools"]]


def test_tokens_split_identifiers_and_chinese():
    assert tokens("get_currentTime 天气预报") == [
        "get",
        "current",
        "time",
        "天",
        "气",
        "预",
        "报",
        "天气",
        "气预",
        "预报",
    ]


def test_few_tools_are_all_sent_and_search_tools_is_not(fake_llm):
    registry = ToolRegistry()
    for i in range(3):
        registry.register(make_tool(i, TOPICS[i]))
    agent = ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, policy=TurnPolicy(ToolSelector()))
    fake_llm.add(text("hi"))
    agent.send_message("hello")
    assert offered(fake_llm.requests[0]) == ["tool_0", "tool_1", "tool_2"]


def test_many_tools_send_the_best_matches_and_search_tools(fake_llm):
    agent = agent_with_many_tools(fake_llm, always=("tool_37",))
    fake_llm.add(text("sunny"), text("ok"))
    agent.send_message("What is the weather forecast for Beijing?")
    names = offered(fake_llm.requests[0])
    assert names[0] == "tool_0" and "search_tools" in names and "tool_37" in names
    assert len(names) <= 5 + 2
    agent.send_message("帮我查询北京天气")
    assert "tool_6" in offered(fake_llm.requests[1])


def test_search_tools_pins_more_tools_for_the_turn(fake_llm):
    agent = agent_with_many_tools(fake_llm)
    fake_llm.add(
        tool_calls(call("search_tools", {"query": "email"}, "c1")),
        tool_calls(call("tool_3", {"q": "hi"}, "c2")),
        text("sent"),
        text("next"),
    )
    assert agent.send_message("please do the thing for me") == "sent"
    assert "tool_3" not in offered(fake_llm.requests[0])
    found = json.loads(fake_llm.requests[1]["messages"][-1]["content"].split("\n")[1])["data"]
    assert found[0] == {"name": "tool_3", "description": "send an email message"}
    assert "tool_3" in offered(fake_llm.requests[1])
    agent.send_message("another turn about nothing")
    assert "tool_3" not in offered(fake_llm.requests[3])


def test_english_stop_words_are_not_words_and_arithmetic_signs_are():
    assert tokens("What is 15 + 27?") == ["15", "+", "27"]
    assert tokens("Does the database have it?") == ["database"]


def test_the_selection_comes_best_first_and_search_tools_only_when_asked(fake_llm):
    from tools import default_tools

    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        registry.register(tool)
    selector = ToolSelector(max_tools=0, top_k=3, offer_search=False)
    picked = selector.select(registry.langchain_tools(), [HumanMessage("数据库里有 V2145 吗？")])
    assert [t["function"]["name"] for t in picked][0] == "query_device_model"
    listed = selector.select(registry.langchain_tools(), [HumanMessage("列出所有机型")])
    assert [t["function"]["name"] for t in listed][0] == "list_device_models"
    assert selector.select(registry.langchain_tools(), [HumanMessage("你好呀")]) == []


def test_the_docs_16_tools_are_all_sent_and_from_17_on_they_are_selected():
    """docs/layout: BM25 selection when there are more than 16 tools (ToolSelector's default)."""
    from langchain_core.messages import HumanMessage

    def tool(name: str) -> dict:
        return {"type": "function", "function": {"name": name, "description": f"about {name}"}}

    search = tool("search_tools")
    asked = [HumanMessage("tell me about t3")]
    sixteen = [tool(f"t{i}") for i in range(16)]
    sent = [t["function"]["name"] for t in ToolSelector().select([*sixteen, search], asked)]
    assert sent == [f"t{i}" for i in range(16)]
    sent = [t["function"]["name"] for t in ToolSelector().select([*sixteen, tool("t16"), search], asked)]
    assert sent[0] == "t3" and "search_tools" in sent and len(sent) <= 5 + 1
