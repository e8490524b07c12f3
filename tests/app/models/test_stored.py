"""What is stored decides the act (app/models/embedded/stored.py): a name given with a code already stored is
a change of that name, asked of the real device service over loopback; a code not stored is added; a
service that cannot answer leaves the add as planned. Phrases written for development."""

from __future__ import annotations

from agent.tools import ToolRegistry
from agent.types import ToolContext
from app.models.embedded.routing import Router
from tools import default_tools


def _router(url: str) -> Router:
    registry = ToolRegistry()
    for tool in default_tools(url):
        registry.register(tool)
    return Router(registry)


def test_a_name_for_a_stored_code_is_a_change_of_it(device_service):
    router = _router(f"{device_service.url}/api/models")
    add = router.registry.get("add_device_model")
    add.call(ToolContext(user_id="root"), '{"model": "PKX-110", "createdBy": "root"}')
    plan = router.plan("PKX110 的英文名是 Find X9")  # stored as PKX110 whatever the hyphen
    assert (plan.tool, plan.effect, plan.calls) == (
        "update_market_name",
        "destructive",
        ({"model": "PKX110", "marketNameEn": "Find X9"},),
    )
    plan = router.plan("PKX111 的英文名是 Find X9")  # not stored: an add, as before
    assert (plan.tool, plan.calls) == ("add_device_model", ({"model": "PKX111", "marketNameEn": "Find X9"},))
    assert router.plan("add PKX110").tool == "add_device_model"  # nothing to change: the add says it is there


def test_a_service_that_cannot_answer_leaves_the_add():
    plan = _router("http://127.0.0.1:9/api/models").plan("PKX110 的英文名是 Find X9")
    assert (plan.tool, plan.calls) == ("add_device_model", ({"model": "PKX110", "marketNameEn": "Find X9"},))


def test_a_stored_code_only_proposed_is_looked_up(device_service):
    router = _router(f"{device_service.url}/api/models")
    add = router.registry.get("add_device_model")
    add.call(ToolContext(user_id="root"), '{"model": "PKX110", "createdBy": "root"}')
    plan = router.plan("PKX110 呢")  # a code, no word of writing, stored already: look it up
    assert (plan.tool, plan.effect, plan.calls) == ("query_device_model", "read", ({"keyword": "PKX110"},))
    assert router.plan("PKX111 呢").tool == "add_device_model"  # not stored: proposed for adding
    assert router.plan("把 PKX110 加上").tool == "add_device_model"  # asked for: the add says it is there


def test_a_delete_of_what_is_not_stored_is_a_look_up(device_service):
    router = _router(f"{device_service.url}/api/models")
    add = router.registry.get("add_device_model")
    add.call(ToolContext(user_id="root"), '{"model": "PKX110", "createdBy": "root"}')
    plan = router.plan("PKX110 录错了，删掉吧")  # stored: the delete, confirmed before it runs
    assert (plan.tool, plan.effect, plan.calls) == (
        "delete_device_model",
        "destructive",
        ({"model": "PKX110"},),
    )
    plan = router.plan("单子 WO20261205-0031 作废掉")  # not stored (a work order's number): looked up
    assert (plan.tool, plan.effect, plan.calls) == (
        "query_device_model",
        "read",
        ({"keyword": "WO20261205-0031"},),
    )
    plan = _router("http://127.0.0.1:9/api/models").plan("PKX110 录错了，删掉吧")
    assert plan.tool == "delete_device_model"  # nothing known: the delete as planned, confirmed
