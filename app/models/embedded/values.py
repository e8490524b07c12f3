"""The values a request holds, each as the person wrote it, read by the host for the embedded demo model.

What the person put in quotes; codes (letters with digits, hyphens and spaces as written: SM-G9910, "SM
A5460"), never the letters and digits of a market name, a size (12GB) nor a nickname's run beside a code;
market names (a brand or series word of `cues.yaml` and the words after it: "vivo X100 Pro", "一加 12"), and
a product's name after its label alone (`name_span`); and, for a labelled value ("营销名是 …", "market name
… to …"), the links that come between a label and its value and what a change changes to.
"""

from __future__ import annotations

import re
from functools import cache

from app.models.embedded import spelling

_CODE_GROUP = r"[A-Za-z0-9]+"
_CODE_RUN = re.compile(rf"(?<![A-Za-z0-9-]){_CODE_GROUP}(?:-{_CODE_GROUP}|[ ](?=[A-Z0-9]){_CODE_GROUP})*")
_SIZES = re.compile(r"(?<![A-Za-z0-9])\d+(?:\.\d+)?\s?(?:GB|TB|MB|mAh|Hz|W|V|A)(?![A-Za-z0-9])")
LABEL_LINKS = re.compile(
    r"^\s*(?:就?(?:是|为|叫做?|写成?|填成?|称为)|:|：|=|->|→|=>|is|called|named|of)?\s*", re.IGNORECASE
)
CLAUSE_END = re.compile(r"[，。；;,!！?？\n]")
PARTICLES = re.compile(r"\s*[吧呀啊哦呢啦哈嘛]+$")  # what ends a Chinese sentence, never a name


def codes(text: str) -> list[str]:
    """Codes as the person wrote them: letters and digits, both, at least three; a hyphen always joins
    groups, a space joins groups that look like parts of a code (upper case, or with a digit). Words of a
    market name (`names`: "vivo X100s") are no code, nor a run of three beside a code of five or more (a
    nickname's "14U")."""
    found = []
    text = _brand_names().sub(" ", text)  # a market name, or a brand alone ("OPPO CPH2437")
    text = re.sub(r"(?<![\w.:])\d{1,2}(?:[.:]\d\d)?\s?[ap]m\b", " ", text, flags=re.IGNORECASE)  # "3pm"
    text = _SIZES.sub(" ", text)  # "12GB+256GB", "5000mAh": sizes, no codes
    for run in _CODE_RUN.findall(text):
        for piece in _code_pieces(run):
            plain = _plain(piece)
            if len(plain) >= 3 and re.search(r"\d", plain) and re.search(r"[A-Za-z]", plain):
                found.append(piece)
    return list(dict.fromkeys(beside_a_code(found)))


def beside_a_code(found: list[str]) -> list[str]:
    """`found` less its runs of three or fewer when it holds a code of five or more: beside 24030PN60C, the
    "14U" of 米14U is a nickname's."""
    if any(len(_plain(value)) >= 5 for value in found):
        return [value for value in found if len(_plain(value)) > 3]
    return found


def _plain(value: str) -> str:
    return re.sub(r"[- ]", "", value)


def names(text: str) -> list[str]:
    """Market names as the person wrote them: a brand or series word (`cues.yaml`) and the words that follow
    it, each capitalized or with a digit ("vivo X100 Pro", "一加 12", "OPPO Find X7", not "vivo in the db");
    a brand alone is no name."""
    found = (m[0].strip() for m in _brand_names().finditer(text))
    return [name for name in found if not _brand_alone(name)]


QUOTED = re.compile(  # what the person put in quotes: '…' as a word of its own, "…", “…”, 「…」, 『…』
    r"(?:(?<=\s)|^|(?<=[:：,，]))'([^']+)'(?=[\s,，.。!！?？]|$)|\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|『([^』]+)』"
)


def quoted(text: str) -> list[str]:
    """What the person put in quotes ('…', "…", “…”, 「…」), as written."""
    return [next(g for g in m.groups() if g) for m in QUOTED.finditer(text)]


# lower-case words a product name holds ("iPhone 15 pro max", "Reno12 F 5G lite")
_NAME_WORDS = frozenset(
    ["pro", "max", "mini", "plus", "ultra", "lite", "neo", "fold", "flip", "turbo", "note", "edge"]
)
_NAME_TOKEN = re.compile(r"[A-Za-z0-9+\u3400-\u9fff]+(?:[-.][A-Za-z0-9]+)*")


def name_span(clause: str) -> str | None:
    """The product name a labelled clause gives, without the words around it: what stands in quotes, else
    from the first brand or name word while the words are a name's — capitalized, with a digit, a brand,
    an edition ("至尊版"), or Chinese joined to them ("小米14") — up to a tab, a gap of spaces, an emoji
    or a word of the sentence ("一加 12 得唔得", "vivo X Fold3 thx"); None when the clause holds no such
    word ("先空着", "against it")."""
    if said := quoted(clause):
        return said[0].strip()
    clause = re.split(r"\t| {2,}|[.。](?:\s|$)", clause, maxsplit=1)[0]
    words = [(m.start(), m.end(), m[0]) for m in _NAME_TOKEN.finditer(clause)]
    first = next((i for i, (_, _, w) in enumerate(words) if _starts_name(w)), None)
    if first is None:
        return None
    start, end = words[first][0], words[first][1]
    if first == 1 and not _brand_start(words[1][2]) and clause[words[0][1] : start] == " ":
        lead = words[0][2]  # the clause's first word, before the name's: "维沃 X100", "moto g84", a brand too
        latin = re.fullmatch(r"[A-Za-z]{2,}", lead) and re.search(r"\d", words[1][2])
        if _chinese(lead) and 2 <= len(lead) <= 3 or latin:
            start = words[0][0]
    for begin, stop, word in words[first + 1 :]:
        if not re.fullmatch(r" ?", clause[end:begin]) or not _in_name(word):
            break
        end = stop
    return clause[start:end].rstrip(".") or None


