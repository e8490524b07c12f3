"""Router: the embedded demo model's plan for a turn, made by the host from the person's words.

The 135M model cannot tell which tool a request needs, nor copy a value faithfully, so the host reads
the request (`reading.py`) and plans: small talk and questions about the assistant are the host's to
answer; otherwise which tool, if any, and the calls, every value taken from the person's words. A tool
is offered only when its effect is the one asked for (a question never writes; a delete never adds);
among those, the one whose description and worked examples (`facts.py`) share the most words with the
request and that takes the most values from it. The demo host never removes anything: a delete is told
it cannot. No tool fits: a question or request is one the demo cannot answer ("offtopic"), a remark is
chat. A value a tool needs is missing: the host asks for it. Several codes give several calls, up to
the per-reply cap. A remark (how the person finds things: the weather, a mood, their day; no question,
no request) calls a tool only when it gives a value the tool takes, never for a word it shares with one
("今天阳光真好" is no question for the clock); and a statement that says more than a tool's words and
values (`strays`: "Rain again, and my umbrella is at the office") is a remark about something else.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from agent.guards import model_schema
from agent.memory import TYPED
from agent.tool_selection import tokens
from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded import reading, spelling
from app.models.embedded.arithmetic import arithmetic
from app.models.embedded.facts import FACTS, NAME_LABELS, UNSET, facts
from app.models.embedded.values import CLAUSE_END, LABEL_LINKS, changed_to, codes, leads_to, names

Arguments = dict[str, Any]
# the words a request is read for, however typed (spelling.py): the reader's, the names of the market-name
# fields, and the tools' cues
PATTERNS = (
    *reading.CUE_PATTERNS,
    re.compile("|".join(re.escape(w) for words in NAME_LABELS.values() for w in words)),
    re.compile("|".join(re.escape(cue) for row in FACTS.values() for cue in row.cues)),
)
STRAYS = 3  # words of a statement about something other than the tool that make it a remark (strays)
PARTICLES = re.compile(r"\s*[吧呀啊哦呢啦哈嘛]+$")  # what ends a Chinese sentence, never a name
LATIN, CJK_RUN = re.compile(r"[A-Za-z]+"), re.compile(r"[\u3400-\u9fff]+")


@dataclass(frozen=True)
class Plan:
    """What the host makes of one request: kind "tool" (run `calls` of `tool`), "chat" (the model's
    words), "greeting", "thanks", "identity", "capabilities" (say what the tools do), "offtopic" (a question
    the demo cannot answer), "cannot" (no tool has the effect asked for), "missing" (ask for a value) or
    "which" (ask whether to add the codes of `calls` or look them up)."""

    lang: str
    kind: str
    effect: str = "read"
    tool: str = ""
    calls: tuple[Arguments, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass
class Router:
    """The demo model's Selector: the planned tool, or none; one tool round per turn."""

    registry: ToolRegistry
    max_calls: int = 5
    _plans: dict[str, Plan] = field(default_factory=dict)

    def select(self, tools: list[dict[str, Any]], turn: list[BaseMessage]) -> list[dict[str, Any]]:
        plan = self.plan_for(turn)
        if plan.kind != "tool" or len(turn) > 1:  # the tools ran: the host states their results
            return []
        return [t for t in tools if t["function"]["name"] == plan.tool]

    def plan_for(self, turn: list[BaseMessage], lang: str | None = None) -> Plan:
        """The plan for the turn's request: what the person typed in its first message. `lang`: the
        language of the whole conversation, when the caller read it (`reading.conversation_language`): a
        message like "CPH2223" or "y" has none of its own."""
        first = turn[0] if turn else None
        typed = str(first.additional_kwargs.get(TYPED, "")) if isinstance(first, HumanMessage) else ""
        if typed not in self._plans:
            self._plans = {typed: self.plan(typed)}  # one turn at a time: keep the latest only
        plan = self._plans[typed]
        return replace(plan, lang=lang) if lang and lang != plan.lang else plan

    def plan(self, typed: str) -> Plan:
        lang, text = reading.language(typed), spelling.normalized(typed, PATTERNS, reading.ACTS)
        effect = reading.effect_asked(text)
        about_us = self._about_us(text, effect)
        if about_us:
            return Plan(lang, about_us, effect)
        if effect == "read" and reading.cannot_serve(text) and reading.asks_or_requests(text):
            return Plan(lang, "offtopic", effect)  # the weather, a search, a poem: no tool of the demo's
        if effect == "write" and reading.unsure(text):  # "处理 PKX110": add it, or look it up?
            return Plan(lang, "which", effect, calls=tuple({"model": code} for code in codes(text)))
        fitting = [t for t in self.registry.tools() if t.effect == effect and offered(t) and cued(t, text)]
        if effect == "destructive" and reading.removes(text) or not fitting and effect != "read":
            return Plan(lang, "cannot", effect)
        ranked = sorted(fitting, key=lambda t: -self._fit(t, text, fitting))
        remark, statement = reading.remarks(text), not reading.asks_or_requests(text)
        for tool in ranked:
            values = values_for(tool, text)
            if self._fit(tool, text, fitting) <= 0:
                break
            if remark and not any(values.values()):
                continue  # "今天阳光真好" shares a word with the clock and asks nothing of it
            if statement and not reading.proposes(text) and strays(tool, text, values) >= STRAYS:
                continue  # "Rain again, and my umbrella is at the office" is about the rain, not the clock
            missing = [p for p in _required(tool) if not values.get(p)] + _one_of_missing(tool, values, text)
            if not missing:
                return Plan(lang, "tool", effect, tool.name, self._calls(tool, values))
            if effect != "read":
                return Plan(lang, "missing", effect, tool.name, missing=tuple(missing))
        return Plan(lang, "offtopic" if reading.asks_or_requests(text) else "chat", effect)

    @staticmethod
    def _about_us(text: str, effect: str) -> str | None:
        """The host's own kinds of turn: small talk, what it can do, who it is (never with a code)."""
        if codes(text) or effect != "read":
            return None
        if reading.asks_capabilities(text):
            return "capabilities"
        if reading.asks_identity(text):
            return "identity"
        return reading.small_talk(text)

    def _fit(self, tool: FunctionTool, text: str, among: list[FunctionTool]) -> float:
        """How well `tool` fits the request: words shared with its texts (rarer words count more), and
        two for each of its arguments the words fill."""
        return _shared_words(text, tool, among) + 2 * sum(1 for v in values_for(tool, text).values() if v)

    def _calls(self, tool: FunctionTool, values: dict[str, list[str]]) -> tuple[Arguments, ...]:
        """One call per value of the first required argument that has several (several codes); the
        optional values then go with none of them (whose market name would it be?)."""
        first = {name: found[0] for name, found in values.items() if found}
        spread = next((name for name in _required(tool) if len(values.get(name, [])) > 1), None)
        if spread is None:
            return (first,)
        needed = {name: value for name, value in first.items() if name in _required(tool)}
        return tuple({**needed, spread: value} for value in values[spread][: self.max_calls])


