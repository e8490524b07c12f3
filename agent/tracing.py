"""Tracing: every run as OpenTelemetry spans in the GenAI semantic conventions — `invoke_agent` for a turn,
`chat {model}` for each model request, `execute_tool {name}` for each tool call — exported over OTLP when
OTEL_EXPORTER_OTLP_ENDPOINT is set. When it is not, each decorator here only calls through, and nothing
of OpenTelemetry is imported.

The spans are decorators on the loop's methods, a line each (agent.py, tools.py); HTTP requests (requests),
the device service's requests and SQL (plumbing/telemetry.py) and MCP calls (the mcp SDK's own spans) hang
below them. Message contents are recorded only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is
true, with secrets redacted as in the audit; each audit line carries its span's ids (`audit_fields`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any, Concatenate, ParamSpec, TypeVar

from agent.audit import redact
from agent.types import ConfigError
from plumbing import telemetry as process_tracing

AGENT_NAME = "tool-use-agent"
CAPTURE_CONTENT = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
P = ParamSpec("P")
R = TypeVar("R")
_tracer: Any = None


def start(stack: ExitStack) -> None:
    """Trace this program if OTEL_EXPORTER_OTLP_ENDPOINT is set: spans leave as they end, the last ones
    when `stack` closes (the first caller's, when called again in the same process). Call it first,
    before anything connects to a database."""
    try:
        if not process_tracing.start(AGENT_NAME):
            return
    except process_tracing.TracingUnavailable as e:
        raise ConfigError(str(e)) from None
    from opentelemetry.instrumentation.requests import RequestsInstrumentor
    from opentelemetry.instrumentation.threading import ThreadingInstrumentor

    # a span per HTTP request, and the trace carried into the threads tools and turns run in
    instrumentors = (RequestsInstrumentor(), ThreadingInstrumentor())
    if all(i.is_instrumented_by_opentelemetry for i in instrumentors):
        return  # started before, in this process
    for instrumentor in instrumentors:
        instrumentor.instrument()
    stack.callback(process_tracing.stop)


def serve(app: Any) -> None:
    """The served agent's FastAPI app: a span per request, continuing the W3C `traceparent` the request
    carries; the turn it starts runs below it (a no-op while tracing is off)."""
    process_tracing.instrument(app)


def invoke_agent(turn: Callable[Concatenate[Any, P], str]) -> Callable[Concatenate[Any, P], str]:
    """`invoke_agent {name}` around one turn of an agent (its `memory`), begun or resumed: the person's
    message that began the turn, and the answer."""

    @functools.wraps(turn)
    def traced(agent: Any, *args: P.args, **kwargs: P.kwargs) -> str:
        tracer = _tracer_or_none()
        if tracer is None:
            return turn(agent, *args, **kwargs)
        attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": AGENT_NAME}
        with _span(tracer, f"invoke_agent {AGENT_NAME}", "INTERNAL", attributes) as span:
            try:
                answer = turn(agent, *args, **kwargs)
            finally:  # the person's message that began the turn, also when it failed
                person = [m for m in agent.memory.history() if m.type == "human"][-1:]
                said = [_message("user", _text(str(m.content))) for m in person]
                _content(span, "gen_ai.input.messages", said)
            _content(span, "gen_ai.output.messages", [_message("assistant", _text(answer))])
            return answer

    return traced


def chat(request: Callable[Concatenate[Any, P], R]) -> Callable[Concatenate[Any, P], R]:
    """`chat {model}` around one model request of an agent (its `llm`, its `memory`), answered by an
    AIMessage: the model asked for and the one that answered, tokens, finish reason."""

    @functools.wraps(request)
    def traced(agent: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        tracer = _tracer_or_none()
        if tracer is None:
            return request(agent, *args, **kwargs)
        model = str(getattr(agent.llm, "model_name", None) or getattr(agent.llm, "model", None) or "")
        attributes = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model}
        with _span(tracer, f"chat {model}".strip(), "CLIENT", attributes) as span:
            if _capturing():
                _record_input(span, agent.memory.messages())
            reply = request(agent, *args, **kwargs)
            span.set_attributes(_reply_attributes(reply))
            _content(span, "gen_ai.output.messages", [_as_part_message(reply, _finish_reason(reply))])
            return reply

    return traced


def execute_tool(
    run: Callable[Concatenate[Any, Any, Any, P], R],
) -> Callable[Concatenate[Any, Any, Any, P], R]:
    """`execute_tool {name}` around one tool call, `run(registry, ctx, tool_call, ...)` returning the
    envelope (or an Executed, which holds it): a failed envelope marks the span an error. Whether the
    registry has a tool of that name is `agent.tool.registered` (a name the model made up is its own words);
    the host's decision arrives with the audit line (`audit_fields`)."""

    @functools.wraps(run)
    def traced(registry: Any, ctx: Any, tool_call: Any, *args: P.args, **kwargs: P.kwargs) -> R:
        tracer = _tracer_or_none()
        if tracer is None:
            return run(registry, ctx, tool_call, *args, **kwargs)
        name = tool_call.get("name") or ""
        attributes = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": tool_call.get("id") or "",
            "gen_ai.tool.type": "function",
            "agent.tool.registered": registry.get(name) is not None,
        }
        with _span(tracer, f"execute_tool {name}", "INTERNAL", attributes) as span:
            _content(span, "gen_ai.tool.call.arguments", tool_call.get("args"))
            done = run(registry, ctx, tool_call, *args, **kwargs)
            raw: Any = getattr(done, "envelope", done)
            envelope = json.loads(raw)
            _content(span, "gen_ai.tool.call.result", envelope)
            _outcome(span, envelope)
            return done

    return traced


