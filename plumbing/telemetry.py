"""A process's OpenTelemetry, when OTEL_EXPORTER_OTLP_ENDPOINT is set: one tracer provider that exports
spans over OTLP/HTTP (configured by the standard OTEL_* variables), and a service's work as spans — its
HTTP requests (FastAPI, continuing the caller's W3C `traceparent`) and its SQL (sqlite3, psycopg). When
the variable is unset, nothing here imports OpenTelemetry.

Each process starts it for itself (`python -m devicedb` and its workers, the served agent's workers);
inside `main.py` the agent starts it first (agent/tracing.py), and the embedded device service shares
that provider.
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fastapi import FastAPI

ENDPOINTS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_lock = threading.Lock()
_provider: Any = None  # the SDK's TracerProvider, once started
_recorder: Any = None  # a TracerProvider the program records its spans into itself (`record_into`)


class TracingUnavailable(Exception):
    """An OTLP endpoint is configured, but OpenTelemetry is not installed."""


def enabled() -> bool:
    """Is an OTLP endpoint configured, or a provider given (`record_into`), and the SDK not switched off by
    OTEL_SDK_DISABLED=true?"""
    if _disabled():
        return False
    return _recorder is not None or exporting()


def exporting() -> bool:
    """Is an OTLP endpoint configured, and the SDK not switched off?"""
    return not _disabled() and any(os.environ.get(name) for name in ENDPOINTS)


def _disabled() -> bool:
    return os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def otlp_exporter() -> Any:
    """The SDK's OTLP/HTTP span exporter (endpoint and headers from the OTEL_* variables)."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    except ImportError:
        raise _unavailable() from None
    return OTLPSpanExporter()


def _unavailable() -> TracingUnavailable:
    return TracingUnavailable(
        "OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK is not installed: install the"
        " [tracing] extra (pip install -e '.[tracing]'), or unset the variable"
    )


def record_into(provider: Any) -> None:
    """Trace the agent's runs into `provider`, a TracerProvider the program set itself (the evaluation
    keeps its spans in memory), instead of exporting over OTLP; its services stay untraced."""
    global _recorder
    with _lock:
        _recorder = provider


def start(service_name: str) -> bool:
    """Start the process-wide provider and the SQL instrumentation once, if tracing is enabled; the first
    caller names the service (OTEL_SERVICE_NAME overrides it). Call it before the first database
    connection: connections opened earlier make no spans. Returns whether tracing is on."""
    global _provider
    with _lock:
        if _provider is None and _recorder is None and enabled():
            _provider = _new_provider(service_name)
    return _provider is not None or _recorder is not None


def _new_provider(service_name: str) -> Any:
    try:
        from opentelemetry import trace
        from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
        from opentelemetry.instrumentation.sqlite3 import SQLite3Instrumentor
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise _unavailable() from None
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: service_name}))
    provider.add_span_processor(BatchSpanProcessor(otlp_exporter()))
    trace.set_tracer_provider(provider)
    SQLite3Instrumentor().instrument()
    PsycopgInstrumentor().instrument()
    return provider


def fastapi_options(fastapi: type[FastAPI]) -> dict[str, Any]:
    """What every FastAPI app of the project is made with: FastAPI's own telemetry off. A recent FastAPI
    (0.165 has it) traces each request by itself, its path and query included, into whatever provider the
    process has set (the scorecard's, which exports); a service's spans are the project's alone
    (`instrument`), or none. `fastapi`: the FastAPI class (the caller's: this module imports none)."""
    if "telemetry" not in inspect.signature(fastapi).parameters:  # an older FastAPI has none of its own
        return {}
    return {"telemetry": {"tracing": False, "metrics": False, "logs": False}}


def instrument(app: FastAPI) -> None:
    """A span for each request the app serves, once tracing is on (a no-op otherwise)."""
    if _provider is None:
        return
    from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

    # without the per-message spans of ASGI (receive, send): one span per request, and its SQL below it
    FastAPIInstrumentor.instrument_app(app, exclude_spans=["receive", "send"])


@contextmanager
def span(name: str) -> Iterator[None]:
    """A span of the service's own work, its SQL below it (a no-op while tracing is off)."""
    if _provider is None:
        yield
        return
    from opentelemetry import trace

    with trace.get_tracer(__name__).start_as_current_span(name):
        yield


def stop() -> None:
    """Export the spans still waiting, and stop exporting (the SDK does it at exit too, if this is not
    called)."""
    if _provider is not None:
        _provider.shutdown()
