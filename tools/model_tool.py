"""AddModelTool and QueryModelTool: the device-model tools, talking HTTP to the service at ADD_MODEL_URL.

Mirrors `tools/model_tool.go` of the tutorial: same name, description and schema for
`add_device_model`, same request body. HTTP failures become ToolErrors that say whether retrying helps.
"""

from __future__ import annotations

import json
from typing import Any

import requests

from agent.tools import FunctionTool
from agent.types import ToolContext, ToolError

DEFAULT_MARKET_NAME = "营销名未解密"


class _DeviceServiceTool(FunctionTool):
    def __init__(self, url: str, session: requests.Session | None = None, timeout: float = 10.0) -> None:
        self.url = url
        self.session = session or requests.Session()
        self.timeout = timeout

    def _request(self, ctx: ToolContext, method: str, **kwargs: Any) -> str:
        try:
            resp = self.session.request(method, self.url, timeout=ctx.seconds_left(self.timeout), **kwargs)
        except requests.Timeout:
            raise ToolError(
                f"the device service did not answer within {self.timeout:g}s", retryable=True
            ) from None
        except requests.ConnectionError:
            raise ToolError(f"the device service at {self.url} is unreachable", retryable=True) from None
        if resp.status_code >= 500:
            raise ToolError(f"the device service failed (HTTP {resp.status_code})", retryable=True)
        if resp.status_code >= 400:
            raise ToolError(f"the device service refused (HTTP {resp.status_code}): {_message(resp)}")
        return resp.text


class AddModelTool(_DeviceServiceTool):
    name = "add_device_model"
    description = (
        "添加设备机型到数据库。当用户查询未解禁的机型时，可以使用此工具将机型添加到数据库中。"
        "机型代码应该去除后缀（如 IN、CN 等），例如 CPH2223IN 应该使用 CPH2223。"
    )
    parameters = {
        "type": "object",
        "properties": {
            "model": {
                "type": "string",
                "maxLength": 30,
                "description": "机型代码，例如 CPH2223（去除后缀如 IN、CN 等）",
            },
            "marketName": {
                "type": "string",
                "maxLength": 100,
                "description": "中文营销名，例如 OPPO Find N6",
            },
            "marketNameEn": {
                "type": "string",
                "maxLength": 100,
                "description": "英文营销名，例如 OPPO Find N6",
            },
        },
        "required": ["model"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        body = {
            "model": args["model"],
            "marketName": args.get("marketName") or DEFAULT_MARKET_NAME,
            "marketNameEn": args.get("marketNameEn"),
        }
        headers = {"Idempotency-Key": ctx.idempotency_key} if ctx.idempotency_key else {}
        return self._request(ctx, "POST", json=body, headers=headers)


class QueryModelTool(_DeviceServiceTool):
    name = "query_device_model"
    description = (
        "查询数据库中已有的设备机型（只读）。按机型代码（例如 CPH2223）或营销名关键字查找，"
        "返回匹配的记录。用户问某个机型是否已在数据库中时使用；不要用它添加机型。"
    )
    parameters = {
        "type": "object",
        "properties": {
            "keyword": {
                "type": "string",
                "maxLength": 100,
                "description": "机型代码或营销名关键字，例如 CPH2223 或 Find N6",
            },
        },
        "required": ["keyword"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        keyword = json.loads(input)["keyword"]
        return self._request(ctx, "GET", params={"q": keyword, "limit": 10})


def _message(resp: requests.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:300]
    return str(body.get("error") or body.get("detail") or body) if isinstance(body, dict) else str(body)
