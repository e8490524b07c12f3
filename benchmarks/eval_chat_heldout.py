"""The evaluation's held-out chat prompts: what a person says around the job — greetings, who the
assistant is, thanks, questions it cannot answer, what it can do, how many models there are — and
requests to change a stored model's market name, with the phrasings a first session met. Written before
the demo model's chat turns, capability list, phrasing or market-name changes were touched for them,
committed on their own, and never edited afterwards.

Plain data, read by the scorer (`benchmarks/agent_eval.py`) as `eval_heldout.py`'s docstring says, plus:

- lang: the language the whole answer is in ("zh" or "en"): the person's. A Chinese answer holds Chinese
  and no English sentence; an English one holds no Chinese at all (names and codes the person or the
  database wrote do not count).
- updates: the rows a correct turn changes, as [code, the market name it holds afterwards] (in either
  market-name column); every other row stays as SEED left it.
- kind: greeting | identity | thanks | offtopic | capabilities | count | update | add | arithmetic | time.
  The person approves (`--yes`) exactly when they asked for an add or an update.

An off-topic question is one the 135M demo model cannot answer truthfully: the answer says so and how to
get a real model (LLM_BASE_URL), and states no made-up fact.
"""

from typing import Any

SEED = {"RMX3371": "realme GT Neo2", "CPH2437": "OPPO Find X6", "V2309A": "vivo X100"}

REAL_MODEL = ("LLM_BASE_URL",)
CANNOT_ZH = ("不能", "无法", "没法", "答不了", "回答不了")
CANNOT_EN = ("can't", "cannot", "not able", "unable")
NOT_SMALL_TALK = ("=", "sorry for your loss", "tool helpful", "现在是", "It is ")
WELCOME_ZH = ("不客气", "不用谢", "别客气", "乐意", "很高兴")
WELCOME_EN = ("welcome", "glad", "pleasure", "anytime", "happy to")
GREET_ZH = ("你好", "您好", "早上好", "晚上好", "嗨")
GREET_EN = ("Hello", "Hi", "hello", "hi ", "Good morning", "Good evening", "Hey")
WHO_ZH = ("演示", "助手")
WHO_EN = ("demo", "assistant")
GARBLED = ("”“", "；不要", "e.g.", "例如", "(read only)", "（只读）")

