"""How the host reads a request for the embedded demo model: the effect asked for, codes as written,
arithmetic in words, labelled values, capability questions. Phrases written for development (the
evaluation's held-out prompts are not used here)."""

from __future__ import annotations

import pytest

from app.models.embedded.reading import after_label, arithmetic, asks_capabilities, codes, effect_asked

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
