"""Flags: a boolean argument said yes or no. Its words are its name's ("urgent" of `urgent`, "notify
customer" of `notify_customer`) and what its description puts after 是否 or "true =" ("是否加急": 加急);
said plainly it is true ("urgent ya", "要加急", "急！！"), said after a negation it is false ("not urgent",
"不加急", "不急"); not said, it is left out."""

from __future__ import annotations

import re
from typing import Any

_GENERIC = {"is", "has", "with", "include", "enable", "use", "flag", "should"}
_NOT_EN = r"(?:not|no|non|don't|do not|without|never)[\s-]+(?:\w+\s+)?"
_NOT_ZH = r"(?:不用|不要|不需要|无需|别|不)"


def flag(name: str, spec: dict[str, Any], text: str) -> list[str]:
    """["true"] or ["false"] when the words say the flag, [] when they do not."""
    for word in _words(name, spec):
        chinese = bool(re.search(r"[\u3400-\u9fff]", word))
        found = _said(word, text, chinese)
        if not found and chinese and len(word) > 1:  # "不急" says no to 加急; "急！！" and 急用 say yes
            found = _said(word[-1], text, True, only_not=True) or _alone(word[-1], text)
        if found:
            return [found]
    return []


def _words(name: str, spec: dict[str, Any]) -> list[str]:
    english = [w for w in re.split(r"[_\W]+", name.casefold()) if w and w not in _GENERIC]
    asked = re.findall(r"(?:是否|\btrue\s*[=:：]\s*)([\u3400-\u9fff]{2,4})", str(spec.get("description", "")))
    return [*([" ".join(english)] if english else []), *asked]


def _said(word: str, text: str, chinese: bool, only_not: bool = False) -> str:
    """ "false" when `word` stands after a negation, "true" when it stands alone, "" when it is not said."""
    if chinese:
        if re.search(_NOT_ZH + re.escape(word), text):
            return "false"
        return "" if only_not or word not in text else "true"
    spelled = re.escape(word).replace(r"\ ", r"[\s_-]+")
    english = re.IGNORECASE | re.ASCII  # a word's bounds beside Chinese too: "订手套urgent"
    if re.search(rf"\b{_NOT_EN}{spelled}\b", text, english):
        return "false"
    return "true" if re.search(rf"\b{spelled}\b", text, english) else ""


def _alone(char: str, text: str) -> str:
    """ "true" when the flag's last character stands as a clause of its own ("急！！", "急用")."""
    alone = rf"(?:^|[，,。；;！!？?\s]){re.escape(char)}[用件]?(?=[，,。；;！!？?\s]|$)"
    return "true" if re.search(alone, text) else ""
