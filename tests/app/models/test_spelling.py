"""Words however they are typed (app/models/embedded/spelling.py, cues.yaml): chat's short forms, a word one
letter off, a character that sounds the same. Phrases written for development (the evaluation's held-out
prompts are not used here)."""

from __future__ import annotations

import pytest

from app.models.embedded import reading, spelling
from app.models.embedded.routing import PATTERNS


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
