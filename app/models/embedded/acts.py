"""Which words of doing the person asks for: a verb they deny ("先别录", "don't add", "never recorded") or
report as done ("已经加进去了", "was added last week", "I added") is no request, and is read as blank; none
is in a message that says it only asks ("只是问问", "just asking", "what if …"), nor a word of removing said
of a value's part ("去掉后缀").

A write runs only on a reading sure of it (`reading.unsure`): these are the verbs it may be sure of.
"""

from __future__ import annotations

import re

_EN = re.IGNORECASE | re.ASCII  # \b between a Latin word and Chinese around it too
# a denial just before the verb: "别录", "不用添加", "没加", "don't add", "do not store", "never recorded"
_DENIED_ZH = re.compile(r"(?:不要|不用|不必|无需|别|没有|没|未|不)(?:再|先|急着|用|要|必)?\s*$")
_DENIED_EN = re.compile(
    r"\b(?:don'?t|do not|doesn'?t|didn'?t|never|not|no need to|won'?t|shouldn'?t|mustn'?t)"
    r"(?:\s+(?:yet|ever|need to|have to|bother to|bother|want to|go|be))?\s*$",
    _EN,
)
# done, said of the past: "已经把 X 加进去了", "早就录过", "X 加过"; "was added", "I added", "already stored"
_DONE_BEFORE_ZH = re.compile(r"已经|早就|早已|已(?=[\u3400-\u9fff]?$)")
_DONE_AFTER_ZH = re.compile(r"^[进入上到]?[去来]?过")
_DONE_EN = re.compile(
    r"\b(?:was|were|been|is|are|i|we|he|she|they|you|someone|somebody|already|just|have|has|had|got)"
    r"(?:\s+(?:already|just|recently|never))?\s*$",
    _EN,
)
_CLAUSE = re.compile(r"[，,。.;；!！?？\n]")
ADDS = re.compile(r"(?<!一)加|录|\badd\b", _EN)  # a bare 加, 录 or "add", the shortest words of adding
_CANCELS = re.compile(r"算了|不用了|\bnever ?mind\b|\bforget (?:it|about)\b", _EN)  # "never mind X"
# what says the message only asks: "只是问问", "先别动", "just asking", "what if I …", "don't change anything"
_ONLY_ASKING = re.compile(
    r"只是问问|只是想问|先别动|别动|不要动|暂不需要|无需做其他|假如|要是我|"
    r"\bjust (?:asking|curious|wondering)\b|\bwhat if\b|\bsuppose\b|\bhypothetically\b|"
    r"\b(?:don'?t|do not) (?:change|touch|add|delete|remove|write|store|save) anything\b",
    _EN,
)
# a word of removing said of a part of a value, not of what is stored: "去掉后缀", "drop the IN suffix"
_PART_OF_VALUE = re.compile(
    r"^\W{0,3}(?:the\s+)?(?:[A-Z]{1,4}\s+)?(?:后缀|前缀|空格|横杠|suffix|prefix|spaces?|dash)", _EN
)


def asked(text: str, *verbs: re.Pattern[str]) -> str:
    """`text` with each of `verbs`' words the person denies or reports done blanked out."""
    for pattern in verbs:
        text = pattern.sub(lambda m: m[0] if _asked(m.string, m.start(), m.end()) else " " * len(m[0]), text)
    return text


def none_asked(text: str, *verbs: re.Pattern[str]) -> bool:
    """Does `text` hold words of `verbs` (or a "never mind"), and are all of them denied or told as done?"""
    found = any(verb.search(text) for verb in verbs) or _CANCELS.search(text)
    if found and _ONLY_ASKING.search(text):
        return True
    left = asked(text, *verbs)
    return bool(found) and not any(verb.search(left) for verb in verbs)


def _asked(text: str, start: int, end: int) -> bool:
    clause = _CLAUSE.split(text[:start])[-1]
    verb = text[start:end]
    if _PART_OF_VALUE.match(text[end:]):
        return False  # "去掉后缀 IN": a value's part, of a write
    if _DENIED_ZH.search(clause) or _DENIED_EN.search(clause):
        return False
    if re.search(r"[A-Za-z]", verb):
        if re.search(r"\b(?:on|in|of|off|the|our|a)\s*$", clause, re.IGNORECASE):
            return False  # "hold on record", "the record": a noun, no act
        return not (verb.lower().endswith("ed") and _DONE_EN.search(clause))
    return not (_DONE_BEFORE_ZH.search(clause) or _DONE_AFTER_ZH.match(text[end:]))
