"""How the host reads a request for the embedded demo model (app/models/embedded/reading.py): the effect
asked for, capability questions, the language of the message's own words, what the demo cannot do, and the
plan that follows however the words are put. Phrases written for development, and the issue's own examples
(the evaluation's held-out prompts are not used here)."""

from __future__ import annotations

import pytest

from app.models.embedded import reading
from app.models.embedded.reading import asks_capabilities, effect_asked

WRITES = [
    "帮我把 RMX2001 存进数据库",
    "录一下 A2403 这个机型",
    "Please add SM-A5360 to the db",
    "Save the model V2230 for me",
    "Can you store CPH1920 in the database?",
    "能帮我把 PDEM10 加上吗？",
    "新机型 M2102J20SG 要登记",
    "We need PFUM10 saved",
]
READS = [
    "RMX2001 在库里吗",
    "Has V2230 been stored already?",
    "Is SM-A5360 in your database?",
    "查一下 PDEM10 有没有录入",
    "Do you know if M2102J20SG is saved?",
    "Show all records",
    "数据库里现在都有哪些手机型号",
    "List every model you have",
    "16 乘以 4 等于几",
]
REMOVALS = ["把 RMX2001 删了", "请移除 V2230", "Remove CPH1920 please", "Delete the entry SM-A5360"]


@pytest.mark.parametrize("text", WRITES)
def test_requests_to_write(text):
    assert effect_asked(text) == "write"


@pytest.mark.parametrize("text", READS)
def test_questions_only_read_even_with_a_verb_of_writing(text):
    assert effect_asked(text) == "read"


@pytest.mark.parametrize("text", REMOVALS)
def test_requests_to_remove(text):
    assert effect_asked(text) == "destructive"


@pytest.mark.parametrize("text", ["你都会些什么？", "你可以做什么", "How can you help?", "what are you for"])
def test_capability_questions(text):
    assert asks_capabilities(text)
    assert not asks_capabilities("帮我把 RMX2001 存进数据库")


@pytest.mark.parametrize(
    "text, lang",
    [
        ("帮我 add 一下 RMX3085", "zh"),
        ("please register RMX3998 for me, 营销名 真我 Neo", "en"),  # an English sentence, a Chinese label
        ("New entry RMX3823, English name 真我GT5", "en"),  # a Chinese name in an English sentence
        ("RMX3998 的 English name 改成 realme Neo", "zh"),
        ("hello", "en"),
        ("put this label into English: 「支持 80W 快充，电池 5000mAh」", "en"),  # what it quotes aside
    ],
)
def test_the_language_is_that_of_the_messages_own_words(text, lang):
    assert reading.language(text) == lang


@pytest.mark.parametrize("text", ["CPH2223", "y", "n", "12*7", "一加 13", "SM-A5360 ?"])
def test_a_message_with_no_words_of_its_own_keeps_the_persons_language(text):
    """A code, a letter, a sum, a market name alone: the language the person wrote in before."""
    assert reading.language(text, "zh") == "zh" and reading.language(text) == "en"
    assert reading.conversation_language(["把机型 CPH2223 添加到数据库", "n", text]) == "zh"
    assert reading.conversation_language(["add CPH2223", "好的", text]) == "zh"
    assert reading.conversation_language(["把机型 CPH2223 添加到数据库", text, "ok"]) == "en"


@pytest.mark.parametrize(
    "said, tool, calls",
    [
        # the issue's: each once misread, a look-up or a table or the clock
        ("can u stick cph2665 in the db", "add_device_model", [{"model": "cph2665"}]),
        ("pls put cph2665 in the datbase", "add_device_model", [{"model": "cph2665"}]),
        ("记录一下 PJX110 这个机型", "add_device_model", [{"model": "PJX110"}]),
        ("what is 20% of 1500", "calculator", [{"expression": "(20 / 100 * 1500)"}]),
        ("一部手机 1999 元，买 5 部多少钱", "calculator", [{"expression": "1999 * 5"}]),
        ("把 RMX3085 的营销名改成 realme GT7", "update_market_name",
         [{"model": "RMX3085", "marketName": "realme GT7"}]),
        # a code in a plain statement proposes an add (the person confirms it); a question looks it up
        ("新机型 PJX111 上市了", "add_device_model", [{"model": "PJX111"}]),
        ("got PJX110?", "query_device_model", [{"keyword": "PJX110"}]),
        ("好开心，CPH2437 在库里", "query_device_model", [{"keyword": "CPH2437"}]),
        # a market name with no field named goes where its script says
        ("register RMX3998, the realme Neo7 SE", "add_device_model",
         [{"model": "RMX3998", "marketNameEn": "realme Neo7 SE"}]),
        ("有没有一加 12 这个机型", "query_device_model", [{"keyword": "一加 12"}]),
        ("RMX3085 的英文名设成 真我 GT7 吧", "update_market_name",
         [{"model": "RMX3085", "marketNameEn": "真我 GT7"}]),
        ("update CPH2437: English name -> OPPO Find X6 Pro", "update_market_name",
         [{"model": "CPH2437", "marketNameEn": "OPPO Find X6 Pro"}]),
        ("一共存了多少个型号", "list_device_models", [{}]),
    ],
)  # fmt: skip
def test_the_plan_follows_the_words_however_they_are_put(router, said, tool, calls):
    plan = router.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", tool, calls)


@pytest.mark.parametrize(
    "said",
    [
        "深圳明天会下雨吗？",  # the issue's: it got the clock
        "will it rain in Paris tomorrow?",
        "Can you translate this to French",
        "帮我上网搜一下最新的手机",
        "write me a poem about phones",
    ],
)
def test_what_the_demo_cannot_do_gets_no_tool(router, said):
    assert router.plan(said).kind == "offtopic"


def test_a_change_without_its_new_value_asks_for_the_field_the_words_name(router):
    assert router.plan("把 RMX3085 的英文名改一下").missing == ("marketNameEn",)
    assert router.plan("把 RMX3085 的营销名改一下").missing == ("marketName",)
