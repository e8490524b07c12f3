"""What the demo model's host knows of each tool, one row per tool name (as `benchmarks/agentdojo_facts.py`
does for AgentDojo's tools): worked examples, how a result reads, and how the person names a value.

A tool without a row works with the demo model too: it is matched by its own texts and its result is
said plainly. The facts of a row:

- examples: requests this tool serves, with the arguments each calls for (they add words to match on).
- said: how a result reads, per language ("zh", "en"), as (condition, template) pairs; the first whose
  condition holds is used: "" always, "key" when the result's `key` is truthy, "!key" when it is not.
  Template fields come from the arguments and the result; a list field lists its items, each written
  by the `said_item` template.
- labels: parameter -> the words that name it in a request ("营销名", "marketing name"), beyond its title.
- one_of: arguments of which the request must give at least one (the host asks for the first).
- named: script ("zh", "en") -> the parameter that takes a market name the person gave without naming
  its field ("register RMX3998, the realme Neo 7"): the name's script decides.
- cues: words of which a request must hold one for this tool to serve it (a city alone asks no time:
  "成都冷不冷" is about the weather). A tool without cues is matched by its texts and values.
- offered: False for a tool the demo host never runs.
- stored_by: (a read tool, its argument) that says whether the value of this tool's first argument is
  stored already; when_stored: the tool that changes it then (`stored.py`: what is stored decides the act).

A labelled value that says it is not known yet (UNSET: "待定", "not decided") is left out.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Facts(NamedTuple):
    examples: tuple[tuple[str, dict[str, Any]], ...] = ()
    said: dict[str, tuple[tuple[str, str], ...]] = {}
    said_item: str = ""
    labels: dict[str, tuple[str, ...]] = {}
    one_of: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()
    named: dict[str, str] = {}
    offered: bool = True
    stored_by: tuple[str, str] = ("", "")
    when_stored: str = ""


NONE = Facts()
ROW = "{model} ({names})"  # a row's names as `person_facing` puts them for the person's language
UNSET = (
    "未定",
    "待定",
    "还没定",
    "没定",
    "未知",
    "not decided",
    "undecided",
    "be decided",
    "not known",
    "unknown",
    "tbd",
)
# the device service's default market name (devicedb.schema.DEFAULT_MARKET_NAME), as each answer says it: in
# Chinese the service's own words, with what they mean (a newcomer cannot know the tutorial's placeholder)
NONE_YET = {"zh": "营销名未解密，即暂无营销名", "en": "no market name yet"}
PLACEHOLDERS = {"营销名未解密": NONE_YET}
NAME_LABELS = {
    "marketName": ("中文营销名", "营销名", "market name", "marketing name", "中文名", "Chinese name"),
    "marketNameEn": ("英文营销名", "English market name", "English marketing name", "英文名", "English name"),
}
NAMED = {"zh": "marketName", "en": "marketNameEn"}
WEEKDAYS = {
    "Monday": "星期一", "Tuesday": "星期二", "Wednesday": "星期三", "Thursday": "星期四",
    "Friday": "星期五", "Saturday": "星期六", "Sunday": "星期日",
}  # fmt: skip

FACTS: dict[str, Facts] = {
    "add_device_model": Facts(
        stored_by=("query_device_model", "keyword"),
        when_stored="update_market_name",
        examples=(
            ("把机型 PJD110 添加到数据库", {"model": "PJD110"}),
            ("Add model RMX1901 to the database", {"model": "RMX1901"}),
            ("新增机型 V2227A，营销名 vivo Y77", {"model": "V2227A", "marketNameEn": "vivo Y77"}),
        ),
        said={
            "zh": (
                ("created", "机型 {model} 已添加到数据库（{names}）。"),
                ("", "机型 {model} 已在数据库中，没有重复添加（{names}）。"),
            ),
            "en": (
                ("created", "Model {model} added to the database ({names})."),
                ("", "Model {model} is already in the database; nothing was added ({names})."),
            ),
        },
        labels=NAME_LABELS,
        named=NAMED,
    ),
    "update_market_name": Facts(
        examples=(
            ("更新 PGT110 的营销名为 OPPO A2", {"model": "PGT110", "marketNameEn": "OPPO A2"}),
            (
                "update the market name for PHY110 to OPPO Reno11 F",
                {"model": "PHY110", "marketNameEn": "OPPO Reno11 F"},
            ),
            ("RMX3700 的中文营销名修改成 真我11 Pro", {"model": "RMX3700", "marketName": "真我11 Pro"}),
        ),
        said={
            "zh": (("", "已更新机型 {model} 的营销名（{names}）。"),),
            "en": (("", "Updated the market names of model {model} ({names})."),),
        },
        labels=NAME_LABELS,
        named=NAMED,
        one_of=("marketName", "marketNameEn"),
    ),
    "query_device_model": Facts(
        examples=(
            ("数据库里有 A5010 吗？", {"keyword": "A5010"}),
            ("Is PHB110 in the database?", {"keyword": "PHB110"}),
        ),
        said={
            "zh": (
                ("total", "数据库里有 {total} 个匹配 {keyword} 的机型：{items}。"),
                ("didYouMean", "数据库里没有 {keyword}；你是说 {didYouMean} 吗？"),
                ("", "数据库里没有匹配 {keyword} 的机型。"),
            ),
            "en": (
                ("total", "The database has {total} model(s) matching {keyword}: {items}."),
                ("didYouMean", "No model {keyword} is in the database; did you mean {didYouMean}?"),
                ("", "No model matching {keyword} is in the database."),
            ),
        },
        said_item=ROW,
    ),
    "list_device_models": Facts(
        examples=(
            ("数据库里都有哪些机型？", {}),
            ("Show all models", {}),
        ),
        said={
            "zh": (("total", "数据库里共有 {total} 个机型：{items}。"), ("", "数据库里还没有机型。")),
            "en": (
                ("total", "The database has {total} model(s): {items}."),
                ("", "The database has no models yet."),
            ),
        },
        said_item=ROW,
    ),
    "delete_device_model": Facts(
        stored_by=("query_device_model", "keyword"),
        said={
            "zh": (("", "已从数据库删除机型 {model}。"),),
            "en": (("", "Deleted model {model} from the database."),),
        },
    ),
    "calculator": Facts(
        examples=(
            ("3 加 5 等于几？", {"expression": "3 + 5"}),
            ("What is 6 times 7?", {"expression": "6 * 7"}),
        ),
        said={"zh": (("", "计算结果：{expression} = {result}"),), "en": (("", "{expression} = {result}"),)},
    ),
    "current_time": Facts(
        examples=(("现在几点？", {}), ("What day is today?", {}), ("柏林现在几点", {"timezone": "柏林"})),
        cues=(
            *("几点", "时间", "几号", "日期", "星期", "周几", "礼拜几", "时区", "钟"),
            *("早上", "上午", "中午", "下午", "晚上"),
            *("time", "date", "day", "clock", "o'clock", "hour", "timezone", "weekday"),
            *("morning", "afternoon", "evening", "night"),
        ),
        said={
            "zh": (
                ("placeZh", "现在是{placeZh}时间 {time}（{weekday}，{date}）。"),
                ("", "现在是 {timezone} 时间 {time}（{weekday}，{date}）。"),
            ),
            "en": (
                ("place", "It is {time} in {place} ({weekday}, {date})."),
                ("", "It is {time} {timezone} ({weekday}, {date})."),
            ),
        },
    ),  # fmt: skip
}


def facts(name: str) -> Facts:
    return FACTS.get(name, NONE)


def alone(name: str) -> bool:
    """Is the tool known by its schema alone (a tool added the README's way: no row of facts)?"""
    return name not in FACTS


def person_facing(fields: dict[str, Any], lang: str) -> dict[str, Any]:
    """A result's fields as the person reads them in `lang`: the date and time apart, the weekday and
    the service's placeholders in that language, and the market names together (`names`)."""
    shown = {key: _localized(value, lang) for key, value in fields.items()}
    moment = str(fields.get("datetime") or "")
    if len(moment) >= 16:
        shown["date"], shown["time"] = moment[:10], moment[11:16]
    if lang == "zh" and fields.get("weekday") in WEEKDAYS:
        shown["weekday"] = WEEKDAYS[fields["weekday"]]
    if "marketName" in fields or "marketNameEn" in fields:
        shown["names"] = _names(shown, lang)
    for key, value in shown.items():  # a list of rows: each row's names, the person's language first
        if isinstance(value, list):
            shown[key] = [{**row, "names": _row_names(row, lang)} if _is_row(row) else row for row in value]
    return shown


def _is_row(item: Any) -> bool:
    return isinstance(item, dict) and ("marketName" in item or "marketNameEn" in item)


def _row_names(row: dict[str, Any], lang: str) -> str:
    """A stored model's names in a list: the one in the person's language first, the other after it, or
    that it has none yet."""
    none_yet = NONE_YET[lang]
    zh = row.get("marketName") if row.get("marketName") not in (None, "", none_yet) else None
    en = row.get("marketNameEn") or None
    names = [name for name in ((zh, en) if lang == "zh" else (en, zh)) if name]
    return " / ".join(names) or none_yet


def _names(shown: dict[str, Any], lang: str) -> str:
    zh, en = shown.get("marketName"), shown.get("marketNameEn")
    if lang == "zh":
        return f"营销名：{zh or NONE_YET['zh']}" + (f"，英文营销名：{en}" if en else "")
    none_yet = NONE_YET["en"]
    parts = [f"market name: {zh}"] if zh and zh != none_yet else []
    parts += [f"English market name: {en}"] if en else []
    return "; ".join(parts) or none_yet


def _localized(value: Any, lang: str) -> Any:
    if isinstance(value, str):
        return PLACEHOLDERS.get(value, {}).get(lang, value)
    if isinstance(value, list):
        return [_localized(item, lang) for item in value]
    if isinstance(value, dict):
        return {key: _localized(item, lang) for key, item in value.items()}
    return value
