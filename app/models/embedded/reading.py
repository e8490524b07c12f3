"""What a person's words ask for, read by the host for the embedded demo model (which cannot read them).

Nothing here knows a tool. It reads, in Chinese and English: the language; small talk (a greeting, a
thank-you) and questions about the assistant itself; the effect asked for — to remove something, to
change something stored, to write something, or only to know (a question about how things are is never a
write, even with a verb of writing in it: "已经添加过了吗", "is it recorded?"); whether the person asks what
the assistant can do; and values, each as the person wrote it: codes (letters with digits, hyphens and
spaces as written: SM-G9910, "SM A5460"), an arithmetic expression (operator words turned into signs,
parentheses kept), and the words after a label ("营销名是 …", "market name … to …").
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
CHANGE = re.compile(
    r"改成|改为|换成|改一下|修改|更改|更新|改名|"
    rf"\b(?:chang|change|set|renam|rename|updat|update|modif|modify|correct){_INFLECTED}",
    _EN,
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
    r"\bwhat (?:can|do) you do\b|\bwhat are you able\b|\bhow can you help\b|"
    r"\bwhat are you for\b|\byour (?:capabilities|features|tools|functions)\b",
    _EN,
)
IDENTITY = re.compile(
    r"你是谁|你是(?:什么|哪个|啥)(?:模型|东西|人)?|你叫什么|你是(?:真|机器|人工智能|AI|大模型)|"
    r"\bwho are you\b|\bwhat are you\b|\bare you (?:a |an )?(?:real |human|bot|robot|ai\b|llm|model|person)|"
    r"\bwhat(?:'s| is) your name\b|\bwhich model\b|\bwhat model are you\b",
    _EN,
)
_GREETING = (
    r"你好|您好|嗨|哈喽|哈啰|早上好|早安|上午好|中午好|下午好|晚上好|晚安|大家好|"
    r"\b(?:hello|hi|hey|hiya|howdy|good (?:morning|afternoon|evening|day|night)|greetings|yo)\b"
)
_THANKS = (
    r"谢谢|多谢|感谢|谢了|太好了|"
    r"\b(?:thanks|thank you|thx|cheers|much appreciated|appreciate it)\b"
)
_CHATTER = (  # what else a greeting or a thank-you may hold
    r"帮助|帮忙|支持|[呀啊哦呢吧啦嘛哈了的你您我们大家今天一天也很真太非常好的]|"
    r"\b(?:so|much|a|lot|for|your|the|help|you|there|today|it|its|going|how's|how|are|is|doing|all|very|"
    r"again|guys|friend|bye|goodbye|good|day|nice|to|meet|great|and|everyone|what's|up|my|buddy|that's|"
    r"that|this|was|helpful|awesome|perfect|ok|okay)\b"
)
ASKS_FOR = re.compile(
    r"\?|讲|说说|写|告诉|介绍|解释|翻译|推荐|"
    r"^\s*(?:please\s+)?(?:write|tell|explain|describe|give|translate|summari[sz]e|make|compose|draw|sing|"
    r"recommend|suggest|teach|help)\b",
    _EN,
)
REMARK = re.compile(  # how the person finds things: judgements, feelings, the weather, their own day
    r"不错|很好|真好|挺好|好棒|真棒|真快|太快|真慢|开心|高兴|难过|伤心|累了|好累|喜欢|讨厌|无聊|心情|天气|生日|"
    r"旧了|新的|漂亮|可爱|"
    r"\b(?:lovely|nice|great|beautiful|awful|terrible|fun|boring|tired|happy|sad|glad|love|like|hate|"
    r"weather|sunny|rainy|birthday|flies|old|mood|feel|feeling)\b",
    _EN,
)
_WORDLESS = re.compile(r"[\s\W_]+")

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


def small_talk(text: str) -> str | None:
    """ "greeting" or "thanks" (whichever comes first) when the words are only that ("你好呀",
    "thanks a lot!"); else None."""
    found = [(m.start(), kind) for kind, words in (("thanks", _THANKS), ("greeting", _GREETING))
             for m in [re.search(words, text, _EN)] if m]  # fmt: skip
    rest = re.sub(f"{_THANKS}|{_GREETING}", " ", text, flags=_EN)
    rest = _WORDLESS.sub("", re.sub(_CHATTER, " ", rest, flags=_EN))
    return min(found)[1] if found and not rest else None


def asks_identity(text: str) -> bool:
    return bool(IDENTITY.search(text))


def asks_or_requests(text: str) -> bool:
    """Is it a question or a request (something to answer), rather than a remark?"""
    return bool(ASKS_HOW_THINGS_ARE.search(text) or REQUEST.search(text) or ASKS_FOR.search(text))


def remarks(text: str) -> bool:
    """Is it a remark, how the person finds things ("今天阳光真好", "time flies"), and no question or
    request?"""
    return bool(REMARK.search(text)) and not asks_or_requests(text)


def removes(text: str) -> bool:
    """Do the words ask to remove something (rather than to change it)?"""
    return bool(REMOVE.search(text))


def effect_asked(text: str) -> str:
    """ "destructive", "write" or "read": what the words ask to be done to the world. A question about how
    things are ("添加过没有", "is it recorded?") only reads, unless it is a request ("能帮我加上吗");
    removing or changing what is stored ("改成", "set the market name") is destructive; the first verb
    decides between looking and writing ("查一下 X 存了没有", "show all records")."""
    question = bool(ASKS_HOW_THINGS_ARE.search(text))
    request = bool(REQUEST.search(text)) or _starts_with_verb(text)
    if (REMOVE.search(text) or CHANGE.search(text)) and (request or not question):
        return "destructive"
    write, look = WRITE.search(text), READ.search(text)
    writes_first = write is not None and (look is None or write.start() < look.start())
    if writes_first and (not question or (request and look is None)):
        return "write"
    return "read"


def _starts_with_verb(text: str) -> bool:
    """An English imperative: "Add ...", "Store ...", "Please record ..." (a request, not a question)."""
    first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", text, _EN)
    return bool(first and any(verb.fullmatch(first[1]) for verb in (WRITE, REMOVE, CHANGE)))


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
    """`run` split at the space-joined words that are no part of a code ("Is SM-A5460" -> "SM-A5460")."""
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


_CHANGED_TO = re.compile(r"(?:\bto\b|\bas\b|改成|改为|换成|更改为|修改为|变成)\s*(?:是|为)?", _EN)


def changed_to(value: str) -> str:
    """What follows the last change link in `value` ("for PHY110 to OPPO Reno11 F": "OPPO Reno11 F"),
    else `value` itself."""
    links = list(_CHANGED_TO.finditer(value))
    return value[links[-1].end() :] if links else value


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
