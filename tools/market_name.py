"""UpdateMarketNameTool: set or change a stored model's market names (Chinese and English), with a PATCH
on the device service at ADD_MODEL_URL. It overwrites what was there, so the person confirms it first;
with the run's Idempotency-Key a lost answer is retried without changing anything twice."""

from __future__ import annotations

import json
from urllib.parse import quote

from agent.types import ToolContext, ToolError
from tools.model_tool import CODE, ModelCodeTool


class UpdateMarketNameTool(ModelCodeTool):
    name = "update_market_name"
    effect = "destructive"  # it overwrites the names stored: the person confirms first
    idempotent = True
    deduplicated = True  # the service keeps the answer of each Idempotency-Key
    permission = "add_model"  # whoever may add a model may name it
    grounded = ("model", "marketName", "marketNameEn")
    summary = {
        "zh": "修改已有机型的中英文营销名（先请你确认）",
        "en": "change a stored model's market names (after you confirm)",
    }
    description = (
        "修改数据库中已有机型的中英文营销名。会覆盖原值（marketName 中文，marketNameEn 英文），只给要改的。"
        "Set or change the market names of a model already in the database (overwrites them)."
    )
    parameters = {
        "type": "object",
        "properties": {
            "model": {**CODE, "description": "要修改的机型代码，例如 CPH2451。The code, e.g. CPH2451."},
            "marketName": {
                "type": "string",
                "maxLength": 100,
                "title": "营销名 / market name",
                "description": "新的中文营销名，例如 欧珀 Reno10。The new Chinese market name.",
            },
            "marketNameEn": {
                "type": "string",
                "maxLength": 100,
                "title": "英文营销名 / English market name",
                "description": "新的英文营销名，例如 OPPO Reno10 5G。The new English market name.",
            },
        },
        "required": ["model"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        body = {name: args[name] for name in ("marketName", "marketNameEn") if name in args}
        if not body:
            raise ToolError("say the new marketName or marketNameEn (or both)", retryable=True)
        path = f"/{quote(args['model'].strip(), safe='')}"
        headers = {"Idempotency-Key": ctx.idempotency_key} if ctx.idempotency_key else {}
        retries = 1 if ctx.idempotency_key else 0
        return self.service.request(ctx, "PATCH", path, retries=retries, json=body, headers=headers).text
