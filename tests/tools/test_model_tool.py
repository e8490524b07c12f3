"""The device-model tools against the running service, through the registry as the agent runs them."""

from __future__ import annotations

import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests

from agent.tools import ToolRegistry
from agent.types import ToolContext
from tests.support.fake_llm import FakeLLM, Reply
from tools.device_service import DeviceService
from tools.model_tool import AddModelTool, QueryModelTool

CTX = ToolContext(user_id="alice", permissions=frozenset({"add_model", "delete_model"}), run_id="run1")


def registry_for(url: str) -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(AddModelTool(url))
    registry.register(QueryModelTool(url))
    return registry


def run(registry: ToolRegistry, name: str, args: dict, call_id: str = "call_1") -> dict:
    return json.loads(registry.execute_tool_call(CTX, {"name": name, "args": args, "id": call_id}))


def test_add_and_query(device_service):
    registry = registry_for(f"{device_service.url}/api/models")
    added = run(registry, "add_device_model", {"model": "CPH2223IN", "marketName": "OPPO Find N6"})
    assert added["ok"] is True
    assert (added["data"]["model"], added["data"]["created"]) == ("CPH2223", True)
    found = run(registry, "query_device_model", {"keyword": "cph2223"})
    assert found["data"]["total"] == 1
    assert found["data"]["items"][0]["marketName"] == "OPPO Find N6"


def test_replaying_the_same_call_id_writes_once(device_service):
    registry = registry_for(f"{device_service.url}/api/models")
    first = run(registry, "add_device_model", {"model": "CPH2411"})
    again = run(registry, "add_device_model", {"model": "CPH2411"})
    assert first == again
    assert first["data"]["created"] is True
    other_call = run(registry, "add_device_model", {"model": "CPH2411"}, call_id="call_2")
    assert other_call["data"]["created"] is False
    assert device_service.store.count() == 1


def test_service_4xx_is_not_retryable_and_carries_its_message(device_service):
    registry = registry_for(f"{device_service.url}/api/models")
    result = run(
        registry, "add_device_model", {"model": "A1"}
    )  # the schema lets it through; the service says no
    assert result["ok"] is False
    assert result["retryable"] is False
    assert "HTTP 422" in result["error"]
    assert "model: must be 3-20 letters or digits" in result["error"]


def test_5xx_and_unreachable_are_retryable():
    with FakeLLM(default=Reply({"error": "db down"}, 503)) as broken:
        result = run(registry_for(broken.url), "add_device_model", {"model": "CPH2223"})
    assert result == {"ok": False, "error": "the device service failed (HTTP 503)", "retryable": True}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed_port = s.getsockname()[1]
    result = run(
        registry_for(f"http://127.0.0.1:{closed_port}/api/models"), "query_device_model", {"keyword": "x"}
    )
    assert result["retryable"] is True
    assert "unreachable" in result["error"]


def test_timeout_is_retryable():
    with FakeLLM(default=Reply({}, 200, delay=2)) as slow:
        tool = AddModelTool(DeviceService(slow.url, timeout=0.3))
        registry = ToolRegistry()
        registry.register(tool)
        result = run(registry, "add_device_model", {"model": "CPH2223"})
    assert result == {
        "ok": False,
        "error": "the device service did not answer within 0.3s",
        "retryable": True,
    }


@pytest.mark.parametrize("args", [{}, {"model": 2223}, {"model": "X", "marketName": 5}])
def test_schema_violations_never_reach_the_service(device_service, args):
    registry = registry_for(f"{device_service.url}/api/models")
    assert run(registry, "add_device_model", args)["retryable"] is True
    assert requests.get(f"{device_service.url}/api/models").json()["total"] == 0


class DropFirstResponse:
    """A loopback proxy in front of the device service: it forwards every POST, but drops the answer to
    the first one, as a network failure right after the write would."""

    def __init__(self, target: str) -> None:
        proxy = self
        self.forwarded = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {
                    k: v for k, v in self.headers.items() if k.lower() in ("content-type", "idempotency-key")
                }
                resp = requests.post(target, data=body, headers=headers)
                proxy.forwarded += 1
                if proxy.forwarded == 1:
                    self.close_connection = True
                    return
                self.send_response(resp.status_code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(resp.content)))
                self.end_headers()
                self.wfile.write(resp.content)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/api/models"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()


