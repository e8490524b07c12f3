"""The demo reader's score on its development prompts (`prompts/reader_dev.yaml`): the project's tools and
those of `reader_tools.py` in one registry, each prompt planned by the embedded demo's router, and
counted right when it calls the tool with the arguments written down, asks when it should, or calls
nothing when no tool serves it.

`python -m benchmarks.reader_dev` prints each miss and the total; `--learned-off` reads without the
learned reader (`app/models/embedded/meaning.py`), to measure what it adds; `--plan TEXT` prints the
plan of one request (what `benchmarks.demo_start` times).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import yaml

from agent.tools import ToolRegistry
from app.models.embedded import meaning
from app.models.embedded.routing import Plan, Router
from benchmarks.reader_tools import reader_tools, schema_tools
from tools import default_tools

PROMPTS = Path(__file__).with_name("prompts") / "reader_dev.yaml"


def router(only: list[str] | None = None) -> Router:
    """The project's tools and the README-way ones; `only`: just the named ones (a benchmark's way)."""
    registry = ToolRegistry()
    if only is None:
        chosen = [*default_tools("http://127.0.0.1:9/api/models"), *reader_tools()]
    else:
        every = [*default_tools("http://127.0.0.1:9/api/models"), *reader_tools(), *schema_tools()]
        chosen = [tool for tool in every if tool.name in only]
    for tool in chosen:
        registry.register(tool)
    return Router(registry)


def right(plan: Plan, prompt: dict) -> bool:
    """Does the plan do what the prompt's row says a correct one does?"""
    if prompt.get("asks"):
        return plan.kind == "missing" and plan.tool == prompt["tool"]
    if prompt.get("which"):
        return plan.kind == "which"
    if prompt.get("writes") is False:
        return plan.effect == "read" or plan.kind != "tool"
    if "tool" not in prompt:
        return plan.kind != "tool"
    if "calls" in prompt:  # every call, in order
        return plan.kind == "tool" and plan.tool == prompt["tool"] and list(plan.calls) == prompt["calls"]
    wanted = prompt.get("args")
    return plan.kind == "tool" and plan.tool == prompt["tool"] and (wanted is None or plan.calls[0] == wanted)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--plan"]:  # one request, planned over the README-way tools: the reader's cost alone
        print(router().plan(argv[1]))
        return 0
    if "--learned-off" in argv:
        meaning._encoder.cache_clear()
        meaning.__dict__["_encoder"] = lambda: None  # the rules alone
    prompts = yaml.safe_load(PROMPTS.read_text(encoding="utf-8"))["prompts"]
    passed, slowest = 0, 0.0
    for prompt in prompts:
        reader = router(prompt.get("only"))
        start = time.perf_counter()
        plan = reader.plan(prompt["text"])
        slowest = max(slowest, time.perf_counter() - start)
        if right(plan, prompt):
            passed += 1
        else:
            print(f"miss: {prompt['text']!r} -> {plan.kind} {plan.tool} {list(plan.calls)} {plan.missing}")
    print(f"reader_dev: {passed}/{len(prompts)} right; slowest plan {slowest:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
