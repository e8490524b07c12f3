"""Several requests in one message are each planned (app/models/embedded/several.py): the answer covers the
whole request, not its first part. Phrases written for development."""

from __future__ import annotations

import pytest

from agent.tools import ToolRegistry
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
         [("calculator", {"expression": "(12+30)*7"}), ("current_time", {"timezone": "北京"})]),
        ("what time is it in Tokyo, and also what is 3*7",
         [("calculator", {"expression": "3*7"}), ("current_time", {"timezone": "Tokyo"})]),
    ],
)  # fmt: skip
def test_each_request_of_a_message_is_planned(router, said, calls):
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
