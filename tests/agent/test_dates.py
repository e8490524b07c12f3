"""Dates and times of day as people write them, read whole into the schema's forms (agent/dates.py)."""

import pytest

from agent.dates import as_date, as_time, dates, moments, times


@pytest.mark.parametrize(
    "said, iso",
    [("on 12 March 2026 at noon", ["2026-03-12"]), ("Apr 28th, 2026", ["2026-04-28"]),
     ("the 3rd of September 2026", ["2026-09-03"]), ("2026年5月7号下午", ["2026-05-07"]),
     ("二零二六年五月七日", ["2026-05-07"]), ("2026/03/18", ["2026-03-18"]),
     ("2025-6-20 上门", ["2025-06-20"]),
     ("20/4/2026", ["2026-04-20"]), ("4/20/2026", ["2026-04-20"]), ("5/5/2026", ["2026-05-05"]),
     ("4/5/2026", []), ("12 March", []), ("2026-02-30", []), ("May I book 2026 slots", [])],
)  # fmt: skip
def test_a_date_is_read_only_when_written_whole(said, iso):
    """Day, month and year written, the day and month unambiguous; nothing guessed, nothing impossible."""
    assert [value for _, value in dates(said)] == iso


@pytest.mark.parametrize(
    "said, hhmm",
    [("at 10.30am", ["10:30"]), ("1700hrs", ["17:00"]), ("11 in the morning", ["11:00"]),
     ("3 in the afternoon", ["15:00"]), ("下午两点半", ["14:30"]), ("二十一点整", ["21:00"]),
     ("9am, no, 9.45am", ["09:00", "09:45"]), ("中午 12:30", ["12:30"]), ("三点五公斤", []),
     ("half past nine in the morning", ["09:30"]), ("quarter to twelve", ["11:45"]),
     ("20 past 3 pm", ["15:20"]),
     ("下午两点到四点", ["14:00", "16:00"]), ("晚上8点到10点", ["20:00", "22:00"])],
)  # fmt: skip
def test_a_time_of_day_is_read_as_hh_mm(said, hhmm):
    assert [value for _, value in times(said)] == hhmm


def test_a_value_written_whole_and_where_moments_stand():
    assert as_date("12 March 2026") == "2026-03-12" and as_date("on 12 March 2026") is None
    assert as_time("晚上8点") == "20:00" and as_time("2026") is None
    text = "on 12 March 2026 at 9am"
    assert [text[start:end] for start, end in moments(text)] == ["12 March 2026", "9am"]
