"""The evaluation's held-out remarks: things a person says in passing that share words with a tool
("today", "time", "phone") but ask nothing of it — the weather, a mood, a birthday — and, beside them,
terse requests that do ask a tool, with no question mark. Written before the demo model's handling of
remarks was touched for them, committed on their own, and never edited afterwards.

Plain data, read by the scorer (`benchmarks/agent_eval.py`) as `eval_chat_heldout.py`'s docstring says.
A remark runs no tool and states no time, number or row; its answer is in the person's language.
"""

from typing import Any

SEED = {"RMX3371": "realme GT Neo2", "CPH2437": "OPPO Find X6", "V2309A": "vivo X100"}

NO_FACTS = ("现在是", "UTC", "It is ", "It's ", "=", "数据库里", "in the database")

# fmt: off
REMARKS_HELD_OUT: list[dict[str, Any]] = [
    # --- remarks: no tool, no stated fact, in the person's language ---------------------------------------
    {"kind": "chat", "lang": "zh", "text": "今天天气不错", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "今天心情很好", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "时间过得真快", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "今天是我的生日", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "zh", "text": "我的手机有点旧了", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "The weather is lovely today", "tools": [],
     "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "Time flies", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "today is my birthday", "tools": [], "never_says": NO_FACTS},
    {"kind": "chat", "lang": "en", "text": "My phone is getting old", "tools": [], "never_says": NO_FACTS},
    # --- terse requests, no question mark: the tool still runs --------------------------------------------
    {"kind": "time", "lang": "zh", "text": "北京时间", "tools": ["current_time"], "zone": "Asia/Shanghai"},
    {"kind": "time", "lang": "zh", "text": "东京现在几点", "tools": ["current_time"], "zone": "Asia/Tokyo"},
    {"kind": "time", "lang": "en", "text": "time in London", "tools": ["current_time"],
     "zone": "Europe/London"},
    {"kind": "query", "lang": "zh", "text": "查一下 CPH2437", "tools": ["query_device_model"],
     "says": ("CPH2437",)},
    {"kind": "arithmetic", "lang": "en", "text": "12 times 7", "tools": ["calculator"], "result": 84},
]
# fmt: on
