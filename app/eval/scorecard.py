"""`python main.py eval`: a tool-calling scorecard of the configured model (the embedded default, LOCAL_MODEL,
or LLM_BASE_URL / LLM_API_KEY / LLM_MODEL) on the device job's prompt sets (`prompts/`, shipped in the
package) and the blind parts' tools files (`prompts/blind/*_tools.yaml`: tools each writer added, beside
the built-in ones), each case through the real host on a fresh device database, scored by pydantic-evals
(`cases`); with `--tools-file FILE`, also a tools file of your own, in the same format; with `--bfcl N`,
also BFCL's single-turn categories through the same host, with grounding and without, scored by
bfcl-eval's own checker in its venv (`bfcl_run`). The options are `arguments`'.

Markdown to stdout (or `--md FILE`, the first line to stdout then), its first line the overall result and
the command that reproduces it (`markdown`); progress on stderr (`progress`); figures per part and
category to `--json FILE`; every text from the model or its endpoint through `safe()` first. Its spans, as
an allowlist keeps them (export.py), go to a trace store when OTEL_EXPORTER_OTLP_ENDPOINT is set.
`--floors docs` fails (exit 1) when a part run in full passes fewer cases than docs/embedded states
(`device_job.FLOORS`: the embedded model's figures), `--floors all` when any case fails — of a tools file,
any the host lets a model pass (`ToolPrompt.refused`) — or BFCL without grounding is under 100% (the
scripted control's figures).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from agent.config import Settings
from agent.guards import safe
from agent.tracing import CAPTURE_CONTENT
from agent.types import ConfigError
from app.eval import bfcl_run
from app.eval.arguments import parse_args, reproduce
from app.eval.cases import cases
from app.eval.device_job import FLOORS
from app.eval.events import TurnSpans, emit, export
from app.eval.markdown import headline, markdown
from app.eval.progress import tracking
from app.eval.runner import CaseRunner
from app.eval.spec import FILES, held_out, part
from app.eval.summary import summarize
from app.models.provider import choose_model
from plumbing import telemetry

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter


def record_spans(exporter: SpanExporter | None = None) -> tuple[Any, TurnSpans]:
    """Keep the agent's spans in memory, arguments included, where pydantic-evals reads them; note each
    case's turn; and send what the allowlist keeps of them to `exporter`, or to a trace store when one is
    configured (events.py)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    turns = TurnSpans()
    provider.add_span_processor(turns)
    try:
        export(provider, exporter)
    except telemetry.TracingUnavailable as e:
        raise ConfigError(str(e)) from None
    trace.set_tracer_provider(provider)
    telemetry.record_into(provider)
    os.environ[CAPTURE_CONTENT] = "true"
    return provider, turns


def scorecard(args: argparse.Namespace, exporter: SpanExporter | None = None) -> dict[str, Any]:
    from pydantic_evals import Dataset

    names = list(FILES) if args.part is None else args.part
    settings = Settings()
    provider, turns = record_spans(exporter)
    parts: dict[str, Any] = {}
    errors: list[str] = []
    bfcl: dict[str, Any] | None = None
    with ExitStack() as stack:
        stack.callback(provider.shutdown)  # the last spans and events are sent, whatever happened
        choice = choose_model(settings, stack)
        print(f"evaluating {safe(choice.description)} ...", file=sys.stderr, flush=True)
        if names or args.files:
            found = list(cases(names, args.limit, args.files))
            dataset = Dataset(name="device job", cases=found)
            with tracking(len(found) * args.k) as progress:
                runner = CaseRunner(settings, choice, turns, progress)
                report = dataset.evaluate_sync(runner, max_concurrency=1, progress=False, repeat=args.k)
            emit(report, provider.get_tracer("app.eval.scorecard"))
            parts = summarize(report, [*names, *args.files], args.k)
            errors = [_error(failure) for failure in report.failures]
        if args.bfcl != 0:
            bfcl = _bfcl(args, settings, choice)
    card = {"model": choice.description, "command": reproduce(args), "k": args.k, "limit": args.limit}
    card |= {
        "cases": sum(p["cases"] for p in parts.values()),
        "passed": sum(p["passed"] for p in parts.values()),
    }
    return card | {"parts": parts, "errors": errors} | ({"bfcl": bfcl} if bfcl else {})


def _bfcl(args: argparse.Namespace, settings: Settings, choice: Any) -> dict[str, Any]:
    """BFCL's scores through the host: {"on": {category: figures}, "off": ...} (bfcl_run)."""
    found = bfcl_run.load(args.bfcl_python, list(bfcl_run.CATEGORIES), args.bfcl)
    with tracking(2 * len(found)) as progress:
        return bfcl_run.run(found, settings, choice, args.bfcl_python, progress)


def _error(failure: Any) -> str:
    """A case that could not run, by id: its error's words where the part may be quoted, else its type."""
    said = failure.error_message
    part_ = (failure.metadata or {}).get("part", "")
    return f"{failure.name}: {said.split(':')[0] if held_out(part_) else said[:200]}"


def below_floors(card: dict[str, Any], floors: str | None) -> list[str]:
    """Each part that passed fewer cases than its floor, said; under `docs`, only parts run in full."""
    problems = []
    for name, part_ in card["parts"].items():
        full = name in FLOORS and part_["cases"] == len(part(name))  # blind parts, tools files: no floor
        most = part_.get("counts", {}).get("reachable", part_["cases"])  # what the host lets a model pass
        floor = most if floors == "all" else FLOORS[name] if full else None
        if floor is not None and part_["passed"] < floor:
            problems.append(
                f"the {name} part passed {part_['passed']}/{part_['cases']}, below its floor of {floor}"
            )
    if floors == "all":  # the ideal calls pass bfcl-eval's checker wherever grounding lets them run
        for category, figures in card.get("bfcl", {}).get("off", {}).items():
            if figures["accuracy"] < 1:
                problems.append(
                    f"BFCL {category} (without grounding) scored {figures['accuracy']:.1%}, not 100%"
                )
    return problems + [f"a case could not run: {error}" for error in card["errors"]]


def shown(value: Any) -> Any:
    """`value` (the card) with every text in it, keys too, through `safe`: a model's answer, the tool names
    it chose, an endpoint's error, its model's name. No escape sequence, control or bidi character is
    printed or written."""
    if isinstance(value, str):
        return safe(value)
    if isinstance(value, dict):
        return {shown(key): shown(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [shown(item) for item in value]
    return value


def main(argv: list[str], exporter: SpanExporter | None = None) -> int:
    """`exporter`: where the spans go, as the allowlist keeps them (by default over OTLP, when configured)."""
    args = parse_args(argv)
    card = shown(scorecard(args, exporter))
    text = markdown(card)
    if args.md:
        args.md.write_text(text, encoding="utf-8")
        print(headline(card))
    else:
        print(text, end="")
    if args.json:
        args.json.write_text(json.dumps(card, ensure_ascii=False, indent=2), encoding="utf-8")
    problems = below_floors(card, args.floors) if args.floors else []
    for problem in problems:
        print(f"eval: {problem}", file=sys.stderr)
    return 1 if problems else 0
