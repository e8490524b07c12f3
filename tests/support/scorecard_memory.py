"""`python -m tests.support.scorecard_memory SPANS eval ARGS...`: `python main.py eval ARGS...` in this
process, with OpenTelemetry's InMemorySpanExporter where the spans would go over OTLP; what reached it (each
span's name, scope, attributes, events and status, as the scorecard's allowlist passed them on) is written
to SPANS as JSON."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from app.eval import scorecard
from plumbing.http import bypass_proxy_for_loopback


def as_json(span: ReadableSpan) -> dict[str, Any]:
    return {
        "name": span.name,
        "scope": span.instrumentation_scope.name if span.instrumentation_scope else "",
        "attributes": dict(span.attributes or {}),
        "events": [{"name": e.name, "attributes": dict(e.attributes or {})} for e in span.events],
        "status": span.status.description,
    }


def main(argv: list[str]) -> int:
    bypass_proxy_for_loopback()  # as main.py does
    exporter = InMemorySpanExporter()
    assert argv[1] == "eval", argv
    done = scorecard.main(argv[2:], exporter)  # its end shuts the provider down: every span is exported
    spans = [as_json(span) for span in exporter.get_finished_spans()]
    Path(argv[0]).write_text(json.dumps(spans, ensure_ascii=False, default=list), encoding="utf-8")
    return done


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
