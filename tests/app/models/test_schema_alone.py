"""The demo's reader over tools known by their schema alone (no worked facts): an enum's words from the
tool's own texts (aliases.py), identifiers as people type them (identifiers.py), a write asked for in the
tool's own words and never for a request that only names what it records (written.py). The tools and
phrases are written for these tests."""

from __future__ import annotations

import json

import pytest

from agent.numbers import chinese, numbers
from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext
from app.models.embedded import reading, spelling
from app.models.embedded.durations import duration
from app.models.embedded.identifiers import joined, runs
from app.models.embedded.routing import PATTERNS, Router
from app.models.embedded.values import quoted
from tools import default_tools


class _Answers(FunctionTool):
    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"ok": True})


class KitchenOrder(_Answers):
    name = "place_kitchen_order"
    description = (
        "下厨房订单（写入）。只有用户明确要点餐/下单时使用。菜式：noodles=面条/拉面，rice=米饭/盖饭，"
        "soup=汤。Place a kitchen order for a desk."
    )
    parameters = {
        "type": "object",
        "properties": {
            "desk": {"type": "string", "pattern": "^D[0-9]{3}$", "description": "工位号，例如 D204"},
            "dish": {"type": "string", "enum": ["noodles", "rice", "soup"], "description": "菜式"},
            "note": {"type": "string", "maxLength": 80, "description": "备注（可选）"},
        },
        "required": ["desk", "dish"],
        "additionalProperties": False,
    }
    effect = "write"
    grounded = ("desk", "note")