def strays(tool: FunctionTool, text: str, values: dict[str, list[str]]) -> float:
    """How much of `text` is about something other than `tool`: its Latin words (stop words aside) that
    are in neither the tool's texts nor a value, and half a word for each CJK character that no pair
    of characters (or, alone, no character) of the tool's texts or of a value covers. A terse request
    ("What time is it now?", "计算 (3 + 4) * 5") has little of it; a remark has more."""
    known = " ".join([_texts(tool), *(v for found in values.values() for v in found)])
    vocabulary, lowered = set(tokens(known)), known.casefold()
    latin = [w for w in tokens(" ".join(LATIN.findall(text))) if w not in vocabulary and w not in lowered]
    loose = 0
    for run in CJK_RUN.findall(text):
        pairs = [i for i in range(len(run) - 1) if run[i : i + 2] in known]
        covered = {i for p in pairs for i in (p, p + 1)} | ({0} if len(run) == 1 and run in known else set())
        loose += len(run) - len(covered)
    return len(latin) + loose / 2


def values_for(tool: FunctionTool, text: str) -> dict[str, list[str]]:
    """For each argument the model would write: the values of it in the person's words, as written."""
    properties = model_schema(tool.parameters, tool.injected).get("properties", {})
    labelled = _labelled(tool, properties, text)
    rest = text
    for value in labelled.values():
        rest = rest.replace(value, " ")  # a name after its label holds no code ("OPPO Find N3")
    labelled = {name: value for name, value in labelled.items() if not _unset(value)}
    named = names(rest)
    found = {
        "codes": codes(rest),
        "arithmetic": [e for e in [arithmetic(text)] if e],
        "names": named,
    }
    for name in named:  # a market name given without its field's name: its script tells the field
        field = facts(tool.name).named.get("zh" if reading.CJK.search(name) else "en")
        if field and field not in labelled and not any(name in value for value in labelled.values()):
            labelled[field] = name
    return {name: _values(name, spec, tool, text, labelled, found) for name, spec in properties.items()}


def _unset(value: str) -> bool:
    """Does the value say it is not known yet ("待定", "not decided yet")?"""
    return any(word in value.casefold() for word in UNSET)


def _values(
    name: str, spec: dict[str, Any], tool: FunctionTool, text: str, labelled: dict[str, str], found: dict
) -> list[str]:
    listed = [*(spec.get("enum") or []), *(spec.get("examples") or [])]
    if listed:
        return [v for v in listed if isinstance(v, str) and _mentions(text, v)]
    if spec.get("title"):  # a labelled value ("营销名是 …") comes only after its label
        return [labelled[name]] if name in labelled and _fits(labelled[name], spec) else []
    if spec.get("pattern"):
        return [v for v in [*found["codes"], *found["arithmetic"]] if _fits(v, spec)]
    if name in tool.grounded and spec.get("type") == "string":  # a code, else a market name
        return [v for v in found["codes"] or found["names"] if _fits(v, spec)]
    return []


