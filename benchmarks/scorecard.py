"""`python main.py eval`: a tool-calling scorecard of the configured model (the embedded default, LOCAL_MODEL,
or LLM_BASE_URL / LLM_API_KEY / LLM_MODEL) on the device job's prompt sets (`benchmarks/prompts/`), each
case through the real host on a fresh device database, scored by pydantic-evals (`scorecard_cases`).

Markdown to stdout (or `--md FILE`), figures per part and category to `--json FILE`. `--floors docs` fails
(exit 1) when a part run in full passes fewer cases than docs/embedded states (`agent_eval.FLOORS`: the
embedded model's figures), `--floors all` when any case fails (the scripted control's figure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from agent.config import Settings
from agent.tracing import CAPTURE_CONTENT
from app.models.provider import choose_model
from benchmarks.agent_eval import FLOORS
from benchmarks.eval_spec import FILES, part
from benchmarks.scorecard_cases import cases
from benchmarks.scorecard_markdown import markdown
from benchmarks.scorecard_run import CaseRunner
from benchmarks.scorecard_summary import quotes_prompts, summarize
from plumbing import telemetry


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python main.py eval", description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures per part as JSON")
    parser.add_argument("--md", type=Path, metavar="FILE", help="write the Markdown here, not to stdout")
    parser.add_argument("--limit", type=_positive, metavar="N", help="run the first N cases of each part")
    parser.add_argument("--part", nargs="+", choices=list(FILES), metavar="NAME", help=_parts_help())
    parser.add_argument("--k", type=_positive, default=1, help="runs of each case, for pass^k (default 1)")
    parser.add_argument("--floors", choices=["docs", "all"], help="fail below the documented floors / any")
    return parser.parse_args(argv)


def _parts_help() -> str:
    return "the parts to run (default: all): " + ", ".join(repr(name) for name in FILES)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


def record_spans() -> None:
    """Keep the agent's spans in memory, arguments included, where pydantic-evals reads them."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    provider = TracerProvider()
    trace.set_tracer_provider(provider)
    telemetry.record_into(provider)
    os.environ[CAPTURE_CONTENT] = "true"


def scorecard(args: argparse.Namespace) -> dict[str, Any]:
    from pydantic_evals import Dataset

    names = args.part or list(FILES)
    settings = Settings()
    record_spans()
    with ExitStack() as stack:
        choice = choose_model(settings, stack)
        print(f"evaluating {choice.description} ...", file=sys.stderr, flush=True)
        dataset = Dataset(name="device job", cases=list(cases(names, args.limit)))
        report = dataset.evaluate_sync(
            CaseRunner(settings, choice), max_concurrency=1, progress=False, repeat=args.k
        )
    parts = summarize(report, names, args.k)
    errors = [_error(failure) for failure in report.failures]
    count = sum(part["cases"] for part in parts.values())
    return {"model": choice.description, "k": args.k, "limit": args.limit, "cases": count, "parts": parts} | {
        "errors": errors
    }


def _error(failure: Any) -> str:
    """A case that could not run, by id: its error's words where the part may be quoted, else its type."""
    said = failure.error_message
    return f"{failure.name}: {said[:200] if quotes_prompts(failure.metadata['part']) else said.split(':')[0]}"


def below_floors(card: dict[str, Any], floors: str | None) -> list[str]:
    """Each part that passed fewer cases than its floor, said; under `docs`, only parts run in full."""
    problems = []
    for name, part_ in card["parts"].items():
        full = part_["cases"] == len(part(name))
        floor = part_["cases"] if floors == "all" else FLOORS.get(name) if full else None
        if floor is not None and part_["passed"] < floor:
            problems.append(
                f"the {name} part passed {part_['passed']}/{part_['cases']}, below its floor of {floor}"
            )
    return problems + [f"a case could not run: {error}" for error in card["errors"]]


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    card = scorecard(args)
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
