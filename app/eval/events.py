"""The scorecard's verdicts on the traces. Each case's evaluator results become `gen_ai.evaluation.result`
events (OpenTelemetry's GenAI conventions: `gen_ai.evaluation.name`, `.score.value`, `.score.label`) on a
span `evaluate {case}` whose parent is the turn they score (`invoke_agent`), so a trace store shows each
turn with its scores beside it.

The spans go to the trace store when OTEL_EXPORTER_OTLP_ENDPOINT is set (the standard OTEL_* variables).
The scorecard records message contents for its evaluators; what it exports is an allowlist
(export.py): the turns' shape, registered tools' names, decisions and scores, and none of a
prompt's words."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
from opentelemetry.trace import NonRecordingSpan, SpanContext

from app.eval.export import Allowlisted
from plumbing import telemetry

EVENT = "gen_ai.evaluation.result"


class TurnSpans(SpanProcessor):
    """Remembers the last turn (`invoke_agent` span) that ended: the one a case just ran."""

    def __init__(self) -> None:
        self.last: SpanContext | None = None

    def on_end(self, span: ReadableSpan) -> None:
        if span.name.startswith("invoke_agent"):
            self.last = span.get_span_context()


def export(provider: TracerProvider, exporter: SpanExporter | None = None) -> None:
    """Send `provider`'s spans, as the allowlist keeps them (export.py), to `exporter`, or over OTLP
    when an endpoint is configured."""
    if exporter is None and telemetry.exporting():
        exporter = telemetry.otlp_exporter()
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(Allowlisted(exporter)))


def emit(report: Any, tracer: trace.Tracer) -> None:
    """Each scored case's results as events beside its turn."""
    for case in report.cases:
        turn = getattr(case.output, "span", None)
        if turn is None:
            continue
        parent = trace.set_span_in_context(NonRecordingSpan(turn))
        with tracer.start_as_current_span(f"evaluate {case.name}", context=parent) as span:
            results = {**case.assertions, **case.scores, **case.labels}
            for name, result in results.items():
                span.add_event(EVENT, result_attributes(name, result))


def result_attributes(name: str, result: Any) -> dict[str, Any]:
    """The event's attributes: a pass/fail result as 1.0/0.0 and its label, a score as its value. (Its
    explanation, which can quote the prompt or the answer, stays in the scorecard's Markdown and JSON.)"""
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
    return found


def _label(passed: bool) -> str:
    return "pass" if passed else "fail"
