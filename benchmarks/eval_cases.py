"""The agent evaluation's prompts: this app's everyday work, in Chinese and English, each with what a
correct turn leaves in the database, the tool it runs, and what a truthful answer must say."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

SEED = {"RMX3371": "realme GT Neo2", "CPH2437": "OPPO Find X6", "V2309A": "vivo X100"}
NO = ("没有", "No model", "no model", "not in")
ALREADY = ("已在", "already")


@dataclass(frozen=True)
class Case:
    kind: str  # add, normalize, query, list, smalltalk, arithmetic, time
    text: str
    tool: str | None  # the tool a correct turn runs (None: no tool)
    arguments: dict = field(default_factory=dict)  # what the scripted control model sends
    adds: str | None = None  # the code a correct turn adds
    says: tuple[str, ...] = ()  # the answer must contain each of these
    says_one_of: tuple[str, ...] = ()  # ... and at least one of these
    never_says: tuple[str, ...] = ()  # ... and none of these

    @property
    def writes(self) -> bool:
        """Does the person ask for a write? (They approve exactly the writes they asked for.)"""
        return self.tool == "add_device_model"


def add(text: str, raw: str, code: str, kind: str = "add") -> Case:
    return Case(kind, text, "add_device_model", {"model": raw}, adds=code, says=(code,))


def query(text: str, code: str) -> Case:
    present = code in SEED
    return Case(
        "query",
        text,
        "query_device_model",
        {"keyword": code},
        says=(code,),
        says_one_of=() if present else NO,
        never_says=NO if present else (),
    )


def listing(text: str) -> Case:
    return Case("list", text, "list_device_models", says=tuple(SEED))


def smalltalk(text: str) -> Case:
    return Case("smalltalk", text, None)


def arithmetic(text: str, expression: str, result: int) -> Case:
    return Case("arithmetic", text, "calculator", {"expression": expression}, says=(str(result),))


def time(text: str) -> Case:
    return Case("time", text, "current_time", says=(str(datetime.now(UTC).year),))


CASES = [
    add("把机型 CPH2223 添加到数据库", "CPH2223", "CPH2223"),
    add("Please add device model CPH2411 to the database", "CPH2411", "CPH2411"),
    add("帮我把 PGT110 加到数据库里", "PGT110", "PGT110"),
    add("Add model PHY110 to the database, please", "PHY110", "PHY110"),
    add("新增机型 RMX3700 到数据库", "RMX3700", "RMX3700"),
    add("Save V2254 in the database", "V2254", "V2254"),
    add("Record model 2201123C in the database", "2201123C", "2201123C"),
    Case(
        "add",
        "把 CPH2437 添加到数据库",
        "add_device_model",
        {"model": "CPH2437"},
        says=("CPH2437",),
        says_one_of=ALREADY,
    ),
    add("把机型 CPH2223IN 添加到数据库", "CPH2223IN", "CPH2223", "normalize"),
    add("Add device model RMX3363EEA to the database", "RMX3363EEA", "RMX3363", "normalize"),
    add("添加机型 cph2305cn 到数据库", "cph2305cn", "CPH2305", "normalize"),
    add("Please add v2318eu to the database", "v2318eu", "V2318", "normalize"),
    query("数据库里有 V2145 吗？", "V2145"),
    query("数据库里有 RMX3371 吗？", "RMX3371"),
    query("Is CPH2437 in the database?", "CPH2437"),
    query("Does the database have PJF110?", "PJF110"),
    query("查一下 V2309A 在不在数据库", "V2309A"),
    query("查询机型 CPH9999 是否存在", "CPH9999"),
    query("Is there a model V2145 in the db?", "V2145"),
    query("数据库中是否存在 RMX3371？", "RMX3371"),
    listing("列出所有机型"),
    listing("库里现在有哪些机型"),
    listing("Show me all the models in the database"),
    listing("List the device models"),
    smalltalk("你好呀"),
    smalltalk("谢谢你的帮助"),
    smalltalk("Hello, who are you?"),
    smalltalk("Thanks, that's all!"),
    arithmetic("12 * 7 等于多少？", "12 * 7", 84),
    arithmetic("What is 15 + 27?", "15 + 27", 42),
    arithmetic("计算 (3 + 4) * 5", "(3 + 4) * 5", 35),
    time("现在几点了？"),
    time("What time is it now?"),
    time("今天是星期几？"),
]