def audit_fields(line: Mapping[str, Any]) -> dict[str, Any]:
    """For AuditLog: the current span's trace and span ids, added to the line; the line's decision goes on
    the span (for a tool call, the host's: ran, invalid_arguments, permission_denied...)."""
    tracer = _tracer_or_none()
    if tracer is None:
        return {}
    from opentelemetry import trace

    span = trace.get_current_span()
    context = span.get_span_context()
    if not context.is_valid:
        return {}
    if "decision" in line:
        span.set_attribute("agent.tool.decision", str(line["decision"]))
    return {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")}


# --- the spans' parts ----------------------------------------------------------------------------------


def _tracer_or_none() -> Any:
    """The tracer when tracing is on (the SDK may be another program's, when this one is its library)."""
    global _tracer
    if not process_tracing.enabled():
        return None
    if _tracer is None:
        try:
            from opentelemetry import trace
        except ImportError:  # start() says so; a library user without the extra simply gets no spans
            return None
        _tracer = trace.get_tracer("agent")
    return _tracer


@contextmanager
def _span(tracer: Any, name: str, kind: str, attributes: dict[str, Any]) -> Iterator[Any]:
    """A current span; an exception is recorded on it (status ERROR, `error.type`) and goes on."""
    from opentelemetry.trace import SpanKind

    attributes = {k: v for k, v in attributes.items() if v != ""}
    with tracer.start_as_current_span(name, kind=SpanKind[kind], attributes=attributes) as span:
        try:
            yield span
        except BaseException as e:
            span.set_attribute("error.type", type(e).__qualname__)
            raise


def _outcome(span: Any, envelope: dict[str, Any]) -> None:
    from opentelemetry.trace import StatusCode

    if not envelope.get("ok"):
        span.set_attribute("error.type", "tool_error")
        span.set_status(StatusCode.ERROR, str(envelope.get("error", ""))[:500])


def _reply_attributes(reply: Any) -> dict[str, Any]:
    usage = getattr(reply, "usage_metadata", None) or {}
    metadata = getattr(reply, "response_metadata", None) or {}
    found = {
        "gen_ai.response.model": metadata.get("model_name"),
        "gen_ai.usage.input_tokens": usage.get("input_tokens"),
        "gen_ai.usage.output_tokens": usage.get("output_tokens"),
        "gen_ai.response.finish_reasons": [_finish_reason(reply)] if _finish_reason(reply) else None,
    }
    return {k: v for k, v in found.items() if v is not None}


def _finish_reason(reply: Any) -> str:
    return str((getattr(reply, "response_metadata", None) or {}).get("finish_reason") or "")


# --- message contents, only when asked for -------------------------------------------------------------


def _capturing() -> bool:
    return os.environ.get(CAPTURE_CONTENT, "").strip().lower() == "true"


CONTENT = (  # the attributes `_content` writes
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.call.arguments",
    "gen_ai.tool.call.result",
)


def _content(span: Any, key: str, value: Any) -> None:
    """A content attribute (one of CONTENT), as JSON with secrets redacted, when contents are captured."""
    assert key in CONTENT, key
    if _capturing() and value is not None:
        span.set_attribute(key, json.dumps(redact(value), ensure_ascii=False, default=str))


def _record_input(span: Any, messages: list[Any]) -> None:
    system = [_text(m.text) for m in messages if m.type == "system"]
    _content(span, "gen_ai.system_instructions", [part for parts in system for part in parts] or None)
    _content(span, "gen_ai.input.messages", [_as_part_message(m) for m in messages if m.type != "system"])


_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _as_part_message(message: Any, finish_reason: str = "") -> dict[str, Any]:
    """A LangChain message in the conventions' shape: {"role", "parts": [text, tool calls, tool result]}."""
    if message.type == "tool":
        return _message(
            "tool", [{"type": "tool_call_response", "id": message.tool_call_id, "response": message.text}]
        )
    calls = [
        {"type": "tool_call", "id": call.get("id"), "name": call.get("name"), "arguments": call.get("args")}
        for call in getattr(message, "tool_calls", None) or []
    ]
    found = _message(_ROLES.get(message.type, message.type), _text(message.text) + calls)
    return {**found, "finish_reason": finish_reason} if finish_reason else found


def _message(role: str, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"role": role, "parts": parts}


def _text(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "content": text}] if text else []
