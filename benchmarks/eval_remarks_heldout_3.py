"""The evaluation's third held-out remarks, written by someone who had not seen the demo model's code:
remarks a person makes in passing, typed casually and many sharing a word with a tool (a time word, a
number, a phone, a city, "add" or "list" in another sense), and terse requests beside them.
Committed on their own and never edited afterwards. Read as `eval_chat_heldout.py`'s docstring says.
"""

from typing import Any

SEED = {"CPH2223": "OPPO Reno6", "RMX3700": "realme GT5", "PJD110": "OnePlus 12"}

NO_FACTS = ("现在是", "UTC", "It is ", "It's ")

# fmt: off
REMARKS_HELD_OUT_3: list[dict[str, Any]] = [
    {"kind": "chat", "lang": "zh", "text": "累了",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "昨晚没睡好，今天一直打哈欠",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "周末终于可以躺平了！",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "上海好热啊",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "今天喝了三杯咖啡还是困",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "这手机用了四年了 还挺抗造的",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "现在的年轻人都不爱打电话了",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "刚从东京回来，时差还没倒过来",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "今晚的红烧肉做咸了。。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "心情不太好",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "ugh mondays",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "ran 5 km this morning, legs are dead",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Back from Tokyo, the jet lag is brutal",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "my old phone finally died lol",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "hm ok that adds up I guess",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "my list of chores this weekend is endless",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "so tired tonight",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Pizza for lunch again today.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "freezing in Chicago right now brrr",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "feeling kinda good today ngl",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "time", "lang": "zh", "text": "巴黎现在几点",
     "tools": ["current_time"], "zone": "Europe/Paris"},
    {"kind": "time", "lang": "en", "text": "time now pls",
     "tools": ["current_time"]},
    {"kind": "time", "lang": "en", "text": "whats the time in sydney",
     "tools": ["current_time"], "zone": "Australia/Sydney"},
    {"kind": "count", "lang": "zh", "text": "一共存了多少个型号",
     "tools": ["list_device_models"], "result": 3},
    {"kind": "count", "lang": "en", "text": "how many models are stored",
     "tools": ["list_device_models"], "result": 3},
    {"kind": "arithmetic", "lang": "zh", "text": "45 加 67",
     "tools": ["calculator"], "result": 112},
    {"kind": "arithmetic", "lang": "zh", "text": "1000除以8",
     "tools": ["calculator"], "result": 125},
    {"kind": "arithmetic", "lang": "en", "text": "19*23",
     "tools": ["calculator"], "result": 437},
    {"kind": "query", "lang": "zh", "text": "查下 PJD110",
     "tools": ["query_device_model"], "says": ("PJD110",)},
    {"kind": "query", "lang": "en", "text": "look up CPH2223",
     "tools": ["query_device_model"], "says": ("CPH2223",)},
]
# fmt: on