# fmt: off
CHAT_HELD_OUT: list[dict[str, Any]] = [
    # --- greetings: answered as greetings, in the person's language, without the clock or a tool -------
    {"kind": "greeting", "lang": "zh", "text": "你好", "tools": [], "says_one_of": GREET_ZH,
     "never_says": NOT_SMALL_TALK},
    {"kind": "greeting", "lang": "zh", "text": "你好呀，今天辛苦了", "tools": [],
     "never_says": NOT_SMALL_TALK},
    {"kind": "greeting", "lang": "zh", "text": "晚上好！", "tools": [], "says_one_of": GREET_ZH,
     "never_says": NOT_SMALL_TALK},
    {"kind": "greeting", "lang": "en", "text": "hello", "tools": [], "says_one_of": GREET_EN,
     "never_says": NOT_SMALL_TALK},
    {"kind": "greeting", "lang": "en", "text": "Good morning!", "tools": [], "says_one_of": GREET_EN,
     "never_says": NOT_SMALL_TALK},
    {"kind": "greeting", "lang": "en", "text": "Hey, how's it going today?", "tools": [],
     "never_says": NOT_SMALL_TALK},
    # --- identity -----------------------------------------------------------------------------------------
    {"kind": "identity", "lang": "zh", "text": "你是谁？", "tools": [], "says_one_of": WHO_ZH,
     "never_says": GARBLED},
    {"kind": "identity", "lang": "zh", "text": "你是什么模型？", "tools": [], "says_one_of": WHO_ZH,
     "never_says": GARBLED},
    {"kind": "identity", "lang": "en", "text": "who are you?", "tools": [], "says_one_of": WHO_EN,
     "never_says": GARBLED},
    {"kind": "identity", "lang": "en", "text": "Are you a real AI?", "tools": [], "says_one_of": WHO_EN,
     "never_says": GARBLED},
    # --- thanks -------------------------------------------------------------------------------------------
    {"kind": "thanks", "lang": "zh", "text": "谢谢你", "tools": [], "says_one_of": WELCOME_ZH,
     "never_says": NOT_SMALL_TALK},
    {"kind": "thanks", "lang": "zh", "text": "太感谢了，帮大忙了", "tools": [], "says_one_of": WELCOME_ZH,
     "never_says": NOT_SMALL_TALK},
    {"kind": "thanks", "lang": "en", "text": "thanks!", "tools": [], "says_one_of": WELCOME_EN,
     "never_says": NOT_SMALL_TALK},
    {"kind": "thanks", "lang": "en", "text": "Thanks a lot for your help", "tools": [],
     "says_one_of": WELCOME_EN, "never_says": NOT_SMALL_TALK},
    # --- off-topic questions the 135M model cannot answer: it says so, and how to get a real model -------
    {"kind": "offtopic", "lang": "zh", "text": "法国的首都是哪里？", "tools": [], "says": REAL_MODEL,
     "says_one_of": CANNOT_ZH, "never_says": ("巴黎",)},
    {"kind": "offtopic", "lang": "zh", "text": "给我讲讲量子计算的原理", "tools": [], "says": REAL_MODEL,
     "says_one_of": CANNOT_ZH},
    {"kind": "offtopic", "lang": "zh", "text": "明天会下雨吗？", "tools": [], "says": REAL_MODEL,
     "says_one_of": CANNOT_ZH},
    {"kind": "offtopic", "lang": "en", "text": "What is the capital of Australia?", "tools": [],
     "says": REAL_MODEL, "says_one_of": CANNOT_EN, "never_says": ("Canberra", "Sydney")},
    {"kind": "offtopic", "lang": "en", "text": "Write me a poem about the sea", "tools": [],
     "says": REAL_MODEL, "says_one_of": CANNOT_EN},
    {"kind": "offtopic", "lang": "en", "text": "Who won the 2018 World Cup?", "tools": [],
     "says": REAL_MODEL, "says_one_of": CANNOT_EN, "never_says": ("France", "Croatia")},
    # --- what it can do: one clean line per tool, in the person's language --------------------------------
    {"kind": "capabilities", "lang": "zh", "text": "你能做什么？", "tools": [],
     "says": ("添加", "查询", "计算", "时间"), "never_says": GARBLED},
    {"kind": "capabilities", "lang": "zh", "text": "你有哪些功能", "tools": [],
     "says": ("添加", "查询", "计算", "时间"), "never_says": GARBLED},
    {"kind": "capabilities", "lang": "en", "text": "What can you help me with?", "tools": [],
     "says": ("add", "model", "time"), "never_says": GARBLED},
    {"kind": "capabilities", "lang": "en", "text": "What are your capabilities?", "tools": [],
     "says": ("add", "model", "time"), "never_says": GARBLED},
    # --- how many: a count from the database --------------------------------------------------------------
    {"kind": "count", "lang": "en", "text": "How many models are stored?", "tools": ["list_device_models"],
     "result": 3},
    {"kind": "count", "lang": "en", "text": "how many phones do we have?", "tools": ["list_device_models"],
     "result": 3},
    {"kind": "count", "lang": "zh", "text": "数据库里一共有多少个机型？", "tools": ["list_device_models"],
     "result": 3},
    # --- update: change a stored model's market name (confirmed first) ------------------------------------
    {"kind": "update", "lang": "zh", "text": "CPH2437 的营销名改成 OPPO Find X6 Pro",
     "tools": ["update_market_name"], "updates": [["CPH2437", "OPPO Find X6 Pro"]],
     "says": ("CPH2437", "OPPO Find X6 Pro")},
    {"kind": "update", "lang": "zh", "text": "把 RMX3371 的营销名改为 真我GT Neo2",
     "tools": ["update_market_name"], "updates": [["RMX3371", "真我GT Neo2"]], "says": ("RMX3371",)},
    {"kind": "update", "lang": "en", "text": "Change the market name of V2309A to vivo X100 Pro",
     "tools": ["update_market_name"], "updates": [["V2309A", "vivo X100 Pro"]],
     "says": ("V2309A", "vivo X100 Pro")},
    {"kind": "update", "lang": "en", "text": "Set the marketing name of RMX3371 to realme GT Neo 2",
     "tools": ["update_market_name"], "updates": [["RMX3371", "realme GT Neo 2"]],
     "says": ("RMX3371",)},
    # --- adds phrased as a first session phrased them ------------------------------------------------------
    {"kind": "add", "lang": "en", "text": "New device code SM-S9210 needs to go into the db",
     "tools": ["add_device_model"], "rows": [["SM-S9210", None]], "says": ("SM-S9210",)},
    {"kind": "add", "lang": "en", "text": "Register CPH2599, marketing name OPPO A79",
     "tools": ["add_device_model"], "rows": [["CPH2599", "OPPO A79"]], "says": ("CPH2599",)},
    {"kind": "add", "lang": "en", "text": "Add CPH2611, market name not decided yet",
     "tools": ["add_device_model"], "rows": [["CPH2611", None]], "says": ("CPH2611",)},
    {"kind": "add", "lang": "zh", "text": "帮我把 PKX110 入库，营销名待定", "tools": ["add_device_model"],
     "rows": [["PKX110", None]], "says": ("PKX110",)},
    # --- arithmetic in words, and the clock in a named city --------------------------------------------
    {"kind": "arithmetic", "lang": "en", "text": "I bought 3 phones at 2499 each, how much in total?",
     "tools": ["calculator"], "result": 7497},
    {"kind": "time", "lang": "zh", "text": "北京现在几点了", "tools": ["current_time"],
     "zone": "Asia/Shanghai", "says": ("北京时间",)},
    {"kind": "time", "lang": "en", "text": "What time is it in Beijing?", "tools": ["current_time"],
     "zone": "Asia/Shanghai", "says": ("Beijing",)},
]
# fmt: on
