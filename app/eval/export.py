"""What the scorecard sends to a trace store: an allowlist. Each span keeps its ids, parent, times (so its
duration), kind and status code, and of its attributes only those named in KEPT whose value has the shape
that key allows: the operation, the agent's name, the model asked for, a tool's name when the registry has
that tool (any other name a model chose becomes UNREGISTERED), the host's decision, error types, token
counts, and an HTTP route with its method and status. Its name is made again from what it kept. Of its
events, only the evaluation results (their name, score and label) and an exception's type.

Never a message, an argument, a result, an explanation, a status description, an exception's message, a
URL's path, query or whole (`url.path`, `url.query`, `url.full`), nor an id or a name a model supplied: a
trace store holds the turns' shape and their scores, and none of a prompt's words."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from opentelemetry.sdk.trace import Event, ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.trace import Status

from agent.tracing import AGENT_NAME

UNREGISTERED = "unregistered_tool"  # a tool's name that no registry had: the model's own words
SCORECARD = "app.eval.scorecard"  # the tracer of the `evaluate {case}` spans (events.emit)
Check = Callable[[Any], bool]


def _matching(pattern: str) -> Check:
    shape = re.compile(pattern)
    return lambda value: isinstance(value, str) and shape.fullmatch(value) is not None


def _one_of(*allowed: str) -> Check:
    return lambda value: value in allowed


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


WORD = _matching(r"[A-Za-z0-9_.:/@+-]{1,128}")  # a decision, an error's type, a model's name, a tool's
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
KEPT: dict[str, Check] = {
    "gen_ai.operation.name": _one_of("invoke_agent", "chat", "execute_tool"),
    "gen_ai.agent.name": _one_of(AGENT_NAME),
    "gen_ai.request.model": WORD,  # the person's setting, not the endpoint's answer
    "gen_ai.tool.name": WORD,  # checked against `agent.tool.registered` too (`_attributes`)
    "gen_ai.tool.type": _one_of("function"),
    "agent.tool.registered": lambda value: isinstance(value, bool),
    "agent.tool.decision": WORD,
    "error.type": WORD,
    "gen_ai.usage.input_tokens": _count,
    "gen_ai.usage.output_tokens": _count,
    "http.route": _matching(r"/[A-Za-z0-9_{}./-]{0,128}"),  # the app's template, never the path asked
    "http.request.method": _one_of(*METHODS),
    "http.response.status_code": _count,
}
EVENTS: dict[str, dict[str, Check]] = {
    "gen_ai.evaluation.result": {
        "gen_ai.evaluation.name": _matching(r"[A-Za-z0-9_ .:-]{1,64}"),  # the evaluators' own names
        "gen_ai.evaluation.score.value": _number,
        "gen_ai.evaluation.score.label": WORD,
    },
    "exception": {"exception.type": WORD},
}


class Allowlisted(SpanExporter):
    """An exporter that passes each span on as the allowlist above keeps it."""

    def __init__(self, exporter: SpanExporter) -> None:
        self.exporter = exporter

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.exporter.export([allowlisted(span) for span in spans])

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.exporter.force_flush(timeout_millis)


def allowlisted(span: ReadableSpan) -> ReadableSpan:
    attributes = _attributes(span.attributes or {})
    return ReadableSpan(
        name=_name(span, attributes),
        context=span.get_span_context(),
        parent=span.parent,
        resource=span.resource,
        attributes=attributes,
        events=[_event(event) for event in span.events if event.name in EVENTS],
        links=span.links,
        kind=span.kind,
        status=Status(span.status.status_code),  # its description dropped
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


def _kept(attributes: Mapping[str, Any], checks: Mapping[str, Check]) -> dict[str, Any]:
    return {key: value for key, value in attributes.items() if key in checks and checks[key](value)}


def _attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    kept = _kept(attributes, KEPT)
    if "gen_ai.tool.name" in attributes and attributes.get("agent.tool.registered") is not True:
        kept["gen_ai.tool.name"] = UNREGISTERED
    return kept


def _event(event: Event) -> Event:
    return Event(event.name, _kept(event.attributes or {}, EVENTS[event.name]), event.timestamp)


def _name(span: ReadableSpan, attributes: Mapping[str, Any]) -> str:
    """The span's name, made of what it kept: `execute_tool {tool}`, `chat {model}`, `invoke_agent {agent}`,
    `{method} {route}`; the scorecard's own `evaluate {case}` (its case ids) as it is; else its first word
    when that is a plain word."""
    operation = attributes.get("gen_ai.operation.name")
    if operation is not None:
        subject = {"execute_tool": "gen_ai.tool.name", "chat": "gen_ai.request.model"}.get(operation)
        return f"{operation} {attributes.get(subject or 'gen_ai.agent.name', '')}".strip()
    scope = span.instrumentation_scope.name if span.instrumentation_scope else ""
    if scope == SCORECARD and span.name.startswith("evaluate "):
        return span.name
    if "http.route" in attributes:
        return f"{attributes.get('http.request.method', '')} {attributes['http.route']}".strip()
    first = span.name.split(" ", 1)[0]
    return first if WORD(first) else "span"