def _starts_name(word: str) -> bool:
    return _brand_start(word) or bool(
        re.match(r"[A-Z0-9]", word) or re.fullmatch(r"[a-z]+\d[a-z0-9+]*", word)
    )


def _brand_start(word: str) -> bool:
    return any(word.casefold().startswith(b) for b in _brands())


def _chinese(word: str) -> bool:
    return bool(re.fullmatch(r"[\u3400-\u9fff]+", word))


def _in_name(word: str) -> bool:
    """Is `word` a word of a product name: capitalized, with a digit, a brand, a name's own lower-case word,
    an edition ("标准版"), or Chinese joined to letters or digits ("小米14")?"""
    if _chinese(word):
        return word.endswith("版") and len(word) <= 4
    lead, latin, tail = re.fullmatch(r"([\u3400-\u9fff]*)(.*?)([\u3400-\u9fff]*)", word).groups()  # type: ignore[union-attr]
    if not latin.isascii() or tail not in ("", "版") or len(lead) > 2 and not _brand_start(lead):
        return False
    return bool(re.match(r"[A-Z0-9+]", latin) or re.search(r"\d", latin)) or (
        latin.casefold() in _NAME_WORDS or _brand_start(latin)
    )


def _brand_alone(name: str) -> bool:
    return name.casefold() in _brands()


@cache
def _brands() -> frozenset[str]:
    return frozenset(b.casefold() for b in spelling.cues()["brands"])


@cache
def _brand_names() -> re.Pattern[str]:
    brands = "|".join(re.escape(b) for b in sorted(spelling.cues()["brands"], key=len, reverse=True))
    code = r"(?:[A-Za-z]{3,}\d{3,}|[A-Za-z]\d{4}[A-Za-z]|\d{4,}[A-Za-z])[A-Za-z0-9]*(?![A-Za-z0-9])"
    # a name's words: capitalized, or with a digit ("Find X7", "Mate 60 Pro", "S24+"), never a code's part
    latin = r"(?:[A-Z0-9][A-Za-z0-9+]*|[a-z]+\d[A-Za-z0-9+]*)"
    word = rf"(?!{code})(?![A-Za-z0-9]+-){latin}(?![A-Za-z0-9])"
    return re.compile(rf"(?<![A-Za-z0-9])(?i:{brands})(?![a-z])(?:[ \u3000]*{word})*")  # a tab ends a name


def _code_pieces(run: str) -> list[str]:
    """`run` split at the space-joined words that are no part of a code ("Is SM-A5460" -> "SM-A5460")."""
    pieces: list[list[str]] = [[]]
    groups = run.split(" ")
    for i, group in enumerate(groups):
        quantity = _quantity(groups[i - 1] if i else "", group, groups[i + 1] if i + 1 < len(groups) else "")
        if (re.search(r"\d", group) or "-" in group or group.isupper()) and not quantity:
            pieces[-1].append(group)
        elif pieces[-1]:
            pieces.append([])
    return [" ".join(piece) for piece in pieces if piece]


def _quantity(before: str, group: str, after: str) -> bool:
    """Is `group` a unit after a number ("300 K", "25 L", "12 GB") or an article before one ("A 100 g
    sample"), not a part of a code?"""
    unit = bool(re.fullmatch(r"[A-Za-z]{1,2}", group)) and before.isdigit()
    return unit or group in ("A", "a") and after.isdigit()


_CHANGED_TO = re.compile(
    r"(?:\bto\b|\bas\b|\bshould (?:be|read|say)\b|改成|改为|换成|更改为|修改为|变成|设成|设为|设置为|"
    r"填成|写成|填上|应该是|应为|应改为|->|→|=>)\s*(?:是|为)?",
    re.IGNORECASE,
)


def leads_to(clause: str) -> str | None:
    """What a clause that opens with a change link says it should be ("应该是 OPPO K12": "OPPO K12")."""
    link = _CHANGED_TO.match(clause.lstrip())
    return clause.lstrip()[link.end() :] if link else None


def changed_to(value: str) -> str:
    """What follows the last change link in `value` ("for PHY110 to OPPO Reno11 F": "OPPO Reno11 F"),
    else `value` itself."""
    links = list(_CHANGED_TO.finditer(value))
    return value[links[-1].end() :] if links else value


def typed(value: str, schema_type: str) -> int | float | bool | str:
    """`value` as the schema's type wants it: an integer, a number, a flag, or the string as written."""
    if schema_type == "boolean" and value in ("true", "false"):
        return value == "true"
    if schema_type == "integer" and re.fullmatch(r"[0-9]+", value):
        return int(value)
    if schema_type == "number" and re.fullmatch(r"[0-9]+(?:\.[0-9]+)?", value):
        number = float(value)
        return int(number) if number.is_integer() else number
    return value
