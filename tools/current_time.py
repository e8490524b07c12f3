"""CurrentTimeTool: the current date and time in a place — an IANA timezone, or a common city name in
Chinese or English (the tutorial's built-in "时间" tool); with no place named, the person's own zone:
`TZ`, else the machine's local zone, else UTC. The result names the place in both languages when it is
a city (or a city's zone), so an answer can say "北京时间 09:35" or "09:35 in Beijing"."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.function_tool import FunctionTool
from agent.types import ToolContext, ToolError

PLACES = [  # (中文, English, IANA zone): the person's own word for a city works in either language
    ("北京", "Beijing", "Asia/Shanghai"),
    ("上海", "Shanghai", "Asia/Shanghai"),
    ("广州", "Guangzhou", "Asia/Shanghai"),
    ("深圳", "Shenzhen", "Asia/Shanghai"),
    ("成都", "Chengdu", "Asia/Shanghai"),
    ("杭州", "Hangzhou", "Asia/Shanghai"),
    ("香港", "Hong Kong", "Asia/Hong_Kong"),
    ("台北", "Taipei", "Asia/Taipei"),
    ("东京", "Tokyo", "Asia/Tokyo"),
    ("首尔", "Seoul", "Asia/Seoul"),
    ("新加坡", "Singapore", "Asia/Singapore"),
    ("曼谷", "Bangkok", "Asia/Bangkok"),
    ("雅加达", "Jakarta", "Asia/Jakarta"),
    ("孟买", "Mumbai", "Asia/Kolkata"),
    ("新德里", "New Delhi", "Asia/Kolkata"),
    ("迪拜", "Dubai", "Asia/Dubai"),
    ("莫斯科", "Moscow", "Europe/Moscow"),
    ("伦敦", "London", "Europe/London"),
    ("巴黎", "Paris", "Europe/Paris"),
    ("柏林", "Berlin", "Europe/Berlin"),
    ("纽约", "New York", "America/New_York"),
    ("芝加哥", "Chicago", "America/Chicago"),
    ("洛杉矶", "Los Angeles", "America/Los_Angeles"),
    ("旧金山", "San Francisco", "America/Los_Angeles"),
    ("多伦多", "Toronto", "America/Toronto"),
    ("圣保罗", "São Paulo", "America/Sao_Paulo"),
    ("悉尼", "Sydney", "Australia/Sydney"),
]
CITIES = {name: zone for zh, en, zone in PLACES for name in (zh, en)}
_BY_NAME = {name.casefold(): zone for name, zone in CITIES.items()}
_NAMES = {name.casefold(): (zh, en) for zh, en, _ in PLACES for name in (zh, en)}
_FIRST_CITY = {zone: (zh, en) for zh, en, zone in reversed(PLACES)}  # Asia/Shanghai: 北京 / Beijing


def local_zone() -> str:
    """The person's zone: `TZ` when it names one, else the machine's (/etc/localtime), else UTC."""
    candidates = [os.environ.get("TZ", "").removeprefix(":")]
    link = Path("/etc/localtime")
    if link.is_symlink():
        candidates.append(str(link.resolve()).partition("/zoneinfo/")[2])
    for zone in candidates:
        try:
            if zone and ZoneInfo(zone):
                return "UTC" if zone in ("Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu") else zone
        except (ZoneInfoNotFoundError, ValueError):
            continue
    return "UTC"


def zone_of(place: str) -> str:
    """The IANA zone of `place` (a zone, or a city of CITIES); ToolError when it is neither."""
    zone = _BY_NAME.get(place.strip().casefold(), place.strip())
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ToolError(
            f"unknown place {place!r}; use an IANA timezone such as Asia/Shanghai, or a city such as "
            "北京, Tokyo, London or New York",
            retryable=True,
        ) from None
    return zone


class CurrentTimeTool(FunctionTool):
    name = "current_time"
    effect = "read"
    summary = {
        "zh": "告诉你现在的日期和时间（可指定城市）",
        "en": "tell the current date and time (anywhere)",
    }
    description = (
        "查询当前日期和时间，可指定城市或时区。用户问现在几点、今天几号或星期几时使用。"
        'The current date and time, anywhere, e.g. "what time is it?", "what time is it in Paris?".'
    )
    parameters = {
        "type": "object",
        "properties": {
            "timezone": {
                "type": "string",
                "maxLength": 64,
                "description": "IANA 时区（如 Asia/Shanghai）或城市名（如 北京、Tokyo）；默认用户所在时区",
                "examples": list(CITIES),
            },
        },
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        place = json.loads(input).get("timezone") or local_zone()
        zone = zone_of(place)
        now = datetime.now(ZoneInfo(zone))
        zh, en = _NAMES.get(place.strip().casefold()) or _FIRST_CITY.get(zone) or (None, None)
        found = {
            "timezone": zone,
            "datetime": now.isoformat(timespec="seconds"),
            "weekday": now.strftime("%A"),
        }
        return json.dumps({**found, "place": en, "placeZh": zh}, ensure_ascii=False)