def _labelled(tool: FunctionTool, properties: dict[str, Any], text: str) -> dict[str, str]:
    """argument -> the words after one of its labels (its title and the tool's facts: "营销名",
    "marketing name"), where no longer label of another argument covers that place ("英文营销名" is not
    "营销名"); after a change verb only what it changes to ("market name for X to Y": Y). The label decides
    the field, whatever script the name is written in ("营销名 realme GT7" is the Chinese market name)."""
    labels = {name: _labels(tool, name, spec) for name, spec in properties.items()}
    places = [
        (m.start(), m.end(), name, label)
        for name, named in labels.items()
        for label in named
        for m in re.finditer(re.escape(label), text, re.IGNORECASE)
    ]
    kept = [p for p in places if not any(o != p and o[0] <= p[0] and p[1] <= o[1] for o in places)]
    values: dict[str, str] = {}
    for _, end, name, _label in sorted(kept):
        link = LABEL_LINKS.match(text[end:])
        clause, *rest = CLAUSE_END.split(text[end + link.end() :], 2)  # type: ignore[union-attr]
        value = changed_to(clause)
        if value is clause and rest and (said := leads_to(rest[0])):
            value = said  # a name said to be wrong, then what it should be: the latter
        if value is clause and (link[0].strip().casefold() == "of" or reading.CHANGE.match(clause)):  # type: ignore[index]
            continue  # "the market name for CPH2451", "营销名改一下": whose name, or the change, not the name
        value = PARTICLES.sub("", value.strip())  # "改成 真我 Neo 吧": the name, not the 吧
        if value and name not in values:
            values[name] = value
    return values


def _labels(tool: FunctionTool, name: str, spec: dict[str, Any]) -> list[str]:
    titled = [label.strip() for label in str(spec.get("title", "")).split("/") if label.strip()]
    return list(dict.fromkeys([*titled, *facts(tool.name).labels.get(name, ())]))


def _fits(value: str, spec: dict[str, Any]) -> bool:
    pattern, most = spec.get("pattern"), spec.get("maxLength")
    return (most is None or len(value) <= most) and (pattern is None or re.search(pattern, value) is not None)


def _mentions(text: str, value: str) -> bool:
    """`value` stands in `text` as a word of its own (case ignored; CJK has no spaces to look for)."""
    if reading.CJK.search(value):
        return value in text
    return re.search(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", text, re.IGNORECASE) is not None


def cued(tool: FunctionTool, text: str) -> bool:
    """Does the request hold one of the tool's cues (`facts.py`), when it has some?"""
    cues = facts(tool.name).cues
    return not cues or any(_mentions(text, cue) for cue in cues)


def offered(tool: FunctionTool) -> bool:
    """Does the demo host run this tool? (Not one that removes things, nor the tool search.)"""
    return facts(tool.name).offered and tool.name != "search_tools"


def _one_of_missing(tool: FunctionTool, values: dict[str, list[str]], text: str) -> list[str]:
    """When none of the tool's `one_of` arguments (facts.py) has a value: the one the words name by its
    longest label ("英文名改一下": the English name), else the first."""
    one_of = facts(tool.name).one_of
    if not one_of or any(values.get(p) for p in one_of):
        return []
    properties = tool.parameters.get("properties", {})
    named = [
        (len(label), p)
        for p in one_of
        for label in _labels(tool, p, properties.get(p, {}))
        if label.casefold() in text.casefold()
    ]
    return [max(named)[1] if named else one_of[0]]


def _required(tool: FunctionTool) -> list[str]:
    return [p for p in tool.parameters.get("required", []) if p not in tool.injected]


def _shared_words(text: str, tool: FunctionTool, among: list[FunctionTool]) -> float:
    """The request's words found in the tool's texts, each weighted by how few of the tools have it."""
    asked = set(_words(text))
    texts = {t.name: set(_words(_texts(t))) for t in among}
    having = Counter(word for words in texts.values() for word in words)
    return sum(math.log(1 + len(among) / having[w]) for w in asked & texts[tool.name])


def _words(text: str) -> list[str]:
    """Words for matching: Latin words without stop words, and CJK pairs (single characters say little)."""
    return [w for w in tokens(text) if not (len(w) == 1 and reading.CJK.match(w))]


def _texts(tool: FunctionTool) -> str:
    properties = tool.parameters.get("properties", {})
    about = " ".join(f"{spec.get('title', '')} {spec.get('description', '')}" for spec in properties.values())
    examples = (request for request, _ in facts(tool.name).examples)
    return " ".join([tool.name.replace("_", " "), tool.description, about, *examples])
