"""Router: the embedded demo model's plan for a turn, made by the host from the person's words.

The 135M model cannot tell which tool a request needs, nor copy a value faithfully, so the host reads
the request (`reading.py`) and plans: small talk and questions about the assistant are the host's to
answer; otherwise which tool, if any, and the calls, every value taken from the person's words. A tool
is offered only when its effect is the one asked for (a question never writes; a delete never adds);
among those, the one whose description and worked examples (`facts.py`) share the most words with the
request and that takes the most values from it; a delete, among the tools whose own words remove
(confirmed, as every write and change is). No tool fits: a question or request is one the demo cannot
answer ("offtopic"), a remark is chat. A value a tool needs is missing: the host asks for it. Several
codes give several calls, up to the per-reply cap. A remark (how the person finds things: the weather, a
mood, their day; no question, no request) calls a tool only when it gives a value the tool takes, never
for a word it shares with one ("今天阳光真好" is no question for the clock); and a statement that says more
than a tool's words and values (`strays`: "Rain again, and my umbrella is at the office") is a remark
about something else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from agent.memory import TYPED
from agent.tools import FunctionTool, ToolRegistry
from app.models.embedded import meaning, overlap, reading, spelling
from app.models.embedded.arguments import claims, mentions, values_for
from app.models.embedded.facts import FACTS, NAME_LABELS, alone, facts
from app.models.embedded.needs import lacking, patterned_value, required, unsaid
from app.models.embedded.overlap import shared_words, strays, without_acts
from app.models.embedded.relevance import commanded, in_own_verb, names_what_it_does, unserved
from app.models.embedded.several import together
from app.models.embedded.small_talk import small_talk
from app.models.embedded.stored import changed, unstored
from app.models.embedded.values import codes, names, typed
from app.models.embedded.written import requested

Arguments = dict[str, Any]
# the words a request is read for, however typed (spelling.py): the reader's, the names of the market-name
# fields, and the tools' cues
PATTERNS = (
    *reading.CUE_PATTERNS,
    re.compile("|".join(re.escape(w) for words in NAME_LABELS.values() for w in words)),
    re.compile("|".join(re.escape(cue) for row in FACTS.values() for cue in row.cues)),
)
STRAYS = 3  # words of a statement about something other than the tool that make it a remark (strays)


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
    also: tuple[Plan, ...] = ()  # the plans of the message's other requests, of other tools (several.py)


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
        return [t for t in tools if t["function"]["name"] in {plan.tool, *(p.tool for p in plan.also)}]

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
        """The plan of the whole message: a stored code's new name is a change (stored.py), a value the
        host would refuse as not the person's is asked for (needs.unsaid), and the message's other
        requests are planned beside it, or each part alone when each looks something up of its own
        (several.py)."""
        plan = self._plan(typed)
        tool = self.registry.get(plan.tool) if plan.kind == "tool" else None
        if tool is not None and (names := unsaid(tool, plan.calls, typed)):
            plan = replace(plan, kind="missing", calls=(), missing=tuple(names))
        plan = replace(plan, **changed(plan.tool, plan.calls, self.registry, not reading.writes(typed)))
        plan = replace(plan, **unstored(plan.tool, plan.calls, self.registry))
        first, *rest = together(plan, typed, self._plan)
        return replace(first, also=tuple(rest))

    def _plan(self, typed: str) -> Plan:
        lang, text = reading.language(typed), spelling.normalized(typed, PATTERNS, reading.ACTS)
        effect = _effect(text, self.registry)
        offered_ = [t for t in self.registry.tools() if offered(t)]
        if effect != "destructive" and (
            wanted := requested(text, offered_, own=effect == "write")
        ):  # "开个单"
            return self._chosen(lang, text, "write", wanted, [wanted])
        about_us = self._about_us(text, effect)
        if about_us:
            return Plan(lang, about_us, effect)
        fitting = [t for t in self.registry.tools() if t.effect == effect and offered(t) and cued(t, text)]
        asked = effect == "read" and (reading.asks_or_requests(text) or commanded(text, self.registry))
        if asked and unserved(text, fitting):  # a search, a poem: no registered tool's words name it
            return Plan(lang, "offtopic", effect)
        if effect == "write" and not reading.WRITE.search(text) and unserved(text, offered_):
            return Plan(lang, "offtopic", effect)  # "翻译：电池 5000mAh": a translation, not codes to add
        sure = any(in_own_verb(text, t) for t in fitting)  # "预订会议室 B202": the booking tool's own verb
        if effect == "write" and reading.unsure(text) and not sure:  # "新到了 PKX110": add, or look up?
            return Plan(lang, "which", effect, calls=tuple({"code": code} for code in codes(text)))
        if effect == "destructive" and reading.removes(text):  # "删咗佢": of the tools that remove
            fitting = [t for t in fitting if reading.REMOVE.search(f"{t.name} {t.description}")]
        if not fitting and effect != "read":
            return Plan(lang, "cannot", effect)
        ruled = self._ruled(lang, text, effect, fitting) or (
            asked and self._learned(lang, text, effect, fitting)
        )
        return ruled or Plan(lang, "offtopic" if asked or reading.asks_or_requests(text) else "chat", effect)

    def _ruled(self, lang: str, text: str, effect: str, fitting: list[FunctionTool]) -> Plan | None:
        """The plan by the rules' words: the fitting tools ranked by the words they share with the request
        and the values (other than runs of words) it gives them; the first that takes what it needs (or,
        for a change, the first)."""
        among = tuple(fitting)
        fit = {
            t.name: overlap.fit(text, t, fitting, values_for(t, text, among, ranking=True)) for t in fitting
        }
        ranked = sorted(fitting, key=lambda t: -fit[t.name])
        remark, statement = reading.remarks(text), not reading.asks_or_requests(text)
        subject = without_acts(text)  # what is asked about, not "查一下"
        short = False  # a tool the words are about lacks a value: the learned reader decides, if none other
        for tool in ranked:
            if fit[tool.name] <= 0:
                break
            # a run of words is a value only for a tool the request is about, and ranks no tool
            meant = partial(self._meant, subject, text, tool, fitting)
            values = values_for(tool, text, among, meant)
            shares = shared_words(text, tool, fitting)
            if short and not shares and not _coded(text, values):
                continue  # "convert 1,000 Chinese yuan into Indian rupees" names no city of a time zone
            if remark and not any(values.values()):
                continue  # "今天阳光真好" shares a word with the clock and asks nothing of it
            if not shares and _plain_only(tool, values, text):
                continue  # "the land area of Canada": a number or a name, and nothing said of the tool
            if (
                statement
                and not (reading.proposes(text) or patterned_value(tool, values))
                and strays(tool, text, values) >= STRAYS
            ):
                continue  # "Rain again, and my umbrella is at the office" is about the rain, not the clock
            missing = lacking(tool, values, text)
            if not missing:
                return Plan(lang, "tool", effect, tool.name, self._calls(tool, values))
            if effect != "read" or names_what_it_does(text, tool):  # "how is the weather?": which city?
                return Plan(lang, "missing", effect, tool.name, missing=tuple(missing))
            short = short or bool(shares)
        return None

    def _meant(self, subject: str, text: str, tool: FunctionTool, fitting: list[FunctionTool]) -> bool:
        """Are the words about `tool`: they share its own words, and the learned reader finds no other
        tool nearer (asked only where a run of words could be a value: the encoder loads then)."""
        return shared_words(subject, tool, fitting) > 0 and self._nearest(text, fitting) in ("", tool.name)

    def _nearest(self, text: str, fitting: list[FunctionTool]) -> str:
        """The tool the learned reader finds nearest ("" without it): a run of words is no value of
        another (a count of the models is no keyword for the look-up when it is nearest the list)."""
        return meaning.choose(text, fitting).tool

    def _learned(self, lang: str, text: str, effect: str, fitting: list[FunctionTool]) -> Plan | None:
        """The plan of the learned reader (`meaning.py`), where the rules found none: the tool it is sure
        of, with its calls, or a question for the value it lacks (the weather, and no city: which city?)."""
        choice = meaning.choose(text, fitting)
        if not choice.confident:
            return None
        return self._chosen(lang, text, effect, next(t for t in fitting if t.name == choice.tool), fitting)

    def _chosen(
        self, lang: str, text: str, effect: str, tool: FunctionTool, among: list[FunctionTool]
    ) -> Plan:
        """The plan for a tool the request is surely for: its calls, or a question for a value it lacks."""
        values = values_for(tool, text, tuple(among), meant=True)
        if missing := lacking(tool, values, text):
            return Plan(lang, "missing", effect, tool.name, missing=tuple(missing))
        return Plan(lang, "tool", effect, tool.name, self._calls(tool, values))

    @staticmethod
    def _about_us(text: str, effect: str) -> str | None:
        """The host's own kinds of turn: small talk, what it can do, who it is (never with a code)."""
        if codes(text) or effect != "read":
            return None
        if reading.asks_capabilities(text):
            return "capabilities"
        if reading.asks_identity(text):
            return "identity"
        return small_talk(text)

    def _calls(self, tool: FunctionTool, values: dict[str, list[Any]]) -> tuple[Arguments, ...]:
        """One call per value of the first required argument that has several (several codes), or for a
        look-up of the first argument that has several, each with the k-th value of every argument that has
        as many; the optional values said once then go with
        none of them (whose market name would it be?), but for a tool read from its schema alone, an
        optional value said once goes with each."""
        properties = tool.parameters.get("properties", {})
        values = {
            name: [typed(v, properties.get(name, {}).get("type", "string")) for v in found]
            for name, found in values.items()
        }
        first = {name: found[0] for name, found in values.items() if found}
        spread = next((name for name in required(tool) if len(values.get(name, [])) > 1), None)
        if spread is None and tool.effect == "read":  # "compounded annually and then monthly": a look-up each
            spread = next((name for name, found in values.items() if len(found) > 1), None)
        if spread is None:
            return (first,)
        needed = {name: value for name, value in first.items() if name in required(tool)}
        if alone(tool.name):  # a tool read from its schema alone: "报价都是350" is each call's
            needed |= {name: found[0] for name, found in values.items() if len(found) == 1}
        count = len(values[spread])  # arguments with as many values go together: "radius 1 and height 4, ..."
        together = [name for name, found in values.items() if len(found) == count]
        return tuple(
            {**needed, **{name: values[name][k] for name in together}}
            for k in range(min(count, self.max_calls))
        )


