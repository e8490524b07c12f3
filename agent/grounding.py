"""Grounding: whether a value is the person's. A value is grounded when, in the tool's own normalization, it
equals a whole word or run of words the person typed (never a fragment, never text a command appended, a
resource, a prompt template or a tool's output). The rule is linear in the text it searches; provenance
(`agent/provenance.py`) uses it to tell what the person said from what the model read.
"""

from __future__ import annotations

import functools
import itertools
import re
import time
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

import regex

from agent import dates
from agent.numbers import ONE, numbers_at
from agent.types import DeadlineError, ToolContext

Canonical = Callable[[str, str], str]  # (parameter, value) -> the form in which two values are the same


def grounding_error(
    args: dict[str, Any],
    grounded: tuple[str, ...],
    ctx: ToolContext,
    canonical: Canonical,
    addressees: tuple[str, ...] = (),
    carried: tuple[str, ...] = (),
    aliases: Callable[[str], dict[str, str]] = lambda name: {},
) -> str | None:
    """Why a call must not run because a grounded value is not in the person's words, or None.

    A value is grounded when, in the tool's canonical form, it equals a whole word or a run of whole
    words that the person typed (`ctx.user_text`): "CPH2223" is grounded by "CPH2223IN" when the tool
    strips region suffixes, "CPH22" is not; "2026-03-12" by "12 March 2026" when the value is a date. A
    value of a list is also said by a word the tool's texts give for it (`aliases`: 洗牙 for scaling, "root
    canal" for root_canal). An `addressees` value may instead be one the model read, in the same form,
    when all the call carries (its `carried` parameters) is the person's own text
    (`carries_only_persons_words`)."""
    if ctx.user_text is None or not grounded:
        return None
    read = (ctx.untrusted or ()) if addressees and carries_only_persons_words(args, carried, ctx) else ()
    invented = [
        f"{name}={value!r}"
        for name, value in values_of(args)
        if name in grounded
        and (
            len(words(value)) > MOST_WORDS
            or not said_or_named(
                value,
                (*ctx.user_text, *(read if name in addressees else ())),
                functools.partial(canonical, name),
                aliases(name),
                ctx.deadline,
            )
        )
    ]
    if not invented:
        return None
    return (
        f"{', '.join(invented)}: not in the user's messages. Use only values the user gave; "
        "leave optional ones out, or ask the user"
    )


def said_or_named(
    value: str,
    typed: Iterable[str],
    canonical: Callable[[str], str],
    aliases: dict[str, str],
    deadline: float | None = None,
) -> bool:
    """A grounded argument's test: `value` is said in the tool's `canonical` form (`said_by_person`), or a
    word the tool's texts give it is (`aliases`: word -> the value it names; 洗牙 for scaling)."""
    texts = list(typed)
    return said_by_person(value, texts, canonical, deadline) or any(
        named == value and said_by_person(word, texts, deadline=deadline) for word, named in aliases.items()
    )


MOST_WORDS = 24  # a grounded value longer than this is no value a person types, and checking stays cheap


def carries_only_persons_words(args: dict[str, Any], carried: tuple[str, ...], ctx: ToolContext) -> bool:
    """Is everything this call carries (the values of its `carried` parameters, every item and field) text
    the person typed, as they wrote it? Then it may go to an addressee the model read (CaMeL's rule that data
    reaches only readers who may read it, with the person's words readable by anyone they are sent to). A
    value may keep the marks the person wrote around their words ("Catch up over lunch."); a value that is
    not text (a number, a flag, a file to attach) is no one's words."""
    typed = ctx.user_text or ()
    values = [leaf for name in carried if name in args for leaf in _leaves(args[name])]
    return all(isinstance(v, str) and written_by_person(v, typed) for v in values)


