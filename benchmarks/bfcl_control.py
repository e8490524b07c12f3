"""The scripted model of `python -m app.eval.bfcl_run --control`, on loopback like scripted_llm.py: for a
BFCL case's question it makes the case's first possible answer — each function of it, each argument its
first acceptable value, none where that value is "leave it out" — all in one reply; where no function fits
(irrelevance) it answers in words. It knows the answers, which no model does.

`python -m benchmarks.bfcl_control` runs BFCL's single-turn categories through the host against it (the
scorecard's BFCL runner, app/eval/bfcl_run.py): what 100% looks like with grounding off, and what grounding
refuses of the ideal calls."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from agent.config import Settings
from app.eval import bfcl_run
from app.models.provider import choose_model
from benchmarks import scripted_llm


def ideal_calls(case: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's first possible answer, as OpenAI tool calls."""
    calls = []
    for i, call in enumerate(case["answer"]):
        ((name, arguments),) = call.items()
        function = {
            "name": name.replace(".", "_"),
            "arguments": json.dumps(_first(arguments), ensure_ascii=False),
        }
        calls.append({"id": f"call_{i}", "type": "function", "function": function})
    return calls


def _first(arguments: dict[str, list[Any]]) -> dict[str, Any]:
    """Each argument's first acceptable value; a dict's values are lists of acceptable values too."""
    chosen = {key: values[0] for key, values in arguments.items() if values and values[0] != ""}
    return {key: _first(value) if isinstance(value, dict) else value for key, value in chosen.items()}


def replier(cases: list[dict[str, Any]]) -> Any:
    by_question = {"\n".join(m["content"] for m in c["question"] if m["role"] == "user"): c for c in cases}

    def reply(request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        asked = next(m["content"] for m in reversed(messages) if m["role"] == "user")
        calls = ideal_calls(by_question[asked]) if messages[-1]["role"] == "user" else []
        return scripted_llm.completion(scripted_llm.assistant(calls, "Done."), "bfcl-control")

    return reply


@contextmanager
def serving(cases: list[dict[str, Any]]) -> Iterator[str]:
    server, url = scripted_llm.start(replier(cases))
    try:
        yield url
    finally:
        server.shutdown()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bfcl-python", type=Path, default=bfcl_run.VENV_PYTHON, help="BFCL's venv's python")
    parser.add_argument(
        "--category", nargs="+", choices=bfcl_run.CATEGORIES, default=list(bfcl_run.CATEGORIES)
    )
    parser.add_argument("--limit", type=int, help="the first N cases of each category")
    parser.add_argument("--json", type=Path, help="write the scores as JSON")
    args = parser.parse_args(argv)
    cases = bfcl_run.load(args.bfcl_python, args.category, args.limit)
    with ExitStack() as stack:
        os.environ["LLM_BASE_URL"] = stack.enter_context(serving(cases))
        settings = Settings()
        scores = bfcl_run.run(cases, settings, choose_model(settings, stack), args.bfcl_python)
    print(
        "\n".join(["# BFCL single-turn, through the host: the scripted control", "", *bfcl_run.table(scores)])
    )
    if args.json:
        args.json.write_text(json.dumps(scores, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