def _effect(text: str, registry: ToolRegistry) -> str:
    """The effect asked for (`reading.py`), a word of removing that is a word of another tool's name aside
    ("drop", of a tool drop_shipping_quote); a code proposed for adding with no word of writing (a tracking
    number) only reads when a pattern of a tool that reads claims every code it holds, or a tool that reads
    is named by its own verb ("drop shipping quote for X"); a "should be" beside a writing tool's own verb
    is no correction."""
    own = {w for t in registry.tools() if t.effect != "destructive" for w in t.name.casefold().split("_")}
    said = text
    for word in {m[0] for m in reading.REMOVE.finditer(text) if m[0].casefold() in own}:
        said = re.sub(rf"\b{re.escape(word)}\b", " ", said)  # a name, no act
    effect = reading.effect_asked(said)
    if effect == "destructive" and not (reading.REMOVE.search(said) or reading.CHANGE.search(said)):
        writers = [t for t in registry.tools() if t.effect == "write" and offered(t) and alone(t.name)]
        if any(in_own_verb(text, t) for t in writers):  # "book it at 2pm, 3 hours should be enough"
            return "write"  # a "should be" beside a tool's own verb of writing corrects nothing stored
    if effect != "write" or reading.WRITE.search(said) or not codes(said):
        return effect
    readers = [t for t in registry.tools() if t.effect == "read" and offered(t)]
    claimed = all(any(claims(t, code) for t in readers) for code in codes(said))
    return "read" if claimed or any(in_own_verb(text, t) for t in readers) else effect


