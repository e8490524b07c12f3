"""AddModelTool, QueryModelTool, DeleteModelTool: the device-model tools, on the service at ADD_MODEL_URL.

Mirrors `tools/model_tool.go` of the tutorial: `add_device_model` has the tutorial's name, description
and parameters (plus length limits) and posts the tutorial's body. What the host adds: the user's
id injected as `createdBy`, the `add_model` permission, and the run's Idempotency-Key.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from agent.types import ToolContext
from devicedb.schema import DEFAULT_MARKET_NAME
from tools.device_service import DeviceServiceTool


class AddModelTool(DeviceServiceTool):
    name = "add_device_model"
    idempotent = True  # the service keeps one row per code
    permission = "add_model"
    injected = {"createdBy": "user_id"}
    grounded = ("model",)
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
            "createdBy": {"type": "string", "description": "filled in by the host with the signed-in user"},
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
            "createdBy": args["createdBy"],
        }
        if not ctx.idempotency_key:
            return self.request(ctx, "POST", json=body, retries=0)
        return self.request(ctx, "POST", json=body, headers={"Idempotency-Key": ctx.idempotency_key})


class QueryModelTool(DeviceServiceTool):
    name = "query_device_model"
    effect = "read"
    grounded = ("keyword",)
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
        return self.request(ctx, "GET", params={"q": keyword, "limit": 10})


class DeleteModelTool(DeviceServiceTool):
    name = "delete_device_model"
    effect = "destructive"
    idempotent = True
    permission = "delete_model"
    grounded = ("model",)
    description = "从数据库删除一个设备机型。只有用户明确要求删除某个机型时才使用；删除前会请用户确认。"
    parameters = {
        "type": "object",
        "properties": {
            "model": {"type": "string", "maxLength": 30, "description": "要删除的机型代码，例如 CPH2223"},
        },
        "required": ["model"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        code = quote(json.loads(input)["model"].strip(), safe="")
        return self.request(ctx, "DELETE", path=f"/{code}", retries=0)  # a replayed DELETE would say 404
