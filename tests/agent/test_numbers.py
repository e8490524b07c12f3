"""Numbers as people write them (agent/numbers.py): what the host's grounding and the demo's amounts read."""

import pytest

from agent.numbers import as_number, numbers


@pytest.mark.parametrize(
    "said, read",
    [("250,000 dollars", ["250000"]), ("two hundred", ["200"]), ("两千五百", ["2500"]), ("５k", ["5000"]),
     ("two and a half hours", ["2.5"]), ("a dozen packs", ["12"]), ("two dozen", ["24"]),
     ("一个半小时", ["1.5"]), ("共计六十三块五", ["63.5"]), ("一块五毛", ["1.5"]), ("5块钱", ["5"]),
     ("订一台", ["1"]), ("看一下", []), ("the one on the left", [])],
)  # fmt: skip
def test_a_number_is_read_however_written(said, read):
    assert numbers(said) == read


def test_a_whole_value_is_one_number():
    assert as_number("eight") == "8" and as_number("12.0") == "12" and as_number("one") == "1"
    assert as_number("8 boxes") is None and as_number("box") is None
