"""AddModelTool, QueryModelTool, ListModelsTool, DeleteModelTool: the device-model tools, on the service
at ADD_MODEL_URL.

Mirrors `tools/model_tool.go` of the tutorial: `add_device_model` has the tutorial's name, description
and parameters (plus length limits, and an English sentence so English requests find it too) and posts
the tutorial's body. What the host adds: the user's id injected as `createdBy`, the `add_model`
permission, values grounded in the user's words, and the run's Idempotency-Key.
"""

from __future__ import annotations

import json
from urllib.parse import quote

from agent.types import ToolContext
from devicedb.schema import DEFAULT_MARKET_NAME, normalize_code
from tools.device_service import DeviceServiceTool

CODE = {  # a model code as manufacturers write it, with a digit: CPH2223, V2145, 2201123C, SM-G9910
    "type": "string",
    "maxLength": 30,
    "pattern": "^(?=[^0-9]*[0-9])[A-Za-z0-9]+(?:[- ][A-Za-z0-9]+)*$",
}


class ModelCodeTool(DeviceServiceTool):
    """A device-model tool: a code is the same code however it is written (SM-G9910 = smg9910)."""

    def canonical(self, parameter: str, value: str) -> str:
        return (normalize_code(value) or value) if parameter in ("model", "keyword") else value


class AddModelTool(ModelCodeTool):
    name = "add_device_model"
    idempotent = True  # the service keeps one row per code
    deduplicated = True  # and the answer of each Idempotency-Key
    permission = "add_model"
    injected = {"createdBy": "user_id"}
    grounded = ("model", "marketName", "marketNameEn")
    summary = {
        "zh": "添加机型到数据库（可带中英文营销名）",
        "en": "add a device model to the database (with its market names)",
    }
    description = (
        "添加设备机型到数据库。当用户查询未解禁的机型时，可以使用此工具将机型添加到数据库中。"
        "机型代码应该去除后缀（如 IN、CN 等），例如 CPH2223IN 应该使用 CPH2223。"
        "Add (record, save) a device model code to the database, "
        'e.g. "add RMX1901", "把 PJD110 加入数据库".'
    )
    parameters = {
        "type": "object",
        "properties": {
            "model": {
                **CODE,
                "description": "机型代码，例如 CPH2223（去除后缀如 IN、CN 等）。The code, e.g. CPH2223.",
            },
            "marketName": {
                "type": "string",
                "maxLength": 100,
                "title": "营销名 / market name",
                "description": "中文营销名，例如 OPPO Find N6",
            },
            "marketNameEn": {
                "type": "string",
                "maxLength": 100,
                "title": "英文营销名 / English market name",
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
            return self.service.request(ctx, "POST", json=body, retries=0).text
        added = self.service.request(ctx, "POST", json=body, headers={"Idempotency-Key": ctx.idempotency_key})
        return added.text


class QueryModelTool(ModelCodeTool):
    name = "query_device_model"
    effect = "read"
    grounded = ("keyword",)
    summary = {"zh": "查询某个机型是否已在数据库中", "en": "look up whether a model is in the database"}
    description = (
        "查询数据库中已有的设备机型（只读）。按机型代码（例如 CPH2223）或营销名关键字查找，"
        "返回匹配的记录。用户问某个机型是否已在数据库中时使用，例如“数据库里有 A5010 吗？”"
        "“查一下 PJD110 在不在”；不要用它添加机型。"
        'Look up whether a model is in the database (read only), e.g. "is PJD110 in the database?", '
        '"does the database have A5010?".'
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
        return self.service.request(ctx, "GET", params={"q": keyword, "limit": 10}).text


class ListModelsTool(DeviceServiceTool):
    name = "list_device_models"
    effect = "read"
    summary = {
        "zh": "列出数据库里的机型和总数",
        "en": "list the models in the database, with their total",
    }
    description = (
        "列出数据库里已有的全部机型（只读），例如“数据库里都有哪些机型？”“列出全部机型”。"
        'List all the models in the database (read only), e.g. "show all models".'
    )
    parameters = {
        "type": "object",
        "properties": {
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "最多几个，默认 20"}
        },
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        limit = json.loads(input).get("limit", 20)
        return self.service.request(ctx, "GET", params={"limit": limit}).text


class DeleteModelTool(ModelCodeTool):
    name = "delete_device_model"
    effect = "destructive"
    idempotent = True
    permission = "delete_model"
    grounded = ("model",)
    summary = {
        "zh": "从数据库删除机型（先请你确认）",
        "en": "delete a model from the database (after you confirm)",
    }
    description = (
        "从数据库删除一个设备机型。只有用户明确要求删除某个机型时才使用；删除前会请用户确认。"
        "Delete a device model from the database."
    )
    parameters = {
        "type": "object",
        "properties": {"model": {**CODE, "description": "要删除的机型代码，例如 CPH2223"}},
        "required": ["model"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        code = quote(json.loads(input)["model"].strip(), safe="")
        # a replayed DELETE would say 404
        return self.service.request(ctx, "DELETE", path=f"/{code}", retries=0).text
