"""What a person's words ask for, read by the host for the embedded demo model (which cannot read them).

Nothing here knows a tool. It reads, in Chinese and English: the language; the effect asked for — to
remove something, to write something, or only to know (a question about how things are is never a
write, even with a verb of writing in it: "有没有收录", "is it recorded?"); whether the person asks what
the assistant can do; and values, each as the person wrote it: codes (letters with digits, hyphens and
spaces as written: SM-G9910, "SM G9750"), an arithmetic expression (operator words turned into signs,
parentheses kept), and the words after a label ("营销名是 …", "market name …").
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

CJK = re.compile(r"[\u3400-\u9fff]")
_EN = re.IGNORECASE

_INFLECTED = r"(?:s|es|d|ed|ing)?\b"  # an English verb in any of its forms: add, adds, added, adding
REMOVE = re.compile(
    rf"删|移除|去掉|清除|抹掉|\b(?:delete|remove|drop|erase|purge|get rid of){_INFLECTED}", _EN
)
WRITE = re.compile(
    r"添加|加到|加进|加入|加上|加一下|新增|录(?:入|一下|上|进)|登记|存到|存入|存进|存一下|保存|记录|记下|收录|入库|写入|"
    rf"\b(?:add|sav|save|stor|store|record|register|insert|creat|create|put|log){_INFLECTED}",
    _EN,
)
READ = re.compile(
    rf"查|看看|找|搜|列出|\b(?:check|look(?:ing)? up|find|search|show|list|tell me){_INFLECTED}", _EN
)
ASKS_HOW_THINGS_ARE = re.compile(
    r"吗|么|是否|有没有|有无|在不在|是不是|了没|哪|什么|多少|几|？|"
    r"^\s*(?:is|are|was|were|does|do|did|has|have|which|what|how)\b|\bwhether\b|\bexists?\b|\balready\b.*\?",
    _EN,
)
REQUEST = re.compile(
    r"帮我|请|麻烦|给我|把|\b(?:could you|can you|would you|will you|please|i need|i want|let's)\b", _EN
)
CAPABILITIES = re.compile(
    r"你(?:都)?(?:能|会|可以)(?:帮我)?(?:做|干)?(?:些)?(?:什么|啥|哪些)|你能(?:帮我)?(?:做|干)|有什么功能|有哪些功能|"
    r"你是谁|\bwhat (?:can|do) you do\b|\bwho are you\b|\bwhat are you able\b|\bhow can you help\b|"
    r"\bwhat are you for\b|\byour (?:capabilities|features|tools)\b",
    _EN,
)

_CODE_GROUP = r"[A-Za-z0-9]+"
_CODE_RUN = re.compile(rf"(?<![A-Za-z0-9-]){_CODE_GROUP}(?:-{_CODE_GROUP}|[ ](?=[A-Z0-9]){_CODE_GROUP})*")
OPERATOR_WORDS = [  # longest first; what each becomes in an expression
    ("乘以", "*"), ("除以", "/"), ("加上", "+"), ("减去", "-"), ("乘", "*"), ("除", "/"), ("加", "+"),
    ("减", "-"), ("multiplied by", "*"), ("divided by", "/"), ("times", "*"), ("plus", "+"),
    ("minus", "-"), ("over", "/"), ("×", "*"), ("÷", "/"), ("（", "("), ("）", ")"),
]  # fmt: skip
_EXPRESSION = re.compile(r"[-+*/().\d\s]*\d[-+*/().\d\s]*")
LABEL_LINKS = re.compile(r"^\s*(?:是|为|叫|:|：|=|is|called|named|of)?\s*", _EN)
CLAUSE_END = re.compile(r"[，。；;,!！?？\n]")


def language(text: str) -> str:
    return "zh" if CJK.search(text) else "en"


def effect_asked(text: str) -> str:
    """ "destructive", "write" or "read": what the words ask to be done to the world. A question about how
    things are ("是否已经登记", "is it recorded?") only reads, unless it is a request ("能帮我加上吗");
    the first verb decides between looking and writing ("查查 X 录入了没有", "show all records")."""
    question = bool(ASKS_HOW_THINGS_ARE.search(text))
    request = bool(REQUEST.search(text)) or _starts_with_verb(text)
    if REMOVE.search(text) and (request or not question):
        return "destructive"
    write, look = WRITE.search(text), READ.search(text)
    writes_first = write is not None and (look is None or write.start() < look.start())
    if writes_first and (not question or (request and look is None)):
        return "write"
    return "read"


def _starts_with_verb(text: str) -> bool:
    """An English imperative: "Add ...", "Store ...", "Please record ..." (a request, not a question)."""
    first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", text, _EN)
    return bool(first and (WRITE.fullmatch(first[1]) or REMOVE.fullmatch(first[1])))


def asks_capabilities(text: str) -> bool:
    return bool(CAPABILITIES.search(text))


def codes(text: str) -> list[str]:
    """Codes as the person wrote them: letters and digits, both, at least three; a hyphen always joins
    groups, a space joins groups that look like parts of a code (upper case, or with a digit)."""
    found = []
    for run in _CODE_RUN.findall(text):
        for piece in _code_pieces(run):
            plain = re.sub(r"[- ]", "", piece)
            if len(plain) >= 3 and re.search(r"\d", plain) and re.search(r"[A-Za-z]", plain):
                found.append(piece)
    return list(dict.fromkeys(found))


def _code_pieces(run: str) -> list[str]:
    """`run` split at the space-joined words that are no part of a code ("Is ALN-AL00" -> "ALN-AL00")."""
    pieces: list[list[str]] = [[]]
    for group in run.split(" "):
        if re.search(r"\d", group) or "-" in group or group.isupper():
            pieces[-1].append(group)
        elif pieces[-1]:
            pieces.append([])
    return [" ".join(piece) for piece in pieces if piece]


def arithmetic(text: str) -> str | None:
    """The arithmetic the words ask for as an expression of digits and signs, or None."""
    spelled = f" {text} "
    for words, sign in OPERATOR_WORDS:
        spelled = re.sub(rf"(?<![A-Za-z]){re.escape(words)}(?![A-Za-z])", f" {sign} ", spelled, flags=_EN)
    for candidate in sorted(_EXPRESSION.findall(spelled), key=len, reverse=True):
        expression = " ".join(candidate.split())
        if _is_arithmetic(expression):
            return expression
    return None


def _is_arithmetic(expression: str) -> bool:
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return False
    return any(isinstance(node, ast.BinOp) for node in ast.walk(tree))


@dataclass(frozen=True)
class Labelled:
    label: str
    value: str


def after_label(text: str, labels: list[str]) -> Labelled | None:
    """The words after the longest of `labels` found in `text`, up to the end of that clause."""
    for label in sorted(labels, key=len, reverse=True):
        found = re.search(re.escape(label), text, _EN)
        if found is None:
            continue
        rest = text[found.end() :]
        rest = rest[LABEL_LINKS.match(rest).end() :]  # type: ignore[union-attr]
        value = CLAUSE_END.split(rest, 1)[0].strip()
        return Labelled(label, value) if value else None
    return None
