"""What the evaluation checks of an answer and of the calls: the answer states what it must (codes as
written or as stored, the number, the zone's current date and hour) and nothing it must not; every
argument value of every call was in the person's words (a code as written or in the tool's own form;
an arithmetic expression made of the person's numbers) or is the schema's declared default; and, where
a spec names the answer's language, that the whole answer is in it."""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime
from functools import cache, partial
from typing import Any
from zoneinfo import ZoneInfo

from agent.function_tool import FunctionTool
from agent.grounding import said_by_person, said_or_named
from agent.numbers import numbers as read_numbers
from app.eval.chinese_numbers import chinese_numbers
from app.eval.spec import Spec
from devicedb.schema import normalize_code

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_ARITHMETIC = re.compile(r"^[-+*/%().\d\s]+$")
_CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
_NOT_WORDS = re.compile(r"[\w.:/+-]*[\d_][\w.:/+-]*", re.ASCII)  # codes, numbers, setting names
_ENGLISH_SENTENCE = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?(?:[ ,]+[A-Za-z]+(?:'[A-Za-z]+)?){2,}")


def answer_problems(spec: Spec, answer: str, when: tuple[float, float]) -> list[str]:
    if not answer:
        return ["no answer"]
    problems = [f"does not say {s!r}" for s in spec.says if not _says(answer, s)]
    if spec.says_one_of and not any(_says(answer, s) for s in spec.says_one_of):
        problems.append(f"says none of {list(spec.says_one_of)}")
    problems += [f"says {s!r}" for s in spec.never_says if s in answer]
    if spec.result is not None and not _states_number(answer, spec.result):
        problems.append(f"does not state {written_number(spec.result)}")
    if spec.zone and not any(_states_time(answer, spec.zone, moment) for moment in when):
        problems.append(f"does not state the time in {spec.zone}")
    if spec.kind == "ask" and not ("?" in answer or "？" in answer):
        problems.append("asks no question")
    return problems + _language_problems(spec, answer)


def _language_problems(spec: Spec, answer: str) -> list[str]:
    """Is the answer in `spec.lang` throughout? Names and codes the person or the database wrote and
    setting names do not count as words of a language."""
    if spec.lang is None:
        return []
    rest = answer
    for name in sorted(
        [*spec.seed.values(), *spec.names()],
        key=len,
        reverse=True,
    ):
        rest = rest.replace(name, " ")
    rest = _NOT_WORDS.sub(" ", rest)
    if spec.lang == "en":
        return ["answers partly in Chinese"] if _CJK.search(rest) else []
    typed = {w.casefold() for w in re.findall(r"[A-Za-z]+", spec.text)}
    english = [
        s
        for s in _ENGLISH_SENTENCE.findall(rest)
        if not {w.casefold() for w in re.findall(r"[A-Za-z]+", s)} <= typed
    ]
    if not _CJK.search(rest):
        return ["does not answer in Chinese"]
    return [f"has English words in a Chinese answer: {english[0]!r}"] if english else []


def _says(answer: str, text: str) -> bool:
    stored = normalize_code(text)
    return text in answer or (stored is not None and stored in answer)


def written_number(number: float) -> str:
    """A number as a person writes it: no float noise, no trailing zeros (3649.3, 12345.67, 300)."""
    return f"{number:.6f}".rstrip("0").rstrip(".")


def _states_number(answer: str, number: float) -> bool:
    written = re.escape(written_number(number))
    return re.search(rf"(?<![\d.]){written}(?![\d])", answer) is not None


def _states_time(answer: str, zone: str, moment: float) -> bool:
    local = datetime.fromtimestamp(moment, ZoneInfo(zone))
    hour = f"{local:%H}:"
    return f"{local:%Y-%m-%d}" in answer and (f"T{hour}" in answer or f" {hour}" in answer)


def ungrounded_arguments(text: str, audit: list[dict[str, Any]]) -> list[str]:
    """`tool(name=value)` for each argument value that was not in the person's words: a value of a parameter
    the tool grounds (as the host checks it), or a number of a sum."""
    found = []
    for line in audit:
        tool = _tools().get(line["tool"])
        arguments = line.get("arguments")
        for name, value in (arguments if isinstance(arguments, dict) else {}).items():
            if not _from_words(text, tool, name, value):
                found.append(f"{line['tool']}({name}={value!r})")
    return found


_DIGITS = dict(zip("零一二两三四五六七八九", "01223456789", strict=True))
_TENS_OF_THOUSANDS = re.compile(r"(\d+(?:\.\d+)?)\s*([万千])")
_DISCOUNT = re.compile(r"([零一二两三四五六七八九\d]{1,2})\s*折")


def said_numbers(text: str) -> list[str]:
    """The numbers the words say: each number written (in full-width digits too, in Chinese numerals:
    "四百二十" is 420, in English words as the host reads them: "one thousand two hundred and sixty", or
    with 万 or 千: "5万" is 50000), the 100 a percentage implies ("15%", "百分之", "percent"), and a
    Chinese discount ("八五折", "9 折") as its digits and the 10 or 100 it is over."""
    text = unicodedata.normalize("NFKC", text)
    numbers = _NUMBER.findall(text) + [written_number(n) for n in chinese_numbers(text)] + read_numbers(text)
    for figure, unit in _TENS_OF_THOUSANDS.findall(text):
        numbers.append(written_number(float(figure) * (10000 if unit == "万" else 1000)))
    if re.search(r"%|百分|percent", text, re.IGNORECASE):
        numbers.append("100")
    for found in _DISCOUNT.findall(text):
        digits = "".join(_DIGITS.get(c, c) for c in found)
        numbers += [digits, "10" if len(digits) == 1 else "100"]
    return list(dict.fromkeys(numbers))


def _from_words(text: str, tool: FunctionTool | None, name: str, value: Any) -> bool:
    spec = (tool.parameters.get("properties", {}) if tool else {}).get(name, {})
    if "default" in spec and value == spec["default"]:
        return True
    if isinstance(value, str) and _ARITHMETIC.match(value) and re.search(r"[-+*/]", value):
        return {float(n) for n in _NUMBER.findall(value)} <= {float(n) for n in said_numbers(text)}
    if tool and name not in tool.grounded:  # the tool asks a model to infer it: "India" -> Asia/Kolkata
        return True
    if tool is None:
        return said_by_person(str(value), (text,))
    return said_or_named(str(value), (text,), partial(tool.canonical, name), tool.aliases(name))


def effect_of(name: str) -> str:
    """What a built-in tool's run does ("read", "write", "destructive"); "read" for a name that is none."""
    tool = _tools().get(name)
    return tool.effect if tool else "read"


@cache
def _tools() -> dict[str, FunctionTool]:
    from tools import default_tools

    return {tool.name: tool for tool in default_tools("http://127.0.0.1:9/api/models")}
