"""A value the person takes back in the same message is no value (app/models/embedded/corrections.py).
Phrases written for these tests."""

from __future__ import annotations

import pytest

from app.models.embedded.corrections import corrected


@pytest.mark.parametrize(
    "said, gone, kept",
    [
        ("order 4 bottles, no wait, make it 6 bottles", "4", "6 bottles"),
        ("订 三盒 不对不对 两盒", "三盒", "两盒"),
        ("meet at 3pm, oh sorry, make it 4.30pm", "3pm", "4.30pm"),
        ("打印 十份 哦不是 二十份", "十份", "二十份"),
    ],
)  # fmt: skip
def test_a_value_taken_back_is_read_no_more(said, gone, kept):
    text = corrected(said)
    assert kept in text and gone not in text.replace(kept, "")


@pytest.mark.parametrize(
    "said",
    [
        "sorry to bother you, 3 boxes please",  # nothing before the words to take back
        "make it 3 boxes",
        "book 2 rooms for the 5 people, sorry for the rush",  # no value after the words
        "PKX110 的营销名应该是 OPPO 12",  # what a name should be is a change, not a correction
    ],
)
def test_words_of_taking_back_alone_take_nothing_back(said):
    assert corrected(said) == said
