"""update_market_name against the running service, through the registry as the agent runs it: asked
first (it overwrites), grounded in the person's words, once per call id, and a 404 told plainly."""

from __future__ import annotations

import json

from agent.tools import ToolRegistry
from agent.types import ToolContext
from tools.market_name import UpdateMarketNameTool
from tools.model_tool import AddModelTool

TYPED = "CPH2451 的营销名改成 OPPO Reno10 5G，中文营销名改成 欧珀 Reno10"
CTX = ToolContext(user_id="alice", permissions=frozenset({"add_model"}), run_id="run1", user_text=(TYPED,))


def registry(url: str, answers: list[bool]) -> tuple[ToolRegistry, list[tuple[str, dict]]]:
    asked: list[tuple[str, dict]] = []

    def confirm(name: str, args: dict, ctx: ToolContext) -> bool:
        asked.append((name, args))
        return answers.pop(0)

    tools = ToolRegistry(confirm=confirm)
    tools.register(AddModelTool(url))
    tools.register(UpdateMarketNameTool(url))
    return tools, asked


def run(tools: ToolRegistry, args: dict, call_id: str = "c1") -> dict:
    call = {"name": "update_market_name", "args": args, "id": call_id}
    return json.loads(tools.execute_tool_call(CTX, call))


def test_it_changes_the_names_after_the_person_agrees(device_service):
    url = f"{device_service.url}/api/models"
    tools, asked = registry(url, [False, True])
    tools.execute_tool_call(CTX, {"name": "add_device_model", "args": {"model": "CPH2451"}, "id": "a1"})
    args = {"model": "CPH2451", "marketNameEn": "OPPO Reno10 5G", "marketName": "欧珀 Reno10"}
    refused = run(tools, args)
    assert (refused["ok"], device_service.store.get("CPH2451")["marketNameEn"]) == (False, None)
    changed = run(tools, args, "c2")
    assert changed["ok"] is True
    assert asked == [("update_market_name", args)] * 2
    stored = device_service.store.get("CPH2451")
    assert (stored["marketName"], stored["marketNameEn"]) == ("欧珀 Reno10", "OPPO Reno10 5G")


def test_the_same_call_replayed_changes_nothing_more(device_service):
    url = f"{device_service.url}/api/models"
    tools, _ = registry(url, [True] * 3)
    tools.execute_tool_call(CTX, {"name": "add_device_model", "args": {"model": "CPH2451"}, "id": "a1"})
    first = run(tools, {"model": "CPH2451", "marketNameEn": "OPPO Reno10 5G"})
    device_service.store.update("CPH2451", {"marketNameEn": "changed since"}, None, "")
    again = run(tools, {"model": "CPH2451", "marketNameEn": "OPPO Reno10 5G"})
    assert again == first
    assert device_service.store.get("CPH2451")["marketNameEn"] == "changed since"


def test_an_unknown_code_or_no_name_is_a_clear_failure(device_service):
    tools, _ = registry(f"{device_service.url}/api/models", [True, True])
    missing = run(tools, {"model": "CPH2451", "marketNameEn": "OPPO Reno10 5G"})
    assert (missing["ok"], missing["error"]) == (
        False,
        "the device service refused (HTTP 404): model: no model 'CPH2451' in the database",
    )
    nameless = run(tools, {"model": "CPH2451"}, "c2")
    assert "marketName or marketNameEn" in nameless["error"]


def test_a_name_the_person_did_not_write_is_refused_before_asking(device_service):
    tools, asked = registry(f"{device_service.url}/api/models", [True])
    made_up = run(tools, {"model": "CPH2451", "marketNameEn": "OPPO Reno11"})
    assert made_up["ok"] is False and asked == []
