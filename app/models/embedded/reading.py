"""What a person's words ask for, read by the host for the embedded demo model (which cannot read them).

Nothing here knows a tool. It reads, in Chinese and English: the language; questions about the
assistant itself (small talk is read in `small_talk.py`); the effect asked for — to remove something, to
change something stored, to write something (a verb the person denies or tells as done is none: `acts.py`),
or only to know (a question about how things are is never a write, even with a verb of writing in it:
"已经添加过了吗", "is it recorded?"); a code proposed for adding; whether the person asks what the
assistant can do, or what it cannot do at all. The values a request holds are read in `values.py`
(codes, market names, labels) and `arithmetic.py` (sums in words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from agent.tool_selection import tokens
from app.models.embedded import spelling
from app.models.embedded.acts import ADDS, asked, none_asked
from app.models.embedded.arithmetic import arithmetic
from app.models.embedded.values import QUOTED, codes, names

CJK = re.compile(r"[\u3400-\u9fff]")
_EN = re.IGNORECASE | re.ASCII  # \b between a Latin word and Chinese around it too

_INFLECTED = r"(?:s|es|d|ed|ing)?\b"  # an English verb in any of its forms: add, adds, added, adding
REMOVE = re.compile(
    rf"删|移除|去掉|清除|抹掉|作废|撤销|注销|\b(?:delete|remove|drop|erase|purge|get rid of){_INFLECTED}", _EN
)
CHANGE = re.compile(
    r"改成|改为|换成|改一下|修改|更改|更新|改名|设成|设为|设置为|填成|写成|应改为|"
    rf"\b(?:chang|change|set|renam|rename|updat|update|modif|modify|correct|fix){_INFLECTED}",
    _EN,
)
# what a stored value should be ("营销名应该是 X", "should read X"): a change, unless something is added
CORRECTION = re.compile(r"应该是|应为|\bshould (?:be|read|say)\b", _EN)
WRITE = re.compile(
    r"添加|加到|加进|加入|加上|加一下|加个|新增|录(?:入|一下|上|进)|登记|存到|存入|存进|存一下|保存|记录|记下|收录|入库|进库|写入|"
    rf"\b(?:add|sav|save|stor|store|record|register|insert|creat|create|put|log|enter){_INFLECTED}",
    _EN,
)
READ = re.compile(
    r"查|看看|看(?:一?下|一眼)|瞅瞅|找|搜|列出|"
    rf"\b(?:check|look(?:ing)? up|find|search|show|list|tell me){_INFLECTED}",
    _EN,
)
ASKS_HOW_THINGS_ARE = re.compile(
    r"吗|么|是否|有没有|有无|在不在|是不是|了没|没(?:得|有)?\s*$|哪|什么|多少|几|如何|怎么样|怎样|咋样|谁|？|"
    r"^\s*(?:is|are|was|were|does|do|did|has|have|which|what|how|who|whose)\b|"
    r"^\s*(?:should|shall) (?:i|we)\b|"
    r"\bwhether\b|\bexists?\b|\balready\b.*\?",
    _EN,
)
HELD = re.compile(  # where a thing is kept, or what was done: a statement of them says how things are
    r"在库里|在数据库|库里有|已经|已有|有了|存过|录过|早就|"
    r"\b(?:on file|in (?:the )?(?:db|database)|already|exists?)\b",
    _EN,
)
REQUEST = re.compile(
    r"帮我|请|麻烦|给我|把|^\s*查(?:一下|下|查)|"
    r"\b(?:could you|can you|would you|will you|please|i need|i want|let's)\b",
    _EN,
)
_REPORTED = re.compile(r"(?:已经|早就|早已)[^，,。；;!！?？]*$")  # "小李已经帮他把那笔报了": told, not asked


def requests(text: str) -> bool:
    """Do the words ask for something ("帮我", "请", "把 X 加上", "could you"), not tell what somebody has
    already done ("已经帮他把那笔报了")?"""
    return any(not _REPORTED.search(text[: m.start()]) for m in REQUEST.finditer(text))


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


def language(text: str, before: str = "en") -> str:
    """The language of the message's own words, its frame: codes, market names and what it quotes aside
    ("translate this: 「…」" is English), Chinese when its
    Chinese (a word to a character and a half) is as long as its English ("帮我 add 一下 X"), else English
    ("please register X, 营销名 真我 Neo"). A message with no words of its own — a code, a letter, a sum:
    "CPH2223", "y", "12*7" — is in `before`, the language the person wrote in last."""
    frame = QUOTED.sub(" ", text) if QUOTED.sub("", text).strip() else text  # what is quoted is no frame
    for value in [*names(text), *codes(text)]:
        frame = frame.replace(value, " ")
    chinese, english = len(CJK.findall(frame)) / 1.5, len(re.findall(r"[A-Za-z]+", frame))
    if not chinese and not re.search(r"[A-Za-z]{2}", frame):
        return before
    return "zh" if chinese and chinese >= english else "en"


def conversation_language(typed: Iterable[str]) -> str:
    """The language the person writes in: that of their latest message with words of its own (English
    until the first)."""
    lang = "en"
    for text in typed:
        lang = language(text, lang)
    return lang


def asks_identity(text: str) -> bool:
    return bool(IDENTITY.search(text))


def asks_or_requests(text: str) -> bool:
    """Is it a question or a request (something to answer), rather than a remark? An English message with
    a sentence that starts with a verb of request (`cues.yaml`: "google …", "book me …", "… Calculate
    its range.") is a request."""
    starts = re.findall(r"(?:^|[.!?。！？]\s+)(?:please\s+)?([A-Za-z]+)", text.strip(), re.IGNORECASE)
    verb = any(word.lower() in spelling.cues()["requests"] for word in starts)
    return bool(ASKS_HOW_THINGS_ARE.search(text) or requests(text) or ASKS_FOR.search(text) or verb)


def remarks(text: str) -> bool:
    """Is it a remark, how the person finds things ("今天阳光真好", "time flies"), and no question or
    request, nor a terse one?"""
    return bool(REMARK.search(text)) and not asks_or_requests(text) and not terse(text)


_TOPICS = re.compile(r"天气|\bweather\b", re.IGNORECASE)  # what a remark may be about, and a request too
TERSE = 4  # words of a terse request at most ("weather in Paris and in London"), or twice as many characters


def terse(text: str) -> bool:
    """Is it a terse request, a topic and what it is of, with no judgement nor verb ("weather Lisbon",
    "weather in Paris and in London"; not "天气真好", "Rain again, and my umbrella is at the office")?"""
    plain = _TOPICS.sub(" ", text)
    latin, cjk = tokens(" ".join(re.findall(r"[A-Za-z]+", text))), "".join(CJK.findall(text))
    short = len(latin) <= TERSE and len(cjk) <= 2 * TERSE
    return bool(_TOPICS.search(text)) and short and not REMARK.search(plain) and not _VERBED.search(plain)


_VERBED = re.compile(
    r"\b(?:is|are|was|were|be|been|looks?|seems?|feels?|gets?|got)\b|[了着过吗呢吧啊]|真|太|好", re.IGNORECASE
)


def removes(text: str) -> bool:
    """Do the words ask to remove something (rather than to change it)?"""
    return bool(REMOVE.search(text))


def effect_asked(text: str) -> str:
    """ "destructive", "write" or "read": what the words ask to be done to the world. A question about how
    things are ("添加过没有", "is it recorded?") only reads, unless it is a request ("能帮我加上吗");
    removing or changing what is stored ("改成", "set the market name") is destructive; the first verb
    decides between looking and writing ("查一下 X 存了没有", "show all records")."""
    if not codes(text) and arithmetic(text) is not None:
        return "read"  # a sum: "by what percentage did it drop" removes nothing
    question = bool(ASKS_HOW_THINGS_ARE.search(text))
    request = requests(text) or _starts_with_verb(text)
    unnamed = _without_names(text)  # "OPPO Find X8" finds nothing
    if none_asked(unnamed, WRITE, ADDS, REMOVE, CHANGE):
        return "read"  # "先别录 X", "I added X last week": no act asked for, whatever the code
    words, acts = _writing(unnamed), asked(text, REMOVE, CHANGE)
    write, look = WRITE.search(words), READ.search(words)
    adds = write or ADDS.search(words)  # a bare 加 (a sum's too) beside a name adds
    changes = CHANGE.search(acts) or (CORRECTION.search(text) and not adds)
    if (REMOVE.search(acts) or changes) and (request or not question):
        return "destructive"
    writes_first = write is not None and (look is None or write.start() < look.start())
    if writes_first and (not question or (request and look is None)):
        return "write"
    states = not (question or _ends_asking(text) or HELD.search(text))  # a statement, not of what is kept
    if proposes(text) and look is None and (request or states):
        return "write"
    return "read"


def writes(text: str) -> bool:
    """Does the message hold a word of writing the person asks for (not a code only proposed for adding)?"""
    words = _writing(_without_names(text))
    return bool(WRITE.search(words) or ADDS.search(words))


def _writing(text: str) -> str:
    """`text` with its words of writing that the person denies or tells as done blanked ("别录")."""
    return asked(text, WRITE, ADDS)


def _without_names(text: str) -> str:
    for name in names(text):
        text = text.replace(name, " ")
    return text


def unsure(text: str) -> bool:
    """Does a message with a code leave open whether to add it or look it up: no word of adding, looking or
    changing that the person asks for (`acts.py`: not "先别录", not "was added"), and a word that asks without
    saying what (`cues.yaml`'s `vague`: "处理", "handle")? (A code alone is a proposal to add, as it answers
    "what is the code?"; the confirmation is the check.)"""
    if not codes(text):
        return False
    acts = asked(_without_names(text), WRITE, ADDS, READ, CHANGE)
    if any(verb.search(acts) for verb in (WRITE, ADDS, READ, CHANGE)):
        return False
    return _vague().search(text) is not None


@cache
def _vague() -> re.Pattern[str]:
    words = sorted(spelling.cues()["vague"], key=len, reverse=True)
    return re.compile("|".join(rf"(?<![A-Za-z]){re.escape(w)}(?![A-Za-z])" for w in words), re.IGNORECASE)


def proposes(text: str) -> bool:
    """Does the message name a code with no arithmetic in it? In a request or a plain statement ("新机型
    X 到了", "can you stick X in"), that is a proposal to add it: the person's confirmation, which every
    write gets, is the check."""
    return bool(codes(text)) and arithmetic(text) is None


def _ends_asking(text: str) -> bool:
    return text.rstrip().endswith(("?", "？"))


def _starts_with_verb(text: str) -> bool:
    """An English imperative: "Add ...", "Store ...", "Please record ..." (a request, not a question)."""
    first = re.match(r"\s*(?:please\s+)?([A-Za-z]+)", text, _EN)
    return bool(first and any(verb.fullmatch(first[1]) for verb in (WRITE, REMOVE, CHANGE)))


# The words the reader looks for, for `spelling.normalized` to know them however they are typed; the first
# five name what is to be done.
CUE_PATTERNS = (
    *(REMOVE, CHANGE, CORRECTION, WRITE, READ),
    *(ASKS_HOW_THINGS_ARE, REQUEST, CAPABILITIES, IDENTITY, ASKS_FOR),
)
ACTS = CUE_PATTERNS[:5]


def asks_capabilities(text: str) -> bool:
    return bool(CAPABILITIES.search(text))


def cannot_serve(text: str) -> bool:
    """Does the message ask for something the demo has no tool for (`cues.yaml`: the weather, a search,
    a translation, a poem, ...)?"""
    return _cannot().search(text) is not None


def cannot_said(text: str) -> list[str]:
    """The words of `cues.yaml`'s `cannot` that the message holds (a tool that names one still serves it)."""
    return _cannot().findall(text)


@cache
def _cannot() -> re.Pattern[str]:
    words = sorted(spelling.cues()["cannot"], key=len, reverse=True)
    latin = "|".join(re.escape(w) for w in words if not CJK.search(w))
    chinese = "|".join(re.escape(w) for w in words if CJK.search(w))
    return re.compile(
        rf"{chinese}|(?<![A-Za-z0-9-])(?:{latin})(?![A-Za-z0-9-])", re.IGNORECASE
    )  # not szx-web-03