def _leaves(value: Any) -> list[Any]:
    """The values inside an argument: itself, or the items of a list and the fields of an object; None and
    empty ones carry nothing."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [] if value is None or value == "" else [value]


def written_by_person(value: str, typed: Iterable[str]) -> bool:
    """`value` is in the person's words as written (case, width and spacing aside), from the start of a
    word, or a mark, to the end of one: a run of their words with the punctuation they put around it."""
    wanted = folded(value)
    return bool(words(wanted)) and any(_written(wanted, folded(text)) for text in typed)


def said_by_person(
    value: str, typed: Iterable[str], canonical: Callable[[str], str] = str, deadline: float | None = None
) -> bool:
    """The one grounding rule: `value` equals, in `canonical` form, a span of words of `typed`. Linear in
    the text: a value found as written (case, width and spacing aside) is found by a search; only a
    canonical form that joins or splits words looks at the spans that begin as the value does, and joins
    words only where they are written as one code ("SM G9910", not "Is PJD110")."""
    wanted = folded(value)
    if not wanted:
        return False
    texts = list(typed)
    if any(_occurs(wanted, folded(text)) for text in texts):
        return True
    if canonical is str or len(words(value)) > MOST_WORDS:
        return False
    wanted = folded(canonical(value))
    return _canonical_span(wanted, texts, canonical, deadline) or _written_value(
        wanted, texts, canonical, deadline
    )


def _written_value(
    wanted: str, texts: list[str], canonical: Callable[[str], str], deadline: float | None
) -> bool:
    """A date, a time of day or a number the person wrote has `wanted` as its canonical form ("12 March
    2026" for 2026-03-12 when the parameter takes a date, "eight" for 8 when it takes a number;
    `agent/dates.py`, `agent/numbers.py`)."""
    form = _READ_FORM.fullmatch(wanted)
    if not form:
        return False  # only a number, a date or a time of day is read from other ways of writing it
    for text in texts:
        if deadline is not None and time.monotonic() > deadline:
            raise DeadlineError("the turn ran past its deadline while checking where values came from")
        if form["number"]:
            plain = unicodedata.normalize("NFKC", text)
            written = [plain[start:end] for start, end, _ in numbers_at(plain)]
            written += ONE.findall(plain)  # "one carton", 一台: a word elsewhere, 1 for a number
        else:  # read in place: 下午两点到四点's 四点 is 16:00
            read = dates.dates(text) if form["date"] else dates.times(text)
            written = [said for pair in read for said in pair]
        if any(folded(canonical(said)) == wanted for said in written):
            return True
    return False


_READ_FORM = re.compile(
    r"(?P<number>-?[0-9]+(?:\.[0-9]+)?)|(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})|[0-9]{2}:[0-9]{2}"
)


def _canonical_span(
    wanted: str, texts: list[str], canonical: Callable[[str], str], deadline: float | None
) -> bool:
    """Some span of `texts` has `wanted` as its canonical form. A canonical form begins as the value's
    first word does (it may join words, or drop a suffix or case): a span whose first word is no prefix of
    it, and has none of it as a prefix, is never looked at."""
    if not wanted:
        return False
    longest = len(words(wanted)) + 4  # a canonical form may join or split words ("8697 3104 5902 216")
    seen: set[str] = set()
    for text in texts:
        for start in _starts(wanted).finditer(text):
            if deadline is not None and time.monotonic() > deadline:
                raise DeadlineError("the turn ran past its deadline while checking where values came from")
            found = list(itertools.islice(_WORD.finditer(text, start.start()), longest))
            for j, last in enumerate(found):
                span = text[start.start() : last.end()]
                if span not in seen and (j == 0 or _one_code(span)):
                    seen.add(span)
                    if folded(canonical(span)) == wanted:
                        return True
    return False


def _starts(wanted: str) -> re.Pattern[str]:
    """Where a span may begin: at a word that is a prefix of `wanted`'s first word, or begins with it."""
    first = _WORD.match(wanted)
    head = first.group() if first else ""
    prefixes = [re.escape(head[:k]) + "(?![A-Za-z0-9])" for k in range(len(head), 0, -1)]
    return re.compile("(?<![A-Za-z0-9])(?:" + "|".join([re.escape(wanted), *prefixes]) + ")", re.IGNORECASE)


def _one_code(span: str) -> bool:
    """Several words written as one code: in one case, joined by single hyphens or spaces ("SM G9910")."""
    return _CODE_SHAPE.fullmatch(span) is not None and span in (span.upper(), span.lower())


_CODE_SHAPE = re.compile(r"[A-Za-z0-9]+(?:[- ][A-Za-z0-9]+)*")
_WORD = re.compile(r"[A-Za-z0-9]+|[\u3400-\u9fff\uf900-\ufaff]")  # a Latin word or number; a CJK character
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def words(text: str) -> list[re.Match[str]]:
    """The words of `text`: runs of ASCII letters and digits, and each CJK character on its own."""
    return list(_WORD.finditer(text))


def _occurs(wanted: str, text: str) -> bool:
    """`wanted` holds a word and is in `text` without cutting a word at either end, marks and all ("Pro+",
    "Only 1 day left!", "See you in 2027 ✨"), both folded."""
    return bool(words(wanted)) and _written(wanted, text)


def _written(wanted: str, text: str) -> bool:
    """`wanted` is in `text`, and neither of its ends cuts a word of `text` (both folded)."""
    at = text.find(wanted)
    while at >= 0:
        if _edge(text, at - 1, wanted[0]) and _edge(text, at + len(wanted), wanted[-1]):
            return True
        at = text.find(wanted, at + 1)
    return False


def _edge(text: str, i: int, inner: str) -> bool:
    """The word that `inner` begins or ends does not go on into `text[i]`."""
    return not (inner in _ALNUM and 0 <= i < len(text) and text[i] in _ALNUM)


_FORMAT = regex.compile(
    r"\p{Cf}+"
)  # zero-width joiners and spaces, bidi marks: invisible, they split nothing


def folded(text: str) -> str:
    """Case, width, spacing and invisible format characters ignored."""
    return " ".join(_FORMAT.sub("", unicodedata.normalize("NFKC", text)).casefold().split())


def values_of(args: dict[str, Any]) -> list[tuple[str, str]]:
    """(argument, value as text) of every string or number, those in a list too (each recipient)."""
    found = []
    for name, value in args.items():
        for item in value if isinstance(value, list) else [value]:
            if type(item) in (str, int, float):
                found.append((name, str(item)))
    return found
