"""What the host says for the embedded demo model, in the person's language, so no answer is the small
model's own guess: a greeting, a thank-you, who it is, what the tools can do (each tool's `summary`),
that a question is beyond the demo and how to get a real model, what the demo cannot do, a value it
needs, and — once the tools ran — each call's result, in the words of the tool's facts (`facts.py`)
or plainly.

Numbers and database facts in these answers come only from tool results; a failure is told as one.
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from agent.guards import envelope_of
from agent.llm.tool_calls import parse_arguments
from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded.facts import facts, person_facing
from app.models.embedded.reading import CJK
from app.models.embedded.routing import Plan, Router, offered

REAL_MODEL = "LLM_BASE_URL, LLM_API_KEY, LLM_MODEL"
REAL_MODEL_ZH = "LLM_BASE_URL、LLM_API_KEY、LLM_MODEL"  # as the start-up notice lists them
CANNOT = {
    "zh": "这个内置演示模型不能{what}：它拿不到这样的工具。要{what}，请配置一个真实模型（设置 "
    + REAL_MODEL_ZH
    + "，见 README），{confirm}",
    "en": "The embedded demo model cannot {what}: it is not given such a tool. To {what}, configure a real "
    "model (set " + REAL_MODEL + "; see the README), {confirm}",
}  # fmt: skip
WHAT = {"destructive": {"zh": "删除", "en": "delete"}, "write": {"zh": "写入", "en": "write"}}
CONFIRM = {"zh": "每次删除前都会请你确认。", "en": "and it will ask you to confirm each time first."}
CAN = {"zh": "我可以：", "en": "I can:"}
DEMO = {
    "zh": "这个教程智能体的内置演示模型 SmolLM2-135M（1.35亿参数）",
    "en": "the tutorial agent's embedded demo model, SmolLM2-135M (135 million parameters)",
}
SAYS = {
    "greeting": {
        "zh": "你好！我是" + DEMO["zh"] + "，用注册的工具帮你做事。问我“你都会什么？”看看全部功能。",
        "en": "Hello! I'm " + DEMO["en"] + ". I do things with the tools registered; ask \"what are you able "
        'to do?" to see them all.',
    },
    "thanks": {
        "zh": "不客气！还需要什么随时告诉我。",
        "en": "You're welcome! Just ask if you need anything else.",
    },
    "goodbye": {"zh": "再见！需要时随时来找我。", "en": "Goodbye! Come back any time."},
    "identity": {
        "zh": "我是" + DEMO["zh"] + "。我不是真正的大模型：由宿主按你的原话安排工具调用。",
        "en": "I'm " + DEMO["en"] + ". I'm no real LLM: the host plans my tool calls from your own words.",
    },
    "remark": {
        "zh": "收到。内置演示模型不会闲聊；要自由对话，请设置 " + REAL_MODEL_ZH + "（见 README）。",
        "en": "Noted. The demo model can't chat; for a real conversation set " + REAL_MODEL + " (see the "
        "README).",
    },
    "offtopic": {
        "zh": "这个内置演示模型做不了，也回答不了：它只能用注册的工具做事（问“你都会什么？”）。"
        "要用真实模型，请设置 " + REAL_MODEL_ZH + "（见 README）。",
        "en": "The demo model can't do or answer that: it can only use the tools registered (ask "
        '"what are you able to do?"). For a real model set ' + REAL_MODEL + " (see the README).",
    },
}  # fmt: skip
MISSING = {"zh": "要{tool}，{what}是什么？", "en": "To {tool}, what is {what}?"}  # "what is the city?"
WHICH = {
    "zh": "要把 {codes} 添加到数据库，还是查询？请说“添加 {codes}”或“查询 {codes}”。",
    "en": 'Shall I add {codes} to the database, or look {it} up? Say "add {codes}" or "look up {codes}".',
}


class Answerer:
    """The demo model's answerer: a turn's answer from its plan, or from the results of its calls."""

    def __init__(self, router: Router, registry: ToolRegistry) -> None:
        self.router, self.registry = router, registry

    def __call__(self, turn: list[BaseMessage], lang: str | None = None) -> str | None:
        """The host's answer to the turn so far, or None; `lang`: the conversation's (Router.plan_for)."""
        plan = self.router.plan_for(turn, lang)
        results = [m for m in turn if isinstance(m, ToolMessage)]
        if results:
            return self.results(turn, plan.lang)
        if plan.kind == "capabilities":
            return capabilities(self.registry, plan.lang)
        if plan.kind == "identity":
            return SAYS["identity"][plan.lang] + "\n" + capabilities(self.registry, plan.lang)
        if plan.kind in SAYS:
            return SAYS[plan.kind][plan.lang]
        if plan.kind == "cannot":
            what = WHAT.get(plan.effect, WHAT["write"])[plan.lang]
            return CANNOT[plan.lang].format(what=what, confirm=CONFIRM[plan.lang])
        if plan.kind == "missing":
            return self.missing(plan)
        if plan.kind == "which":
            joined = ("、" if plan.lang == "zh" else ", ").join(str(c["code"]) for c in plan.calls)
            return WHICH[plan.lang].format(codes=joined, it="them" if len(plan.calls) > 1 else "it")
        return None

    def results(self, turn: list[BaseMessage], lang: str) -> str:
        calls: dict[str, dict[str, Any]] = {
            str(c["id"]): dict(c) for m in turn if isinstance(m, AIMessage) for c in m.tool_calls
        }
        lines = []
        for message in (m for m in turn if isinstance(m, ToolMessage)):
            call = calls.get(message.tool_call_id, {"name": message.name, "args": {}})
            tool = self.registry.get(str(call["name"] or ""))
            lines.append(statement(tool, call, envelope_of(message.text), lang))
        return "\n".join(lines)

    def missing(self, plan: Plan) -> str:
        tool = self.registry.get(plan.tool)
        properties = tool.parameters.get("properties", {}) if tool else {}
        what = "、".join(
            _said(properties.get(p, {}).get("description", p), plan.lang, p.replace("_", " "))
            for p in plan.missing
        )
        doing = _said(tool.description, plan.lang, plan.tool.replace("_", " ")) if tool else plan.tool
        if plan.lang == "en" and not what.lower().startswith(("the ", "a ", "an ", "your ")):
            what = f"the {what}"
        return MISSING[plan.lang].format(tool=doing, what=what)


def capabilities(registry: ToolRegistry, lang: str) -> str:
    """What the tools do, one line each, in the person's language: each tool's `summary`, else the first
    sentence of its description in that language."""
    lines = [f"- {summary(t, lang)}" for t in registry.tools() if offered(t)]
    return "\n".join([CAN[lang], *lines])


def summary(tool: FunctionTool, lang: str) -> str:
    said = tool.summary.get(lang)
    return said if said else _lower_first(_in(tool.description, lang), lang)


def statement(tool: FunctionTool | None, call: dict[str, Any], envelope: dict[str, Any], lang: str) -> str:
    """One call's result as a sentence: the template of the tool's facts when it has one, else plainly."""
    name = call.get("name") or "?"
    if not envelope["ok"]:
        failure = _failure(envelope["error"], lang)
        return f"{name} 没有完成：{failure}" if lang == "zh" else f"{name} was not done: {failure}"
    data = envelope["data"]
    args, _ = parse_arguments(call.get("args"))
    fields = person_facing({**args, **data} if isinstance(data, dict) else {**args, "result": data}, lang)
    known = facts(name)
    for condition, template in known.said.get(lang, ()):
        if _holds(condition, fields):
            return _fill(template, fields, known.said_item)
    return f"{name}：{_plainly(data, lang)}" if lang == "zh" else f"{name}: {_plainly(data, lang)}"


def _plainly(data: Any, lang: str) -> str:
    """A result no template words: its fields one after another ("city 北京, weather 晴"), a value that
    is itself a structure as JSON."""
    if not isinstance(data, dict) or not data:
        return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    shown = (
        f"{key} {_plainly(value, lang) if isinstance(value, str) else _json(value)}"
        for key, value in data.items()
    )
    return ("，" if lang == "zh" else ", ").join(shown)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


NO_SUCH_MODEL = r"the device service refused \(HTTP 404\).*no model '([^']+)'.*"
FAILURES = {  # the tools' own failures (model-facing, in English) as the person reads them
    "zh": [
        (r"the person refused to run .*", "你没有同意，所以没有执行。"),
        (NO_SUCH_MODEL, r"数据库里没有机型 \1。"),
        (r"the device service refused \(HTTP (\d+)\)", r"机型服务拒绝了这个请求（HTTP \1）"),
        (r"the device service at .* is unreachable", "机型服务连不上"),
    ],
    "en": [
        (r"the person refused to run .*", "you did not approve it, so it was not run."),
        (NO_SUCH_MODEL, r"no model \1 is in the database."),
    ],
}


def _failure(error: str, lang: str) -> str:
    for pattern, said in FAILURES[lang]:
        if re.match(pattern, error):
            return re.sub(pattern, said, error, count=1)
    return error


def _holds(condition: str, fields: dict[str, Any]) -> bool:
    if not condition:
        return True
    if condition.startswith("!"):
        return not fields.get(condition[1:])
    return bool(fields.get(condition))


def _fill(template: str, fields: dict[str, Any], item: str) -> str:
    """`template` with its fields filled; a list field lists its items, each by the `item` template."""
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    values = {}
    for name in names:
        value = fields.get(name, "")
        if isinstance(value, list):
            shown = [item.format_map(_Blank(v)) if item and isinstance(v, dict) else str(v) for v in value]
            value = ", ".join(shown)
        values[name] = "" if value is None else value
    return template.format_map(_Blank(values))


class _Blank(dict):
    """A field the result lacks reads as nothing, not as an error."""

    def __missing__(self, key: str) -> str:
        return ""


def _in(description: str, lang: str) -> str:
    """The first sentence of a bilingual description in `lang`, without its examples ("e.g.", "例如")."""
    sentences = [
        s.strip() for s in re.split(r"(?<=[。！？])|(?<=[.!?])\s+(?=[A-Z])", description) if s.strip()
    ]
    chosen = [s for s in sentences if bool(CJK.match(s.lstrip("\"'“(（"))) == (lang == "zh")]
    first = (chosen or sentences or [description])[0]
    return re.split(r",? e\.g\.|[，,]?\s*例如", first)[0].rstrip("。.，, ")


def _said(description: str, lang: str, name: str) -> str:
    """The description's first sentence in `lang`; the name it has in the schema when it has none in
    that language (an English question about a tool described in Chinese says "get weather", "city")."""
    sentence = _in(description, lang)
    if not sentence or bool(CJK.match(sentence.lstrip("\"'“(（"))) != (lang == "zh"):
        return name
    return _lower_first(sentence, lang)


def _lower_first(sentence: str, lang: str) -> str:
    return sentence[:1].lower() + sentence[1:] if lang == "en" and sentence[1:2].islower() else sentence