def _coded(text: str, values: dict[str, list[str]]) -> bool:
    """Is a value the words give the tool a code of theirs ("drop shipping quote for PKX110")?"""
    said = codes(text)
    return any(value in said for found in values.values() for value in found)


def _plain_only(tool: FunctionTool, values: dict[str, list[str]], text: str) -> bool:
    """Are the values the words give the tool numbers or plain words alone (which any request may hold),
    none of them a code or an identifier (a value with a figure in it), a product's name, a listed value, a
    date or a time?"""
    properties = tool.parameters.get("properties", {})
    names_ = set(names(text))
    given = [(properties.get(name, {}), str(value)) for name, found in values.items() for value in found]
    return bool(given) and all(
        spec.get("type") in ("number", "integer")
        or not (re.search(r"\d", value) or value in names_ or spec.get("enum") or spec.get("format"))
        for spec, value in given
    )


def cued(tool: FunctionTool, text: str) -> bool:
    """Does the request hold one of the tool's cues (`facts.py`), when it has some?"""
    cues = facts(tool.name).cues
    return not cues or any(mentions(text, cue) for cue in cues)


def offered(tool: FunctionTool) -> bool:
    """Does the demo host run this tool? (Not one its facts hold back, nor the tool search.)"""
    return facts(tool.name).offered and tool.name != "search_tools"
