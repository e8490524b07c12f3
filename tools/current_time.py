"""CurrentTimeTool: the current date and time in an IANA timezone (the tutorial's built-in "时间" tool)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.tools import FunctionTool
from agent.types import ToolContext, ToolError


class CurrentTimeTool(FunctionTool):
    name = "current_time"
    effect = "read"
    examples = (("现在几点？", {}), ("What day is today?", {}))
    description = (
        "查询当前日期和时间。用户问现在几点、今天几号或星期几时使用。"
        'The current date and time, e.g. "what time is it?", "what day is today?".'
    )
    parameters = {
        "type": "object",
        "properties": {
            "timezone": {
                "type": "string",
                "maxLength": 64,
                "description": "IANA 时区，例如 Asia/Shanghai；默认 UTC",
            },
        },
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        name = json.loads(input).get("timezone") or "UTC"
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise ToolError(
                f"unknown timezone {name!r}; use an IANA name such as Asia/Shanghai", retryable=True
            ) from None
        now = datetime.now(zone)
        return json.dumps(
            {"timezone": name, "datetime": now.isoformat(timespec="seconds"), "weekday": now.strftime("%A")}
        )

    def outcome(self, args: dict[str, Any], result: dict[str, Any], lang: str) -> str:
        if not result["ok"]:
            return super().outcome(args, result, lang)
        now = result["data"]
        if lang == "zh":
            return f"现在是 {now['datetime']}（{now['timezone']}，{now['weekday']}）。"
        return f"It is {now['datetime']} ({now['timezone']}, {now['weekday']})."
