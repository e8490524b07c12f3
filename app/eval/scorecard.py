"""`python main.py eval`: a tool-calling scorecard of the configured model (the embedded default, LOCAL_MODEL,
or LLM_BASE_URL / LLM_API_KEY / LLM_MODEL) on the device job's prompt sets (`app/eval/prompts/`) and the blind
parts' tools files (`blind/*_tools.yaml`: tools each writer added, beside the built-in ones), each
case through the real host on a fresh device database, scored by pydantic-evals (`cases`); with
`--tools-file FILE`, also a tools file of your own, in the same format; with `--bfcl N`, also BFCL's
single-turn categories through the same host, grounding on and off, scored by bfcl-eval's own checker in
its venv (`bfcl_run`).

Markdown to stdout (or `--md FILE`), figures per part and category to `--json FILE`, every text from the
model or its endpoint through `safe()` first; its spans, as an allowlist keeps them (export.py), to a
trace store when OTEL_EXPORTER_OTLP_ENDPOINT is set. `--floors docs` fails
(exit 1) when a part run in full passes fewer cases than docs/embedded states (`device_job.FLOORS`: the
embedded model's figures), `--floors all` when any case fails — of a tools file, any the host lets a model
pass (`ToolPrompt.refused`) — or BFCL with grounding off is under 100% (the scripted control's figures).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.config import Settings
from agent.guards import safe
from agent.tracing import CAPTURE_CONTENT
from agent.types import ConfigError
from app.eval import bfcl_run
from app.eval.cases import cases
from app.eval.device_job import FLOORS
from app.eval.events import TurnSpans, emit, export
from app.eval.markdown import markdown
from app.eval.runner import CaseRunner
from app.eval.spec import FILES, part
from app.eval.summary import quotes_prompts, summarize
from app.eval.tools_file import ToolsFileError, read
from app.models.provider import choose_model
from plumbing import telemetry

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python main.py eval", description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures per part as JSON")
    parser.add_argument("--md", type=Path, metavar="FILE", help="write the Markdown here, not to stdout")
    parser.add_argument("--limit", type=_positive, metavar="N", help="run the first N cases of each part")
    parser.add_argument("--part", nargs="*", choices=list(FILES), metavar="NAME", help=_parts_help())
    parser.add_argument(
        "--tools-file", type=Path, action="append", default=[], metavar="FILE", help=TOOLS_HELP
    )
    parser.add_argument("--k", type=_positive, default=1, help="runs of each case, for pass^k (default 1)")
    parser.add_argument("--floors", choices=["docs", "all"], help="fail below the documented floors / any")
    parser.add_argument("--bfcl", type=_cases, default=0, metavar="N|all", help=BFCL_HELP)
    parser.add_argument("--bfcl-python", type=Path, default=bfcl_run.VENV_PYTHON, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.part == [] and args.bfcl == 0 and not args.tools_file:
        parser.error(
            "--part names no part, and neither --tools-file nor --bfcl is given: there is nothing to run"
        )
    args.files = {}
    for path in args.tools_file:  # each read now, so that a file in error stops nothing midway
        if path.stem in FILES or path.stem in args.files:
            parser.error(f"--tools-file {path}: a part is already named {path.stem!r}; rename the file")
        try:
            read(path, path.stem)
        except ToolsFileError as e:
            parser.error(f"--tools-file {e}")
        args.files[path.stem] = path
    if args.bfcl != 0 and not args.bfcl_python.exists():  # 0: not asked for
        parser.exit(2, "eval: BFCL runs in a venv of its own, which is missing: run `make bfcl-venv`\n")
    return args


TOOLS_HELP = (
    "also score a tools file of your own (tools as data and prompts, the format of "
    "app/eval/prompts/blind/BRIEF.md), as a part named by the file's stem; repeatable"
)
BFCL_HELP = (
    "also run the first N cases (or all) of each of BFCL's single-turn categories through the host, "
    "grounding on and off, scored by bfcl-eval's checker (its venv: make bfcl-venv)"
)


def _parts_help() -> str:
    names = ", ".join(repr(name) for name in FILES)
    return f"the parts to run, device jobs and tools files (default: all; none named: none): {names}"


def _cases(text: str) -> int | None:
    """--bfcl's N: a whole number, or `all` (None: no limit)."""
    return None if text == "all" else _positive(text)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


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
            dataset = Dataset(name="device job", cases=list(cases(names, args.limit, args.files)))
            report = dataset.evaluate_sync(
                CaseRunner(settings, choice, turns), max_concurrency=1, progress=False, repeat=args.k
            )
            emit(report, provider.get_tracer("app.eval.scorecard"))
            parts = summarize(report, [*names, *args.files], args.k)
            errors = [_error(failure) for failure in report.failures]
        if args.bfcl != 0:
            bfcl = _bfcl(args, settings, choice)
    count = sum(part["cases"] for part in parts.values())
    card = {"model": choice.description, "k": args.k, "limit": args.limit, "cases": count, "parts": parts}
    return card | {"errors": errors} | ({"bfcl": bfcl} if bfcl else {})


def _bfcl(args: argparse.Namespace, settings: Settings, choice: Any) -> dict[str, Any]:
    """BFCL's scores through the host: {"on": {category: figures}, "off": ...} (bfcl_run)."""
    found = bfcl_run.load(args.bfcl_python, list(bfcl_run.CATEGORIES), args.bfcl)
    print(f"BFCL: {len(found)} cases, grounding on and off ...", file=sys.stderr, flush=True)
    return bfcl_run.run(found, settings, choice, args.bfcl_python)


def _error(failure: Any) -> str:
    """A case that could not run, by id: its error's words where the part may be quoted, else its type."""
    said = failure.error_message
    return f"{failure.name}: {said[:200] if quotes_prompts(failure.metadata['part']) else said.split(':')[0]}"


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
                problems.append(f"BFCL {category} (grounding off) scored {figures['accuracy']:.1%}, not 100%")
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
    else:
        print(text)
    if args.json:
        args.json.write_text(json.dumps(card, ensure_ascii=False, indent=2), encoding="utf-8")
    problems = below_floors(card, args.floors) if args.floors else []
    for problem in problems:
        print(f"eval: {problem}", file=sys.stderr)
    return 1 if problems else 0
