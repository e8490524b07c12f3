"""Arguments: the values a request gives each argument of a tool, read from what the registry holds for
it (its schema: types, enums, examples, patterns, titles, `grounded`) and the person's words, each value
as written.

A listed value (an enum or an example) stands when the words mention it; a labelled one ("营销名是 …")
only after its label; a patterned one is a code (or a sum) the pattern fits, and a code that fits a
pattern of another tool in play is that tool's, never a free argument's (a parcel number is no model
code); a string with none of these is a free text (`free_text.py`); arguments that share an enum or a
pattern take the values said in order (`shared.py`). A value the schema does not allow is never taken:
it is left out, and the host asks for it when it is required.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from agent.dates import dates, times, wants_clock, wants_date
from agent.guards import model_schema
from agent.tool_selection import tokens
from agent.tools import FunctionTool
from app.models.embedded import reading, spans, spelling
from app.models.embedded.amounts import placed
from app.models.embedded.arithmetic import arithmetic
from app.models.embedded.durations import duration
from app.models.embedded.facts import UNSET, alone, facts
from app.models.embedded.flags import flag
from app.models.embedded.free_text import free_text
from app.models.embedded.identifiers import fits as _fits
from app.models.embedded.identifiers import identifier, own_word, patterned, runs, unlike
from app.models.embedded.shared import shared
from app.models.embedded.values import (
    CLAUSE_END,
    LABEL_LINKS,
    PARTICLES,
    changed_to,
    codes,
    leads_to,
    name_span,
    names,
)


def values_for(
    tool: FunctionTool,
    text: str,
    among: tuple[FunctionTool, ...] = (),
    meant: bool | Callable[[], bool] = False,
    ranking: bool = False,
) -> dict[str, list[str]]:
    """For each argument the model would write: the values of it in the person's words, as written;
    `among`: the other tools in play, whose patterns claim the codes they fit; `meant`: the words are
    about this tool (they share its own words, or the learned reader is sure of it), so a run of them
    may be a free-text value (a callable: asked only where a run of words could be one); `ranking`: the
    values said as alternatives are kept, to rank the tools by, not to call with."""
    properties = model_schema(tool.parameters, tool.injected).get("properties", {})
    labelled = _labelled(tool, properties, text)
    rest = text
    for value in labelled.values():
        rest = rest.replace(value, " ")  # a name after its label holds no code ("OPPO Find N3")
    labelled = {name: value for name, value in labelled.items() if not _unset(value)}
    named = names(rest)
    named_at: dict[str, int] = {}  # a listed value -> where the words first name it
    found = {
        "codes": (coded := codes(rest)),
        "arithmetic": [e for e in [arithmetic(text)] if e],
        "names": named,
        "claimed": [c for c in coded if any(claims(other, c) for other in among if other is not tool)]
        + [c for c in coded if any(claims(tool, part) for part in [c, *c.split()])],  # its own
        "words": [  # of no code nor name, nor a word of another tool or of a unit ("monthly", "euro")
            w
            for w in _words(_without(_without_codes(rest), named), properties)
            if not _elsewhere(w, tool, among)
        ],
        "runs": [r for r in [*runs(unlike(_without(rest, named))), *named] if _run(r)],
        "amounts": placed(_without_codes(text), properties, tool.parameters.get("required", [])),
        "named at": named_at,
        "spans": lambda: (
            (meant() if callable(meant) else meant)
            and (reading.asks_or_requests(text) or reading.terse(text))
        ),
    }
    for name in named:  # a market name given without its field's name: its script tells the field
        field = facts(tool.name).named.get("zh" if reading.CJK.search(name) else "en")
        if field and field not in labelled and not any(name in value for value in labelled.values()):
            labelled[field] = name
    values = {
        name: _values(name, spec, tool, text, labelled, found, properties)
        for name, spec in properties.items()
    }
    if not ranking:
        values = {name: [] if spans.alternatives(text, said) else said for name, said in values.items()}
    return shared(properties, values, text, named_at)  # one value or another is a question, not two calls


def enum_mentions(
    text: str, listed: list[str], own: dict[str, str] | None = None, at: dict[str, int] | None = None
) -> list[str]:
    """The values of `listed` that `text` names, as listed (or with spaces for its underscores: "boiling
    point" names boiling_point), by a word the tool's texts give for one
    (`own`, aliases.py) or by a common word for one (`cues.yaml`'s units), each once, in the order they
    stand, an English plural too; a longer word first ("美元" is no "元"). `at`, if given, gets where each
    is first named."""
    words = (
        {form.casefold(): v for v in listed for form in (v, v.replace("_", " "), v.replace("_", "-"))}
        | {w.casefold(): v for v in listed for w in spelling.cues().get("units", {}).get(v, ())}
        | {form: v for w, v in (own or {}).items() if v in listed for form in _spellings(w)}
    )
    pattern = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    plural = rf"(?<![A-Za-z])({pattern})(?:e?s)?(?![A-Za-z])"
    found = list(re.finditer(plural, text, re.IGNORECASE)) if words else []
    if at is not None:
        for m in reversed(found):
            at[words[m[1].casefold()]] = m.start()
    return list(dict.fromkeys(words[m[1].casefold()] for m in found))  # "boxes" names box


def _spellings(word: str) -> set[str]:
    """A word as people type it: "wi-fi" is also "wifi" and "wi fi"."""
    return {word, word.replace("-", ""), word.replace("-", " ")}


def _unset(value: str) -> bool:
    """Does the value say it is not known yet ("待定", "not decided yet")?"""
    return any(word in value.casefold() for word in UNSET)


def _values(
    name: str,
    spec: dict[str, Any],
    tool: FunctionTool,
    text: str,
    labelled: dict[str, str],
    found: dict,
    properties: dict[str, Any],
) -> list[str]:
    if spec.get("enum"):  # named as listed, or by a word for it (cues.yaml's units), in the order said
        listed = [v for v in spec["enum"] if isinstance(v, str)]
        return enum_mentions(text, listed, tool.aliases(name), found["named at"])
    listed = [*(spec.get("enum") or []), *(spec.get("examples") or [])]
    if listed:
        return [v for v in listed if isinstance(v, str) and mentions(text, v)]
    if spec.get("title"):  # a labelled value ("营销名是 …") comes only after its label
        return [labelled[name]] if name in labelled and _fits(labelled[name], spec) else []
    if spec.get("type") == "boolean":  # said yes or no: "urgent", "not urgent", "不加急"
        return flag(name, spec, text)
    if spec.get("type") in ("number", "integer"):  # told apart by the words next to them (amounts.py)
        return duration(text, name, spec) or found["amounts"].get(name, [])  # "两个钟头": 120 minutes
    if wants_clock(spec):  # a time of day as HH:MM: "晚上8点" is 20:00, "7.30pm" 19:30
        return list(dict.fromkeys(hhmm for _, hhmm in times(text)))
    if wants_date(spec):  # a date written whole ("12 March 2026"), in the form the schema names
        return list(dict.fromkeys(iso for _, iso in dates(text) if _fits(iso, spec)))
    if spec.get("pattern"):  # a code, a sum, or a run of letters and figures the pattern fits whole
        return patterned(spec, tool, text, found)
    return free_text(name, spec, tool, text, found, properties)


def _words(text: str, properties: dict[str, Any]) -> list[str]:
    """Words with a letter, as written, that are no stop word nor a listed value of the tool ("NYSE" is
    an exchange)."""
    listed = {str(v).casefold() for spec in properties.values() for v in spec.get("enum") or ()}
    found = re.findall(r"[A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9]|[A-Za-z]", text)
    return [w for w in found if w.casefold() not in listed and tokens(w)]  # "I" is no ticker


def _elsewhere(word: str, tool: FunctionTool, among: tuple[FunctionTool, ...]) -> bool:
    """Is `word` a word of another tool in play ("monthly", of a loan's monthly payment) or of a unit
    (`cues.yaml`'s units: "euro"), and so no free value of this one?"""
    return word.casefold() in _unit_words() or any(
        own_word(word, other) for other in among if other is not tool
    )


@cache
def _unit_words() -> frozenset[str]:
    return frozenset(
        w.casefold() for code, words in spelling.cues().get("units", {}).items() for w in [code, *words]
    )


def _run(run: str) -> bool:
    """A run that may be a value of a pattern: an identifier, or a time of day ("12:30"), one word."""
    return " " not in run and (identifier(run) or re.fullmatch(r"[0-9]{1,2}:[0-9]{2}", run) is not None)


def _without(text: str, values: list[str]) -> str:
    for value in values:
        text = text.replace(value, " ")
    return text


def _without_codes(text: str) -> str:
    for code in codes(text):
        text = text.replace(code, " ")
    return text


def claims(tool: FunctionTool, code: str) -> bool:
    """Does a pattern of one of `tool`'s arguments fit `code` whole?"""
    properties = tool.parameters.get("properties", {})
    forms = [code, code.upper()] if alone(tool.name) else [code]  # "blp881", of capitals
    return any(spec.get("pattern") and any(_fits(f, spec) for f in forms) for spec in properties.values())


def _labelled(tool: FunctionTool, properties: dict[str, Any], text: str) -> dict[str, str]:
    """argument -> the words after one of its labels (its title and the tool's facts: "营销名",
    "marketing name"), where no longer label of another argument covers that place ("英文营销名" is not
    "营销名"); after a change verb only what it changes to ("market name for X to Y": Y). The label decides
    the field, whatever script the name is written in ("营销名 realme GT7" is the Chinese market name)."""
    named_by = {name: labels(tool, name, spec) for name, spec in properties.items()}
    products = {name: _names_a_product(spec) for name, spec in properties.items()}
    places = [
        (m.start(), m.end(), name, label)
        for name, named in named_by.items()
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
            continue  # "the market name for CPH2451", a change asked of the market name: not the name itself
        value = PARTICLES.sub("", value.strip())  # "改成 真我 Neo 吧": the name, not the 吧
        if products[name] and not (value := name_span(value) or ""):
            continue  # "英文名得改一下": no name yet, here
        if value and name not in values:
            values[name] = value
    return values


def _names_a_product(spec: dict[str, Any]) -> bool:
    """Does the argument's description give a product's name as its example ("例如 OPPO Find N6")? Its
    value after a label is then that name alone, without the words around it (`name_span`)."""
    if spec.get("type") != "string" or spec.get("pattern") or spec.get("enum"):
        return False
    return _product_example(str(spec.get("description", "")))


@cache
def _product_example(description: str) -> bool:
    example = re.search(r"(?:例如|比如|e\.g\.|for example)[:：]?\s*(.+)", description)
    return bool(example and name_span(example[1]))


def labels(tool: FunctionTool, name: str, spec: dict[str, Any]) -> list[str]:
    titled = [label.strip() for label in str(spec.get("title", "")).split("/") if label.strip()]
    return list(dict.fromkeys([*titled, *facts(tool.name).labels.get(name, ())]))


def mentions(text: str, value: str) -> bool:
    """`value` stands in `text` as a word of its own (case ignored; CJK has no spaces to look for)."""
    if reading.CJK.search(value):
        return value in text
    return re.search(rf"(?<![A-Za-z]){re.escape(value)}(?![A-Za-z])", text, re.IGNORECASE) is not None
