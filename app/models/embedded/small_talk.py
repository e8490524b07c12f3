"""Small talk: a greeting, a thank-you or a goodbye, and nothing else, in Chinese or English; the host
answers it at once, in the person's language."""

from __future__ import annotations

import re

_EN = re.IGNORECASE
_WORDLESS = re.compile(r"[\s\W_]+")
_GREETING = (
    r"你好|您好|嗨|哈喽|哈啰|早上好|早安|上午好|中午好|下午好|晚上好|晚安|大家好|"
    r"\b(?:hello|hi|hey|hiya|howdy|good (?:morning|afternoon|evening|day|night)|greetings|yo)\b"
)
_THANKS = (
    r"谢谢|多谢|感谢|谢了|太好了|"
    r"\b(?:thanks|thank you|thx|cheers|much appreciated|appreciate it)\b"
)
_GOODBYE = (
    r"再见|拜拜|回见|下次见|明天见|回头见|先走了|"
    r"\b(?:bye|goodbye|bye-bye|byebye|see you|see ya|farewell|cya|take care|so long)\b"
)
_CHATTER = (  # what else a greeting or a thank-you may hold
    r"帮助|帮忙|支持|[呀啊哦呢吧啦嘛哈了的你您我们大家今天一天也很真太非常好的]|"
    r"\b(?:so|much|a|lot|for|your|the|help|you|there|today|it|its|going|how's|how|are|is|doing|all|very|"
    r"again|guys|friend|bye|goodbye|good|day|nice|to|meet|great|and|everyone|what's|up|my|buddy|that's|"
    r"that|this|was|helpful|awesome|perfect|ok|okay|then|soon|later|tomorrow|next|time|now|care)\b"
)


def small_talk(text: str) -> str | None:
    """ "greeting", "thanks" or "goodbye" (whichever comes first) when the words are only that ("你好呀",
    "thanks a lot!", "bye, see you tomorrow"); else None."""
    kinds = (("thanks", _THANKS), ("greeting", _GREETING), ("goodbye", _GOODBYE))
    found = [(m.start(), kind) for kind, words in kinds for m in [re.search(words, text, _EN)] if m]
    rest = re.sub(f"{_THANKS}|{_GOODBYE}|{_GREETING}", " ", text, flags=_EN)
    rest = _WORDLESS.sub("", re.sub(_CHATTER, " ", rest, flags=_EN))
    return min(found)[1] if found and not rest else None
