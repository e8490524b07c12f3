"""How the host reads a request for the embedded demo model: the effect asked for, codes as written,
arithmetic in words (shares, discounts, prices), labelled values, capability questions; and however it is
typed (`spelling.py`, `cues.yaml`): chat's short forms, a word one letter off, a character that sounds the
same; market names apart from codes, the language of the message's own words, the plan that follows.
Phrases written for development, and the issue's own examples (the evaluation's held-out prompts are not
used here)."""

from __future__ import annotations

import pytest

from agent.tools import ToolRegistry
from app.models.embedded import reading, spelling
from app.models.embedded.reading import after_label, arithmetic, asks_capabilities, codes, effect_asked
from app.models.embedded.routing import PATTERNS, Router
from tools import default_tools

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


@pytest.mark.parametrize(
    "text, found",
    [
        ("请把 SM-A5360 和 RMX2001 都存进去", ["SM-A5360", "RMX2001"]),
        ("Add model GM1910 (OnePlus 7 Pro)", ["GM1910"]),
        ("录入 sm a5360", ["a5360"]),  # lower-case groups are joined by a hyphen only
        ("录入 SM A5360", ["SM A5360"]),
        ("Is XT2041-4 there?", ["XT2041-4"]),
        ("型号CPH1920添加", ["CPH1920"]),
        ("100 除以 8", []),
    ],
)
def test_codes_as_written(text, found):
    assert codes(text) == found


@pytest.mark.parametrize(
    "text, expression",
    [
        ("请算 8 乘以 (2 加 3)", "8 * (2 + 3)"),
        ("What's 144 divided by 12?", "144 / 12"),
        ("100 减去 37 等于多少", "100 - 37"),
        ("2 plus 2 times 3", "2 + 2 * 3"),
        ("（1 + 2）× 3", "( 1 + 2 ) * 3"),
        ("把 PHB110 加到数据库", None),
        ("hello", None),
    ],
)
def test_arithmetic_in_words(text, expression):
    assert arithmetic(text) == expression


def test_the_words_after_a_label_longest_label_first():
    labels = ["营销名", "market name", "英文营销名", "English market name"]
    assert after_label("录入 PFTM10，营销名叫 OPPO A1", labels).value == "OPPO A1"
    found = after_label("add RMX3085 with English market name realme 8", labels)
    assert (found.label, found.value) == ("English market name", "realme 8")
    assert after_label("add RMX3085", labels) is None


@pytest.mark.parametrize("text", ["你都会些什么？", "你可以做什么", "How can you help?", "what are you for"])
def test_capability_questions(text):
    assert asks_capabilities(text)
    assert not asks_capabilities("帮我把 RMX2001 存进数据库")


def normalized(text: str) -> str:
    return spelling.normalized(text, PATTERNS, reading.ACTS)


@pytest.mark.parametrize(
    "typed, read",
    [
        ("pls put it in the db", "please put it in the database"),  # chat's short forms
        ("can u save it", "can you save it"),
        ("store it in the datbase", "store it in the database"),  # a letter dropped
        ("please recrod it", "please record it"),  # two swapped
        ("chnage the name", "change the name"),
        ("the Englissh name", "the english name"),  # a letter doubled
        ("请天加 PJX110", "请添加 PJX110"),  # a character that sounds the same (tian jia)
        ("纪录 PJX110", "记录 PJX110"),  # (ji lu)
        ("天加一下", "天加一下"),  # a reader's word as written ("加一下"): nothing is read by its sound
        ("Realme RMX3085 phones", "Realme RMX3085 phones"),  # names, codes and known words stay
        ("price of the phones", "price of the phones"),
    ],
)
def test_words_are_read_however_they_are_typed(typed, read):
    assert normalized(typed) == read


@pytest.mark.parametrize(
    "said, expression",
    [
        ("what is 20% of 1500", "(20 / 100 * 1500)"),
        ("1500 的 15%", "(1500 * 15 / 100)"),
        ("百分之 30 of 200", "(30 / 100 * 200)"),
        ("25% off 800", "(800 * (100 - 25) / 100)"),
        ("a 1200 phone at 10% off", "(1200 * (100 - 10) / 100)"),
        ("2999 打八折", "2999 * 8 / 10"),
        ("4999 八五折是多少", "4999 * 85 / 100"),
        ("一部手机 1999 元，买 5 部多少钱", "1999 * 5"),  # the issue's
        ("每台 899，进了 12 台", "899 * 12"),
        ("2 units at 999 apiece", "2 * 999"),
        ("we got 4 boxes at $120 and shipping 30", "4 * 120 + 30"),
        ("45 加 67", "45 + 67"),
        ("我有 3 部手机", None),  # a quantity alone is no sum
        ("RMX3085 有没有", None),
    ],
)
def test_shares_discounts_and_prices_are_arithmetic(said, expression):
    assert reading.arithmetic(said) == expression


@pytest.mark.parametrize(
    "text, names, codes",
    [
        ("register RMX3998, the realme Neo7 SE", ["realme Neo7 SE"], ["RMX3998"]),  # "Neo7" is no code
        ("is the vivo X100 Pro in the db?", ["vivo X100 Pro"], []),
        ("有没有一加 12 这个机型", ["一加 12"], []),
        ("Galaxy S24 Ultra SM-S928B", ["Galaxy S24 Ultra"], ["SM-S928B"]),
        ("把 OPPO CPH2437 加进去", [], ["CPH2437"]),  # a brand alone is no name, and no code's part
        ("把华为 ALN-AL00 存到库里", [], ["ALN-AL00"]),
    ],
)
def test_market_names_are_told_from_codes(text, names, codes):
    assert (reading.names(text), reading.codes(text)) == (names, codes)


@pytest.mark.parametrize(
    "text, lang",
    [
        ("帮我 add 一下 RMX3085", "zh"),
        ("please register RMX3998 for me, 营销名 真我 Neo", "en"),  # an English sentence, a Chinese label
        ("New entry RMX3823, English name 真我GT5", "en"),  # a Chinese name in an English sentence
        ("RMX3998 的 English name 改成 realme Neo", "zh"),
        ("hello", "en"),
    ],
)
def test_the_language_is_that_of_the_messages_own_words(text, lang):
    assert reading.language(text) == lang


@pytest.fixture(scope="module")
def router() -> Router:
    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        registry.register(tool)
    return Router(registry)


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