class KitchenStatus(_Answers):
    name = "get_order_state"
    description = "按工位号查厨房订单进度（只读）。Where a desk's kitchen order is."
    parameters = {
        "type": "object",
        "properties": {"desk": {"type": "string", "pattern": "^D[0-9]{3}$", "description": "工位号"}},
        "required": ["desk"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("desk",)


class BadgeLookup(_Answers):
    name = "find_badge"
    description = "Find who holds an access badge by its number (read only)."
    parameters = {
        "type": "object",
        "properties": {"badge": {"type": "string", "pattern": "^[0-9]{10}$", "description": "badge number"}},
        "required": ["badge"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("badge",)


class LockerRequest(_Answers):
    name = "request_locker"
    description = (
        "申请储物柜（写入）。只有用户明确要申请储物柜时使用。尺寸：small=小柜，large=大柜。Request a locker."
    )
    parameters = {
        "type": "object",
        "properties": {
            "size": {"type": "string", "enum": ["small", "large"], "description": "尺寸"},
            "user": {"type": "string", "pattern": "^[a-z][a-z0-9.]{1,31}$", "description": "账号（可选）"},
            "near": {"type": "string", "pattern": "^L-[0-9]{3}$", "description": "挨着哪个柜子（可选）"},
        },
        "required": ["size"],
        "additionalProperties": False,
    }
    effect = "write"
    grounded = ("user", "near")


@pytest.fixture(scope="module")
def kitchen() -> Router:
    registry = ToolRegistry()
    added = [KitchenOrder(), KitchenStatus(), BadgeLookup(), LockerRequest()]
    for tool in [*default_tools("http://127.0.0.1:9/api/models"), *added]:
        registry.register(tool)
    return Router(registry)


def test_an_enums_words_come_from_the_tools_own_texts():
    found = KitchenOrder().aliases("dish")
    assert {found["面条"], found["拉面"], found["盖饭"], found["汤"]} == {"noodles", "rice", "soup"}
    assert found["拉面"] == "noodles" and found["盖饭"] == "rice"
    assert "菜式" not in found  # a label, no value's word


@pytest.mark.parametrize(
    "said, calls",
    [("帮我下单，D204 来一碗拉面", [{"desk": "D204", "dish": "noodles"}]),
     ("d311 点餐，要盖饭", [{"desk": "D311", "dish": "rice"}])],  # lower case: the capitals
)  # fmt: skip
def test_a_write_asked_in_the_tools_own_words_is_planned_with_its_values(kitchen, said, calls):
    plan = kitchen.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", "place_kitchen_order", calls)


@pytest.mark.parametrize(
    "said", ["D204 的拉面到哪了", "D204 的订单进度", "我昨天已经下单了，D204 拉面", "查一下 D204 的下单记录"]
)
def test_a_request_naming_what_a_write_records_is_no_write(kitchen, said):
    plan = kitchen.plan(said)
    assert not (plan.kind == "tool" and plan.effect == "write"), plan


def test_a_write_that_lacks_a_value_asks_for_it(kitchen):
    plan = kitchen.plan("帮我下单，来一碗汤")
    assert (plan.kind, plan.tool, plan.missing) == ("missing", "place_kitchen_order", ("desk",))


def test_two_values_not_listed_together_are_a_question_not_two_writes(kitchen):
    plan = kitchen.plan("D204 还是 D205 来着，帮我下单一份汤")
    assert (plan.kind, plan.tool, plan.missing) == ("missing", "place_kitchen_order", ("desk",))


@pytest.mark.parametrize("said", ["badge 00123 45678 是谁的", "who holds badge 0012345678?"])
def test_an_identifier_typed_in_groups_is_read_whole(kitchen, said):
    plan = kitchen.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", "find_badge", [{"badge": "0012345678"}])


def test_identifiers_runs_and_quotes_as_typed():
    assert "IT-LT-00421" in runs("IT-LT-00421 是谁的") and "12:30" in runs("中午 12:30 发")
    assert "IMEI" not in " ".join(r for r in runs("IMEI:864455036017789") if ":" in r)
    assert "IT-LT-00877" in joined("IT LT 00877 owner")
    assert quoted("caption 'See you soon', it's fine") == ["See you soon"]
    assert quoted("文案用「限定礼盒」") == ["限定礼盒"]


@pytest.mark.parametrize(
    "numeral, value", [("一千二", 1200), ("三万五", 35000), ("三十五", 35), ("一万零五", 10005)]
)
def test_chinese_numerals_as_people_shorten_them(numeral, value):
    assert chinese(numeral) == value


@pytest.mark.parametrize(
    "said, minutes",
    [("最近一个小时", "60"), ("过去两个钟头", "120"), ("一个半小时", "90"), ("over the past half hour", "30"),
     ("要过去一整天的", "1440"), ("the last 45 mins", "45"), ("状态怎么样", None)],
)  # fmt: skip
def test_a_span_of_time_in_words_is_the_number_a_parameter_in_minutes_takes(said, minutes):
    spec = {"type": "integer", "description": "metrics window in minutes"}
    assert duration(said, "window_minutes", spec) == ([minutes] if minutes else [])


@pytest.mark.parametrize(
    "said, found",
    [("boost two hundred dollars", ["200"]), ("twenty-five kg", ["25"]), ("a hundred and twenty", ["120"]),
     ("boost 5k", ["5000"]), ("1.5k budget", ["1500"]), ("the one on the left", [])],
)  # fmt: skip
def test_english_numerals_and_thousands_with_a_k(said, found):
    assert numbers(said) == found


def test_a_common_word_of_english_is_no_identifier_and_a_rare_one_is(kitchen):
    plan = kitchen.plan("request a large locker, the owner is zhoulin")
    assert (plan.kind, list(plan.calls)) == ("tool", [{"size": "large", "user": "zhoulin"}])
    plan = kitchen.plan("request a large locker, whole team moves floors")  # "whole": nobody's account
    assert (plan.kind, list(plan.calls)) == ("tool", [{"size": "large"}])


def test_a_word_of_english_is_never_spelled_as_another():
    assert spelling.normalized("whole team", PATTERNS, reading.ACTS) == "whole team"  # not "whose"


@pytest.mark.parametrize(
    "said", ["L-101 还是 L-107 来着，帮我申请个小柜", "L-101 or L-107, not sure, request a small locker"]
)
def test_an_optional_value_said_as_one_or_the_other_is_a_question(kitchen, said):
    plan = kitchen.plan(said)
    assert (plan.kind, plan.tool, plan.missing) == ("missing", "request_locker", ("near",))


@pytest.mark.parametrize(
    "said, hhmm",
    [("明早九点半", "09:30"), ("晚上十点一刻", "22:15"), ("by 6.45pm", "18:45"), ("at midnight", "00:00"),
     ("17:05 sharp", "17:05"), ("中午一点", "13:00")],
)  # fmt: skip
def test_a_time_of_day_as_people_say_it_is_read_as_hh_mm(said, hhmm):
    from agent.dates import times, wants_clock

    assert [value for _, value in times(said)] == [hhmm]
    assert wants_clock({"pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"})
    assert not wants_clock({"pattern": "^[0-9]{4}$"})


def test_a_free_text_after_its_label_and_a_hypothetical_asks_no_write(kitchen):
    plan = kitchen.plan("帮我下单一份汤 D204 备注 不要香菜")
    assert (plan.kind, list(plan.calls)) == ("tool", [{"desk": "D204", "dish": "soup", "note": "不要香菜"}])
    supposed = kitchen.plan("假如 D204 下单一份汤，要多久？")  # 假如 is no 加入 ("add") by its sound
    assert supposed.kind != "tool" or supposed.effect == "read"


def test_a_chinese_alias_by_characters_no_other_value_holds():
    from agent.aliases import _shortened

    found = _shortened({"东莞长安a仓": {"A"}, "东莞虎门b仓": {"B"}})
    assert found["虎门"] == "B" and found["长安"] == "A" and "东莞" not in found


@pytest.mark.parametrize(
    "said, hhmm",
    [("能便宜一点吗", []), ("快一点处理", []), ("三点五公斤", []), ("预约 3点 5个人", ["03:00"])],
)  # "3点 5个人": three o'clock, never 03:05
def test_a_little_a_weight_or_a_count_is_no_time_of_day(said, hhmm):
    from agent.dates import times

    assert [value for _, value in times(said)] == hhmm


def test_long_messages_read_in_linear_time():
    from agent.numbers import numbers
    from app.models.embedded.identifiers import proper_names

    assert numbers("one " * 3000 + "point five")[-1].endswith(".5")  # bounded words before "point"
    assert len(proper_names("Aa. " * 3000)) == 1


@pytest.mark.parametrize(
    "said, flag",
    [("order gloves, urgent ya", ["true"]), ("both not urgent", ["false"]), ("口罩订两箱，不急的", ["false"]),
     ("要加急", ["true"]), ("急！！帮我订三盒", ["true"]), ("我很着急", []), ("订手套urgent", ["true"]),
     ("order gloves", [])],
)  # fmt: skip
def test_a_flag_is_said_yes_or_no_or_left_out(said, flag):
    from app.models.embedded.flags import flag as read_flag

    assert read_flag("urgent", {"type": "boolean", "description": "是否加急（可选）"}, said) == flag


def test_a_list_of_values_in_brackets_gives_each_value_its_own_words():
    from agent.aliases import aliases

    unit = {"type": "string", "enum": ["bottle", "box"], "description": "unit (瓶 bottle, 盒 box)"}
    found = aliases({"properties": {"unit": unit}}, "", "unit")
    assert (
        found["瓶"] == "bottle" and found["盒"] == "box" and found["boxes"] == "box" and "unit" not in found
    )


def test_a_report_of_what_was_done_and_a_look_first_ask_for_no_write():
    from app.models.embedded import reading

    assert not reading.requests("小李已经帮他把那笔住宿报了")  # told, not asked
    assert reading.requests("帮我把那笔住宿报了")
    assert reading.effect_asked("寄了台V2309A过来要登记 你先帮我看下数据库有这个机型没") == "read"
    assert reading.READ.search("帮我check一下") and reading.WRITE.search("帮我add一下")  # Latin in Chinese


def test_a_word_the_texts_give_two_values_names_neither():
    from agent.aliases import aliases

    room = {"type": "string", "enum": ["tianfu", "emei", "qingcheng"]}
    text = "tianfu=天府厅（3楼大会议室），emei=峨眉（5楼小会议室），qingcheng=青城（5楼小会议室）"
    found = aliases({"properties": {"room": room}}, text, "room")
    assert found["峨眉"] == "emei" and found["天府厅"] == "tianfu"
    assert "5楼小会议室" not in found and "会议室" not in found and "小会议室" not in found


def test_a_flag_s_words_follow_true_in_its_description_and_a_count_names_its_measure():
    from app.models.embedded.amounts import placed
    from app.models.embedded.flags import flag as read_flag

    assert read_flag("urgent", {"type": "boolean", "description": "true = 加急 express order"}, "急用") == [
        "true"
    ]
    people = {"attendees": {"type": "integer", "description": "参会人数（可选）"}}
    assert placed("订天府厅 大概15个人", people, []) == {"attendees": ["15"]}  # 人 of 个人 names 人数
    order = {"quantity": {"type": "integer"}, "unit": {"type": "string", "enum": ["box", "carton"]}}
    assert placed("order resin, one carton is enough", order, ["quantity"]) == {"quantity": ["1"]}
    assert placed("the one on the left", order, ["quantity"]) == {}


def test_a_tool_the_words_name_lacking_a_value_is_not_passed_over_for_one_they_do_not_name():
    """The currency tool the words name lacks its currencies: the demo asks, and never takes a tool the
    words say nothing of for the proper names it finds ("Chinese", "Indian" as cities of a time zone)."""
    from pathlib import Path

    from agent.tools import ToolRegistry
    from app.eval.tools_file import read, registered
    from app.models.embedded.routing import Router

    prompts = read(Path(__file__).parents[3] / "benchmarks/prompts/dev_tools/finance_geo_tools.yaml", "dev")
    registry = ToolRegistry()
    for tool in registered(prompts[0].added):
        registry.register(tool)
    plan = Router(registry).plan("Convert 1,000 Chinese yuan into Indian rupees, please.")
    assert (plan.kind, plan.tool) == ("missing", "convert_currency")
    assert Router(registry).plan("What time zone is Cairo in?").calls == ({"city": "Cairo"},)
