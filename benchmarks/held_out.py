"""Held-out means held out: no prompt of an evaluation part other than the tuned one, nor a distinctive
phrase of one, may appear in what the embedded demo plans from — its data, rules and worked examples
(`app/models/embedded/`) and the tools' descriptions (`tools/`).

A phrase is a run of four units with nothing between them but spaces: a CJK character or an English
word is a unit, a model code counts as one unit whatever it is (`#`) and a number as another (`0`), and
punctuation ends a run. A run the tuned prompts hold is no leak (they were written to be tuned on), nor
is one of the reviewed, generic runs in `GENERIC`, each with the reason it is no one prompt's phrasing, nor
a run of a blind part that the demo held, in that file, before the part was written (`PREDATING`). The blind
parts' tools files (`blind/*_tools.yaml`) are held out too.

`python -m benchmarks.held_out` lists every leak; `tests/benchmarks/test_held_out.py` fails on any.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from app.eval.spec import PARTS, PROMPTS, TOOL_PARTS, blind, part
from app.eval.tools_file import read

ROOT = Path(__file__).resolve().parent.parent
DEMO = ("app/models/embedded", "tools")  # what the demo plans from
RUN = 4
_CODE = re.compile(r"\b(?=[A-Za-z0-9-]*\d)(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b")
_UNIT = re.compile(r"[\u3400-\u9fff]|[a-z#0-9']+|\S")
_WORD = re.compile(r"[\u3400-\u9fff]|[a-z#0-9']+")

# Runs a held-out prompt shares with the demo that are the language's or the tool's own, not a phrasing
# anyone could have lifted from a prompt. Reviewed one by one; a new entry needs a reason as good.
GENERIC = {
    "的营销名": "the field's name after a code (营销名 is the tool's parameter)",
    "#的营销": "the field's name after a code",
    "营销名是": "the label and its link, as the tool's description names the field",
    "营销名改": "the field's name before a change verb",
    "从数据库": "'from the database', the delete tool's own words",
    "数据库里还没有": "'the database has no … yet', the list tool's answer when it is empty",
    "北京时间": "the name of China's time zone",
    "0等于几": "a number and 'equals what': the form of every arithmetic question",
    "0是多少": "a number and 'is how much': the form of every arithmetic question",
    "以0是多": "an operator word, a number and 'is how much'",
    "0除以0": "a number, 'divided by', a number",
    "what is 0 times 0": "the form of every English multiplication question",
    "time is it in": "the form of every question for a place's time (the tool's parameter example)",
    "有哪些功能": "in the demo (49811d0) before the chat held-out part (e1c2f3a) was written",
    "#的中文": "a code and its Chinese (name): the field's name after a code",
    "market name for #": "the field's name and whose: the change tool's example, older than the people parts",
    "今天几号": "the clock tool's own description, which the people parts' writers were shown",
    "数据库里的机型": "the list tool's own summary ('the models in the database')",
    "都有哪些": "'which … are there', the list tool's own example, which the people writers were shown",
    "的英文营销名": "the field's title (英文营销名, marketNameEn) after a code, as the writers were shown it",
    "英文名改": "the field's label before a change verb",
    "0加0等于": "a number, 'plus', a number, 'equals': the calculator's own example, shown to the writers",
    "set the market name": "the change tool's act and field, named in the reader's docstring before people 3",
    "数据库删": "'delete from the database', the delete tool's own description, shown to the blind writers",
    "全部机型": "'all the models', the list tool's own description and example, shown to the blind writers",
    "机型代码": "'model code', the device tools' code parameter's description, shown to the blind writers",
    "什么意思": "'what does it mean', the everyday question for an explanation; the development files hold it"
    " as 咩意思 and 啥意思 (clerk_job, tester_job), which the reader reads as it",
    "只是问问": "'only asking', the everyday phrase for a question that asks nothing done; written by"
    " three writers of the development files (intern_job, tester_job, it_tools), which are tuned on",
}
# Runs of a blind part that the demo held before the part was written (220b061), in these files: the blind
# writers never saw the demo, so each wrote the run on their own. Allowed there only; a copy elsewhere leaks.
PREDATING = {
    "真我 0 pro": ("app/models/embedded/facts.py",),  # a worked example's market name (真我11 Pro)
    "to oppo # f": (
        "app/models/embedded/facts.py",
        "app/models/embedded/values.py",
    ),  # "... to OPPO Reno11 F"
    "安排一下": ("app/models/embedded/cues.yaml",),  # a vague request's verb, among the reader's cues
}


def units(text: str) -> list[str | None]:
    """`text` as units, None where a run must end."""
    text = re.sub(r"\d+", "0", _CODE.sub("#", text).lower())
    return [unit if _WORD.fullmatch(unit) else None for unit in _UNIT.findall(text)]


def runs(text: str, size: int = RUN) -> set[tuple[str, ...]]:
    """Every run of `size` units of `text` with no break in it."""
    found = units(text)
    windows = (tuple(found[i : i + size]) for i in range(len(found) - size + 1))
    return {window for window in windows if None not in window}  # type: ignore[misc]


def _generic() -> set[tuple[str, ...]]:
    return {run for phrase in GENERIC for run in runs(phrase)} | runs((PROMPTS / PARTS["tuned"]).read_text())


@dataclass(frozen=True)
class Leak:
    part: str
    prompt: str = field(repr=False)  # never shown: a failing check's message names the part and the phrase
    where: str
    phrase: str


def demo_sources(root: Path = ROOT) -> dict[str, str]:
    """The demo's data, rules and examples, and the tools' descriptions: path -> text."""
    files = [path for folder in DEMO for path in sorted((root / folder).rglob("*")) if path.is_file()]
    return {
        str(path.relative_to(root)): path.read_text(encoding="utf-8")
        for path in files
        if path.suffix in (".py", ".json", ".yaml", ".txt")
    }


def held_out_prompts() -> list[tuple[str, str]]:
    """(part, prompt) of every held-out part's prompt: the device job's, and the blind tools files'."""
    held = [(spec.part, spec.text) for name in PARTS if name != "tuned" for spec in part(name)]
    return held + [(name, p.text) for name, file in TOOL_PARTS.items() for p in read(PROMPTS / file, name)]


def leaks(sources: dict[str, str]) -> list[Leak]:
    """Each held-out prompt's runs found in `sources`, less the tuned and the generic ones, and those a
    blind part shares with a file that held them before it was written."""
    allowed, found = _generic(), []
    source_runs = {where: runs(text) for where, text in sources.items()}
    for name, prompt in held_out_prompts():
        mine = runs(prompt) - allowed
        for where, theirs in source_runs.items():
            before = {run for phrase, files in PREDATING.items() if where in files for run in runs(phrase)}
            for run in sorted(mine & theirs - (before if blind(name) else set())):
                found.append(Leak(name, prompt, where, _joined(run)))
    return found


def _joined(run: tuple[str, ...]) -> str:
    return "".join(run) if all(len(unit) == 1 for unit in run) else " ".join(run)


def main() -> int:
    found = leaks(demo_sources())
    for leak in found:
        print(f"{leak.part}: {leak.prompt!r} -> {leak.where}: {leak.phrase!r}")
    print(f"{len(found)} leak(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
