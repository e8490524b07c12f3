"""BFCL's side of `bfcl_run`: it runs in BFCL's own venv (benchmarks/.venv-bfcl in a checkout, see the
Makefile), imports bfcl-eval and the standard library only, never this project. `cases CATEGORY...`
prints the categories' cases as JSON lines (the question's first turn, the functions, the possible answers);
`score FILE...` reads the calls each case made (JSON lines: id, category, calls as [{name: arguments}]) and
prints, as a JSON list with an item for each file, each category's accuracy by bfcl-eval's own AST checker
(irrelevance: no call at all). The checker's import pulls in every provider's SDK (seconds of CPU): only
`score` pays it, once for all its files.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import bfcl_eval

DATA = Path(bfcl_eval.__file__).parent / "data"
CATEGORIES = ("simple_python", "multiple", "parallel", "irrelevance")
# A model whose function names carry "_" for BFCL's "." (OpenAI-compatible names cannot hold dots): the
# checker then compares `math_factorial` with `math.factorial`, as it does for OpenAI's models.
MODEL_NAME = "gpt-4o-2024-11-20-FC"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def cases(category: str) -> list[dict[str, Any]]:
    """The category's cases, each with its possible answers (none for irrelevance)."""
    answers = DATA / "possible_answer" / f"BFCL_v4_{category}.json"
    truth = {a["id"]: a["ground_truth"] for a in _lines(answers)} if answers.exists() else {}
    return [
        {"id": c["id"], "category": category, "question": c["question"][0], "functions": c["function"]}
        | {"answer": truth.get(c["id"], [])}
        for c in _lines(DATA / f"BFCL_v4_{category}.json")
    ]


def verdict(case: dict[str, Any], calls: list[dict[str, Any]]) -> tuple[bool, str]:
    """(valid, error type) of one case's calls, as bfcl-eval judges them."""
    if case["category"] == "irrelevance":
        return (not calls, "" if not calls else "irrelevance:called_a_function")
    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker

    found = ast_checker(
        case["functions"], calls, case["answer"], Language.PYTHON, case["category"], MODEL_NAME
    )
    return bool(found["valid"]), str(found.get("error_type", ""))


def score(results: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = {c["id"]: c for category in {r["category"] for r in results} for c in cases(category)}
    tally: dict[str, Counter[str]] = {}
    for result in results:
        valid, error = verdict(by_id[result["id"]], result["calls"])
        counts = tally.setdefault(result["category"], Counter())
        counts["cases"] += 1
        counts["valid"] += valid
        if not valid:
            counts[error or "invalid"] += 1
    return {
        category: {"cases": c["cases"], "accuracy": round(c["valid"] / c["cases"], 3)}
        | {"errors": {k: v for k, v in c.items() if k not in ("cases", "valid")}}
        for category, c in tally.items()
    }


def main(argv: list[str]) -> int:
    if argv[:1] == ["cases"] and len(argv) > 1 and set(argv[1:]) <= set(CATEGORIES):
        for case in [case for category in argv[1:] for case in cases(category)]:
            print(json.dumps(case, ensure_ascii=False))
        return 0
    if argv[:1] == ["score"] and len(argv) > 1:
        print(json.dumps([score(_lines(Path(name))) for name in argv[1:]], indent=2))
        return 0
    print(
        f"usage: bfcl_check.py cases {{{','.join(CATEGORIES)}}}... | score RESULTS.jsonl...", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
