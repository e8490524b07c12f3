"""The evaluation's second held-out remarks, written by someone who had not seen the demo model's code:
remarks a person makes in passing, several sharing a word with a tool, and terse requests beside them.
Committed on their own and never edited afterwards. Read as `eval_chat_heldout.py`'s docstring says.
"""

from typing import Any

SEED = {"RMX3371": "realme GT Neo2", "CPH2437": "OPPO Find X6", "V2309A": "vivo X100"}

NO_FACTS = ("现在是", "UTC", "It is ", "It's ")

# fmt: off
REMARKS_HELD_OUT_2: list[dict[str, Any]] = [
    {"kind": "chat", "lang": "zh", "text": "下雨了，出门又忘带伞，真倒霉。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "这周天天加班，累死我了。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "我给手机换了个新壳，颜色挺好看的。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "今天中午吃的火锅，辣得我直冒汗。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "最近总是没时间看书，有点焦虑。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "秋天到了，楼下的银杏叶都黄了。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "我觉得现在这个型号的手机拍照一般般。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "我刚换了电话号码，还不太习惯。",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Rained all morning here, my shoes are soaked.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Long day at work today, I'm exhausted.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "My phone battery barely lasts until lunch these days.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Had ramen for dinner and it was amazing.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "I never seem to have time to read anymore.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "That new phone model everyone raves about seems overrated to me.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "My to-do list for this week is way too long.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "All those little coffee runs really add up over a month.",
     "tools": [], "never_says": NO_FACTS},
    {"kind": "time", "lang": "zh", "text": "东京现在几点",
     "tools": ["current_time"], "zone": "Asia/Tokyo"},
    {"kind": "time", "lang": "en", "text": "current time in New York",
     "tools": ["current_time"], "zone": "America/New_York"},
    {"kind": "count", "lang": "zh", "text": "数据库里存了几个型号",
     "tools": ["list_device_models"], "result": 3},
    {"kind": "count", "lang": "en", "text": "list the stored phone models",
     "tools": ["list_device_models"], "result": 3},
    {"kind": "arithmetic", "lang": "zh", "text": "128 乘以 4",
     "tools": ["calculator"], "result": 512},
    {"kind": "arithmetic", "lang": "en", "text": "365 minus 78",
     "tools": ["calculator"], "result": 287},
    {"kind": "query", "lang": "zh", "text": "查一下 RMX3371",
     "tools": ["query_device_model"], "says": ("RMX3371",)},
    {"kind": "query", "lang": "en", "text": "is V2309A in the database",
     "tools": ["query_device_model"], "says": ("V2309A",)},
]
# fmt: on
