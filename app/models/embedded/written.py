"""Written: a request for a write tool the developer added, in that tool's own words ("开个单", "open a P1
ticket", "schedule one FB post"), where the reader's words of writing (`reading.py`) are those of adding
and changing what is stored, and would read it as a question.

Only a tool with no row of worked facts (`facts.py`) is read this way: it is known by its schema alone.
The words ask for its write when they hold one of its verbs (`verbs`: its name's first word, its
description's own words for the act, the reader's words of writing), neither denied nor told as done,
in a request or a statement, not a question of how things are — or, in a request that reads nothing,
name the thing it makes ("repair ticket pls"). A request that only names what the tool records
("D204 的订单进度", of a kitchen-order tool) is no write. Of several such tools, the one whose texts and
arguments the words fit best.
"""

from __future__ import annotations

import re
from functools import cache

from agent.numbers import MEASURES
from agent.tools import FunctionTool
from app.models.embedded import reading
from app.models.embedded.acts import asked
from app.models.embedded.arguments import values_for
from app.models.embedded.facts import alone
from app.models.embedded.overlap import fit
from app.models.embedded.relevance import own_verb

_CJK = re.compile(r"[\u3400-\u9fff]+")
_SUPPOSED = re.compile(r"假如|如果|要是|假设|万一|\b(?:if|suppose|supposing|what if|hypothetically)\b", re.I)
_DENIED = re.compile(r"先(?:别|不要|莫)|不用|别|暂时不|\b(?:don'?t|do not|never ?mind|no need)\b", re.I)


def requested(text: str, tools: list[FunctionTool], own: bool = False) -> FunctionTool | None:
    """The added write tool the words ask to run, if they ask for one (see the module's docstring);
    `own`: by its own verbs only, not the reader's words of writing (which ask for the demo's add too)."""
    added = [t for t in tools if t.effect == "write" and alone(t.name)]
    writes = [t for t in added if _asks_for_it(text, t, own)]
    scored = sorted(((_fit(t, text, tools), i, t) for i, t in enumerate(writes)), key=lambda s: (-s[0], s[1]))
    if not scored or scored[0][0] <= 0:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None  # as near another write: which one is a question
    return scored[0][2]


def _fit(tool: FunctionTool, text: str, tools: list[FunctionTool]) -> float:
    return fit(text, tool, tools, values_for(tool, text, tuple(tools), ranking=True))


def _asks_for_it(text: str, tool: FunctionTool, own_only: bool = False) -> bool:
    """Do the words hold one of the tool's verbs (`verbs`), neither denied nor told as done, in a request or
    a statement, not a question of how things are ("开单了没有？")?"""
    own, request = verbs(tool, not own_only), reading.requests(text)
    question = reading.ASKS_HOW_THINGS_ARE.search(text) is not None
    if _DENIED.search(text) or _SUPPOSED.search(text):
        return False  # "先别开单", "假如下礼拜叫德邦": no write asked for
    said = own.search(asked(text, own))
    look = reading.READ.search(text)
    if said and look and look.start() < said.start():
        return False  # "查一下 D204 的下单记录": the first verb reads
    if not said:  # "repair ticket pls": the thing it makes, in a request with no verb at all
        thing = tool.name.split("_")[-1]
        named = re.search(rf"\b{thing}s?\b", text, re.IGNORECASE) is not None
        verbless = not (own_only or reading.WRITE.search(text) or look)
        return request and not question and named and verbless
    return not question or request or own.match(text.strip()) is not None


@cache
def verbs(tool: FunctionTool, writing: bool = True) -> re.Pattern[str]:
    """The words that ask for the tool's act: the first word of its name ("open", of open_it_ticket), the
    first two characters of its description's Chinese (登记; of four, both pairs: 登记报损, and the second
    character of a pair with a measure word: 预约's "约个"), the words of a list its description gives
    for the act ("明确说开单/建单/下工单时", "Schedule (queue / 排期)"), and the reader's words of writing;
    a Chinese pair with a measure word between ("开个单"), or its first character with one ("排一条"); a
    character of its description's first clause before a count ("订两箱", of 下单订购)."""
    named = own_verb(tool.name)
    chinese = re.match(r"\s*([\u3400-\u9fff]{2,})", tool.description)  # a description that opens in Chinese
    run = chinese[1] if chinese else ""
    opening = [run[:2], run[2:4]] if len(run) == 4 else [run[:2]] if run else []  # 登记报损: 登记, 报损
    found = list(opening)
    for clause in re.split(r"[，,；;。]|[.](?:\s|$)", tool.description):  # brackets stay with their clause
        if "=" in clause or "→" in clause or ":" in clause or "：" in clause:
            continue  # a list of values' words, not of the act (aliases.py)
        items = [i.strip() for i in re.split(r"\s*[/／、]\s*", clause)]
        if len(items) > 1:  # the list's ends run into the words around it: its first and last word
            found += [_end(items[0], -1), *items[1:-1], _end(items[-1], 0)]
    words = [w for w in found if w and len(w) <= 6]
    cjk = [r"[个张一条下]?".join(map(re.escape, w)) for w in words if _CJK.fullmatch(w)]
    cjk += [rf"{re.escape(w[0])}(?:一?[个张条份])" for w in words if _CJK.fullmatch(w)]  # "排一条", "开个"
    cjk += [rf"{re.escape(w[1])}(?:一?个|一?下)" for w in opening if len(w) == 2]  # 预约: "约个顺丰", "约下"
    first = re.split(r"[。（(，,]", tool.description)[0]
    counted = rf"(?=[0-9一二两三四五六七八九十百千几]+{MEASURES.pattern})"  # 订购's 订 in "订两箱"
    cjk += [rf"{re.escape(ch)}{counted}" for ch in dict.fromkeys(re.findall(r"[\u3400-\u9fff]", first))]
    latin = [rf"\b{re.escape(w)}\b" for w in words if not _CJK.search(w)]
    own = [rf"\b{re.escape(named)}\w*", *cjk, *latin, *([reading.WRITE.pattern] if writing else [])]
    return re.compile("|".join(own), re.IGNORECASE | re.ASCII)


def _end(item: str, at: int) -> str:
    """The word of a list's item next to the list: an English word, else two Chinese characters."""
    latin = re.findall(r"[A-Za-z]+", item)
    if latin and not _CJK.search(item):
        return latin[at]
    return item[-2:] if at == -1 else item[:2]
