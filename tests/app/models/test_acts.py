"""A write runs only on an act the person asks for (app/models/embedded/acts.py): a verb they deny or tell
as done writes nothing, and a tool's own verb makes a code a request for it. Phrases written for
development (the evaluation's held-out prompts are not used here)."""

from __future__ import annotations

import pytest

from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded.acts import asked, none_asked
from app.models.embedded.reading import ADDS, WRITE, effect_asked
from app.models.embedded.routing import Router
from benchmarks.reader_tools import reader_tools
from tools import default_tools

NOT_ASKED = [
    "先别录 PKX110",
    "不用添加 PKX110 了",
    "我昨天已经把 PKX110 加进去了",
    "my colleague said PKX110 was added last week",
    "we never recorded PKX110, did we?",
    "don't add PKX110",
    "never mind PKX110",
    "should I add PKX110?",
    "如果删掉 PKX110 会怎样？只是问问",  # says it only asks
    "what if I deleted PKX110, would the old orders break?",
    "PKX110 的英文名是啥？don't change anything",
]
ASKED = [
    "PKX110",
    "add PKX110",
    "PKX110 请入库",
    "if PKX110 isn't in there yet, add it",
    "could you get PKX110 added?",
    "如果库里没有就把 PKX110 加上",
]


@pytest.fixture(scope="module")
def router():
    registry = ToolRegistry()
    for tool in [*default_tools("http://127.0.0.1:9/api/models"), *reader_tools()]:
        registry.register(tool)
    return Router(registry)


@pytest.mark.parametrize("text", NOT_ASKED)
def test_a_denied_or_done_act_writes_nothing(router, text):
    assert effect_asked(text) == "read"
    assert router.plan(text).effect == "read"


@pytest.mark.parametrize("text", ASKED)
def test_an_act_asked_for_writes(router, text):
    plan = router.plan(text)
    assert (plan.kind, plan.tool, plan.calls) == ("tool", "add_device_model", ({"model": "PKX110"},))


def test_a_word_of_removing_said_of_a_values_part_is_no_delete(router):
    assert router.plan("录入 PKX110CN，去掉后缀").tool == "add_device_model"
    assert router.plan("add RMX3771IN, drop the IN suffix").tool == "add_device_model"


def test_a_denied_verb_is_blanked_and_an_asked_one_kept():
    assert asked("别录 A，录 B", WRITE, ADDS) == "别  A，录 B"
    assert not none_asked("别录 A，录 B", WRITE, ADDS)
    assert none_asked("别录 A", WRITE, ADDS)


def test_a_tools_own_verb_makes_a_code_a_request_for_it(router):
    plan = router.plan("预订会议室 B202，2026-12-09")
    assert (plan.kind, plan.tool) == ("tool", "book_meeting_room")
    assert router.plan("处理一下 PKX110").kind == "which"  # a vague verb: add it, or look it up?


class DropShippingQuote(FunctionTool):
    name = "drop_shipping_quote"
    effect = "read"
    description = "Quote the price of shipping an order straight from the supplier to the buyer."
    parameters = {
        "type": "object",
        "properties": {"order": {"type": "string", "description": "the order number, e.g. PKX110"}},
        "required": ["order"],
        "additionalProperties": False,
    }

    def call(self, ctx, input: str) -> str:
        return "{}"


def test_a_word_of_removing_that_names_a_tool_removes_nothing():
    registry = ToolRegistry()
    for tool in [*default_tools("http://127.0.0.1:9/api/models"), DropShippingQuote()]:
        registry.register(tool)
    plan = Router(registry).plan("drop shipping quote for PKX110")  # the tool's name, and a code: a read
    assert (plan.kind, plan.effect) == ("tool", "read")
