"""The scorecard's verdicts on the traces. Each case's evaluator results become `gen_ai.evaluation.result`
events (OpenTelemetry's GenAI conventions: `gen_ai.evaluation.name`, `.score.value`, `.score.label`,
`.explanation`) on a span `evaluate {case}` whose parent is the turn they score (`invoke_agent`), so a
trace store shows each turn with its scores beside it.

The spans go to the trace store when OTEL_EXPORTER_OTLP_ENDPOINT is set (the standard OTEL_* variables).
The scorecard records message contents for its evaluators; what it exports carries no words: no message
contents, no status descriptions or exception messages (a tool's error can quote an argument), and no
explanation of a held-out part's result. A trace store holds the turns' shape and their scores, and no
held-out prompt."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import Event, ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import NonRecordingSpan, SpanContext, Status

from agent.tracing import CONTENT
from plumbing import telemetry

EVENT = "gen_ai.evaluation.result"


class TurnSpans(SpanProcessor):
    """Remembers the last turn (`invoke_agent` span) that ended: the one a case just ran."""

    def __init__(self) -> None:
        self.last: SpanContext | None = None

    def on_end(self, span: ReadableSpan) -> None:
        if span.name.startswith("invoke_agent"):
            self.last = span.get_span_context()


class WithoutWords(SpanExporter):
    """An exporter that passes each span on without the words the scorecard recorded (see above)."""

    def __init__(self, exporter: SpanExporter) -> None:
        self.exporter = exporter

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return self.exporter.export([_without_words(span) for span in spans])

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self.exporter.force_flush(timeout_millis)


def _without_words(span: ReadableSpan) -> ReadableSpan:
    attributes = {k: v for k, v in (span.attributes or {}).items() if k not in CONTENT}
    events = [_without_message(event) for event in span.events]
    return ReadableSpan(
        name=span.name,
        context=span.get_span_context(),
        parent=span.parent,
        resource=span.resource,
        attributes=attributes,
        events=events,
        links=span.links,
        kind=span.kind,
        status=Status(span.status.status_code),  # its description dropped
        start_time=span.start_time,
        end_time=span.end_time,
        instrumentation_scope=span.instrumentation_scope,
    )


def _without_message(event: Event) -> Event:
    """An exception's event keeps its type, not its message or stack."""
    if event.name != "exception":
        return event
    kept = {k: v for k, v in (event.attributes or {}).items() if k == "exception.type"}
    return Event(event.name, kept, event.timestamp)


def export_if_asked(provider: TracerProvider) -> None:
    """Send `provider`'s spans, without their words, over OTLP when an endpoint is configured."""
    if telemetry.exporting():
        provider.add_span_processor(BatchSpanProcessor(WithoutWords(telemetry.otlp_exporter())))


def emit(report: Any, tracer: trace.Tracer, explains: Callable[[str], bool]) -> None:
    """Each scored case's results as events beside its turn. `explains(part)`: may its explanations (which
    can quote the prompt or the answer) be written?"""
    for case in report.cases:
        turn = getattr(case.output, "span", None)
        if turn is None:
            continue
        parent = trace.set_span_in_context(NonRecordingSpan(turn))
        with tracer.start_as_current_span(f"evaluate {case.name}", context=parent) as span:
            results = {**case.assertions, **case.scores, **case.labels}
            for name, result in results.items():
                span.add_event(EVENT, result_attributes(name, result, explains(case.metadata["part"])))


def result_attributes(name: str, result: Any, explain: bool) -> dict[str, Any]:
    """The event's attributes: a pass/fail result as 1.0/0.0 and its label, a score as its value."""
    value = result.value
    found: dict[str, Any] = {"gen_ai.evaluation.name": name}
    if isinstance(value, bool):
        found |= {
            "gen_ai.evaluation.score.value": float(value),
            "gen_ai.evaluation.score.label": _label(value),
        }
    elif isinstance(value, int | float):
        found["gen_ai.evaluation.score.value"] = float(value)
    else:
        found["gen_ai.evaluation.score.label"] = str(value)
    if explain and result.reason:
        found["gen_ai.evaluation.explanation"] = str(result.reason)[:500]
    return found


def _label(passed: bool) -> str:
    return "pass" if passed else "fail"
