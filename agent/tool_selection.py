"""ToolSelector: with many tools, send the model only the few that fit the conversation (BM25 ranking).

The engineering article: "工具总数控制在十几个以内，过多时先做检索式筛选再送 schema". Up to `max_tools`
tools are all sent. Past that, each request carries the `top_k` best matches for the conversation over
names, descriptions and parameter descriptions, the `always` list, the tools `search_tools` found
earlier in the same turn (read from the turn's own messages: no state is kept), and `search_tools`,
with which the model can ask for more.
"""

from __future__ import annotations

import importlib.util
import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from agent.config import require_extra
from agent.function_tool import FunctionTool
from agent.guards import envelope_of
from agent.types import ToolContext

_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+|[-+*/×÷=^%]")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def tokens(text: str) -> list[str]:
    """Words for BM25: identifiers split on `_` and camelCase; English stop words dropped; Chinese as
    characters and bigrams; arithmetic signs as words of their own."""
    out: list[str] = []
    for word in _WORD.findall(_CAMEL.sub(" ", text).lower()):
        if word[0] >= "\u3400":
            out += list(word) + [word[i : i + 2] for i in range(len(word) - 1)]
        elif word not in _stop_words():
            out.append(word)
    return out


@cache
def _stop_words() -> frozenset[str]:
    """bm25s's English stop words. Its list is a module of data: read alone, it does not load the package
    (numpy, scipy), which only ranking needs."""
    require_extra("ranking many tools (BM25 tool selection)", "search", "bm25s")
    package = importlib.util.find_spec("bm25s")
    spec = importlib.util.spec_from_file_location(
        "bm25s_stopwords",
        Path(package.origin).with_name("stopwords.py"),  # type: ignore[union-attr, arg-type]
    )
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return frozenset(module.STOPWORDS_EN_PLUS)


def tool_text(tool: dict[str, Any]) -> str:
    function = tool["function"]
    properties = function.get("parameters", {}).get("properties", {})
    params = " ".join(f"{name} {spec.get('description', '')}" for name, spec in properties.items())
    return (
        f"{function['name']} {function['name'].replace('_', ' ')} {function.get('description', '')} {params}"
    )


class Selector(Protocol):
    """Which of the registry's tools the next request of a turn carries (a model choice may bring its own)."""

    def select(self, tools: list[dict[str, Any]], turn: list[BaseMessage]) -> list[dict[str, Any]]: ...


class ToolSelector:
    def __init__(
        self, max_tools: int = 16, top_k: int = 5, always: tuple[str, ...] = (), offer_search: bool = True
    ) -> None:
        self.max_tools, self.top_k, self.always = max_tools, top_k, always
        self.offer_search = offer_search  # also offer search_tools when only some tools are sent
        self._index: tuple[tuple[str, ...], Any] | None = None

    def select(self, tools: list[dict[str, Any]], turn: list[BaseMessage]) -> list[dict[str, Any]]:
        """The tools to send with the next request of a turn (its messages so far): the best matches for
        the user's words first, in rank order."""
        others = [t for t in tools if t["function"]["name"] != SearchToolsTool.name]
        if len(others) <= self.max_tools:
            return others
        asked = next((m.text for m in turn if isinstance(m, HumanMessage)), "")
        keep = [*self.rank(others, asked)[: self.top_k], *self.always, *found_by_search(turn)]
        if self.offer_search:
            keep.append(SearchToolsTool.name)
        by_name = {t["function"]["name"]: t for t in tools}
        return [by_name[name] for name in dict.fromkeys(keep) if name in by_name]

    def rank(self, tools: list[dict[str, Any]], query: str) -> list[str]:
        """Tool names, best match first (only those sharing a word with the query)."""
        require_extra("ranking many tools (BM25 tool selection)", "search", "bm25s")
        import numpy as np  # with bm25s, only once there are many tools

        names, retriever = self._retriever(tools)
        scores = retriever.get_scores(tokens(query) or ["_"])
        order = np.argsort(-scores, kind="stable")
        return [names[i] for i in order if scores[i] > 0]

    def _retriever(self, tools: list[dict[str, Any]]) -> tuple[tuple[str, ...], Any]:
        names = tuple(t["function"]["name"] for t in tools)
        if self._index is None or self._index[0] != names:
            import bm25s

            retriever = bm25s.BM25()
            retriever.index([tokens(tool_text(t)) or ["_"] for t in tools], show_progress=False)
            self._index = (names, retriever)
        return self._index


class SearchToolsTool(FunctionTool):
    name = "search_tools"
    description = (
        "Find more tools. Only some tools are offered at a time; describe what you need and the best "
        "matches become available for the rest of this turn."
    )
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "maxLength": 200, "description": "what the tool should do"}
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(self, selector: ToolSelector, catalog: Any) -> None:
        self.selector = selector
        self.catalog = catalog  # the ToolRegistry whose tools are searched

    def call(self, ctx: ToolContext, input: str) -> str:
        tools = [t for t in self.catalog.langchain_tools() if t["function"]["name"] != self.name]
        found = self.selector.rank(tools, json.loads(input)["query"])[: self.selector.top_k * 2]
        described = {t["function"]["name"]: t["function"]["description"] for t in tools}
        return json.dumps([{"name": n, "description": described[n]} for n in found], ensure_ascii=False)


def found_by_search(turn: list[BaseMessage]) -> list[str]:
    """The names `search_tools` answered with in these messages (they stay offered for the turn)."""
    found: list[str] = []
    for message in turn:
        if isinstance(message, ToolMessage) and message.name == SearchToolsTool.name:
            envelope = envelope_of(str(message.content))
            found += [tool["name"] for tool in envelope["data"]] if envelope["ok"] else []
    return found
