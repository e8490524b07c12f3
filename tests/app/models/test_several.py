"""Several requests in one message are each planned (app/models/embedded/several.py): the answer covers the
whole request, not its first part. Phrases written for development."""

from __future__ import annotations

import json

import pytest

from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext
from app.models.embedded.chat_model import planned_calls
from app.models.embedded.routing import Router
from app.models.embedded.several import parts
from tools import default_tools


@pytest.fixture(scope="module")
def router():
    registry = ToolRegistry()
    for tool in default_tools("http://127.0.0.1:9/api/models"):
        registry.register(tool)
    return Router(registry)


@pytest.mark.parametrize(
    "said, calls",
    [
        ("现在北京几点了？顺便算一下 (12+30)*7",
         [("current_time", {"timezone": "北京"}), ("calculator", {"expression": "(12+30)*7"})]),
        ("what is 3*7, and also what time is it in Tokyo",
         [("calculator", {"expression": "3*7"}), ("current_time", {"timezone": "Tokyo"})]),
    ],
)  # fmt: skip
def test_each_request_of_a_message_is_planned_in_the_order_asked(router, said, calls):
    plan = router.plan(said)
    made = planned_calls(plan).tool_calls
    assert [(call["name"], call["args"]) for call in made] == calls
    assert {plan.tool, *(p.tool for p in plan.also)} == {name for name, _ in calls}


def test_one_request_stays_one_plan(router):
    plan = router.plan("add PKX110 and then PKX120")  # one tool, two codes: no other request
    assert (plan.tool, plan.also) == ("add_device_model", ())
    assert plan.calls == ({"model": "PKX110"}, {"model": "PKX120"})
    assert router.plan("你好，顺便问一下你是谁").also == ()  # no tool: nothing planned beside it
    assert parts("查一下 A；另外 把 B 加上") == ["查一下 A", "把 B 加上"]
    plan = router.plan("the sticker reads pkx110; could you check whether that model is recorded?")
    assert (plan.tool, plan.also) == ("query_device_model", ())  # looked up, not also added


STATION = "^[A-Za-z][A-Za-z -]{1,39}$"


class TrainFare(FunctionTool):
    name = "train_fare"
    description = "Look up the second-class train fare between two stations."
    parameters = {
        "type": "object",
        "properties": {
            "from_station": {"type": "string", "pattern": STATION, "description": "From"},
            "to_station": {"type": "string", "pattern": STATION, "description": "To"},
        },
        "required": ["from_station", "to_station"],
        "additionalProperties": False,
    }
    grounded = ("from_station", "to_station")
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"fare": 1})


@pytest.mark.parametrize(
    "said, calls",
    [
        ("train fares from Hangzhou to Suzhou, to Wuxi and to Nanjing",
         [("Hangzhou", "Suzhou"), ("Hangzhou", "Wuxi"), ("Hangzhou", "Nanjing")]),
        ("train fares from Hangzhou and Ningbo to Shanghai",
         [("Hangzhou", "Shanghai"), ("Ningbo", "Shanghai")]),
        ("train fare from Hangzhou to Suzhou", [("Hangzhou", "Suzhou")]),
    ],
)  # fmt: skip
def test_arguments_of_one_kind_take_a_listed_run_a_call_each(said, calls):
    """Two arguments of one pattern take one value each, in order; a run listed together past them ("to
    Suzhou, to Wuxi and to Nanjing") gives its argument each, a call each."""
    registry = ToolRegistry()
    registry.register(TrainFare())
    plan = Router(registry).plan(said)
    assert [(c["from_station"], c["to_station"]) for c in plan.calls] == calls


def test_three_values_for_two_arguments_not_listed_are_a_question():
    registry = ToolRegistry()
    registry.register(TrainFare())
    plan = Router(registry).plan("train fare from Hangzhou to Suzhou or Wuxi to Nanjing")
    assert plan.calls == ()


def test_each_part_that_looks_something_up_is_planned_alone():
    """ "…, and what …": each part looks up with a tool of its own, in the order asked."""
    registry = ToolRegistry()
    for tool in [*default_tools("http://127.0.0.1:9/api/models"), TrainFare()]:
        registry.register(tool)
    plan = Router(registry).plan("train fare from Hangzhou to Suzhou, and what time is it in Tokyo?")
    made = planned_calls(plan).tool_calls
    assert [(call["name"], call["args"]) for call in made] == [
        ("train_fare", {"from_station": "Hangzhou", "to_station": "Suzhou"}),
        ("current_time", {"timezone": "Tokyo"}),
    ]


class ShippingCost(FunctionTool):
    name = "shipping_cost"
    description = "Quote the cost of shipping a parcel by its weight and speed."
    parameters = {
        "type": "object",
        "properties": {
            "weight_kg": {"type": "number", "description": "Weight in kg"},
            "speed": {"type": "string", "enum": ["standard", "express"], "description": "Speed"},
        },
        "required": ["weight_kg"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"cost": 1})


def test_a_look_up_takes_each_of_an_optional_arguments_values_a_call_each():
    """ "standard and then express": a quote each; the value said once goes with both."""
    registry = ToolRegistry()
    registry.register(ShippingCost())
    plan = Router(registry).plan("quote the shipping cost of a 3 kg parcel, first standard and then express")
    assert list(plan.calls) == [{"weight_kg": 3, "speed": "standard"}, {"weight_kg": 3, "speed": "express"}]