def test_a_retried_write_after_a_lost_response_writes_one_row(device_service):
    proxy = DropFirstResponse(f"{device_service.url}/api/models")
    try:
        result = run(registry_for(proxy.url), "add_device_model", {"model": "CPH2223"})
    finally:
        proxy.server.shutdown()
    assert proxy.forwarded == 2
    assert (result["ok"], result["data"]["created"]) == (True, True)
    assert device_service.store.count() == 1


def test_each_tool_says_its_result_in_its_own_words_in_the_users_language(device_service):
    """The demo model's facts of each tool (app/models/embedded/facts.py), as its host says a result
    (answers.statement): in the person's language, placeholders and weekdays included."""
    from app.models.embedded.answers import statement
    from tools import default_tools

    registry, approving = ToolRegistry(), ToolRegistry(confirm=lambda name, args, ctx: True)
    for tool in default_tools(f"{device_service.url}/api/models"):
        registry.register(tool)
    for tool in default_tools(f"{device_service.url}/api/models"):
        approving.register(tool)

    def said(name: str, args: dict, lang: str, call_id: str = "c1") -> str:
        call = {"name": name, "args": args, "id": call_id}
        ran = approving if name == "update_market_name" else registry  # the person says yes to changes
        envelope = json.loads(ran.execute_tool_call(CTX, call))
        return statement(registry.get(name), call, envelope, lang)

    assert said("list_device_models", {}, "zh") == "数据库里还没有机型。"
    assert said("add_device_model", {"model": "V2145", "marketName": "vivo"}, "en") == (
        "Model V2145 added to the database (market name: vivo)."
    )
    assert said("add_device_model", {"model": "v2145"}, "zh", "c3") == (
        "机型 V2145 已在数据库中，没有重复添加（营销名：vivo）。"
    )
    assert (
        said("query_device_model", {"keyword": "V2145"}, "zh")
        == "数据库里有 1 个匹配 V2145 的机型：V2145 (vivo)。"
    )
    assert said("query_device_model", {"keyword": "X9"}, "en") == "No model matching X9 is in the database."
    assert said("list_device_models", {}, "en") == "The database has 1 model(s): V2145 (vivo)."
    assert said("calculator", {"expression": "6 * 7"}, "zh") == "计算结果：6 * 7 = 42"
    assert said("calculator", {"expression": "1000 / 8"}, "en") == "1000 / 8 = 125"
    assert said("calculator", {"expression": "7 / 2"}, "en") == "7 / 2 = 3.5"
    assert said("add_device_model", {"model": "A1"}, "zh", "c2").startswith(
        "add_device_model 没有完成：机型服务拒绝了这个请求（HTTP 422）"
    )
    assert said("add_device_model", {"model": "V2146"}, "en", "c4") == (
        "Model V2146 added to the database (no market name yet)."
    )
    assert said("add_device_model", {"model": "V2147", "marketNameEn": "vivo Y3"}, "en", "c5") == (
        "Model V2147 added to the database (English market name: vivo Y3)."
    )
    assert said("query_device_model", {"keyword": "V2146"}, "en") == (
        "The database has 1 model(s) matching V2146: V2146 (no market name yet)."
    )
    assert said("update_market_name", {"model": "V2145", "marketNameEn": "vivo Y02"}, "zh", "c7") == (
        "已更新机型 V2145 的营销名（营销名：vivo，英文营销名：vivo Y02）。"
    )
    assert said("query_device_model", {"keyword": "V2145"}, "en") == (  # a list names both, its own first
        "The database has 1 model(s) matching V2145: V2145 (vivo Y02 / vivo)."
    )
    assert said("query_device_model", {"keyword": "V2147"}, "zh") == (
        "数据库里有 1 个匹配 V2147 的机型：V2147 (vivo Y3)。"
    )
    assert said("update_market_name", {"model": "V9999", "marketName": "x"}, "zh", "c6") == (
        "update_market_name 没有完成：数据库里没有机型 V9999。"
    )
    assert re.fullmatch(
        r"现在是北京时间 \d\d:\d\d（星期.，\d{4}-\d\d-\d\d）。",
        said("current_time", {"timezone": "北京"}, "zh", "c8"),
    )
    assert re.fullmatch(
        r"It is \d\d:\d\d in Beijing \([A-Z][a-z]+day, \d{4}-\d\d-\d\d\)\.",
        said("current_time", {"timezone": "Asia/Shanghai"}, "en"),
    )
    assert said("delete_device_model", {"model": "V2145"}, "en") == (
        "delete_device_model was not done: you did not approve it, so it was not run."
    )
    assert said("update_market_name", {"model": "V9999", "marketNameEn": "x"}, "en", "c9") == (
        "update_market_name was not done: no model V9999 is in the database."
    )
