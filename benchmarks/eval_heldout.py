"""The evaluation's held-out prompts: written before the demo model's routing, grounding, tool descriptions
or worked examples were changed for them, committed on their own, and never edited afterwards.

Plain data, read by the scorer (`benchmarks/agent_eval.py`). Each prompt is one turn (`main.py -m`) on a
fresh database holding SEED; the person approves (`--yes`) exactly when they asked for an add or a delete.

- text: what the person types.
- kind: add | query | list | chat | delete | arithmetic | time.
- tools: the tools a correct turn runs successfully, in order ([]: none at all).
- rows: the rows a correct turn adds, as [code as the person meant it, market name or None]. The code is
  compared in the device service's stored form; a market name may be in either market-name column.
  Every other row stays as SEED left it.
- says: the answer contains each of these (a model code counts as written here or in its stored form).
- says_one_of: ... and at least one of these.
- never_says: ... and none of these.
- result: arithmetic: the number the answer states.
- zone: time: the IANA zone whose current date and hour the answer states.

kind "delete": the embedded demo model has no destructive tool, so a correct turn runs no tool, changes no
row and says plainly that it cannot delete.
"""

SEED = {"RMX3371": "realme GT Neo2", "CPH2437": "OPPO Find X6", "V2309A": "vivo X100"}

ABSENT = ("没有", "不在", "未找到", "no model", "No model", "not in", "isn't in", "is not in", "not found")
CANNOT_ZH = ("不能", "无法", "不支持")
CANNOT_EN = ("cannot", "can't", "not able", "unable")
NOT_A_SUM = ("=",)

# fmt: off
HELD_OUT = [
    # --- add: phrasings unlike the worked examples, hyphenated codes, market names, two codes ---------
    {"kind": "add", "text": "麻烦帮我登记一下新机型 PJZ110", "tools": ["add_device_model"],
     "rows": [["PJZ110", None]], "says": ["PJZ110"]},
    {"kind": "add", "text": "数据库里还没有 RMX3850，帮我加进去", "tools": ["add_device_model"],
     "rows": [["RMX3850", None]], "says": ["RMX3850"]},
    {"kind": "add", "text": "请录入三星的 SM-G9910", "tools": ["add_device_model"],
     "rows": [["SM-G9910", None]], "says": ["SM-G9910"]},
    {"kind": "add", "text": "把华为 ALN-AL00 存到机型库，营销名是 华为 Mate 60 Pro",
     "tools": ["add_device_model"], "rows": [["ALN-AL00", "华为 Mate 60 Pro"]], "says": ["ALN-AL00"]},
    {"kind": "add", "text": "把 PHB110 和 PHK110 两个机型都加到数据库",
     "tools": ["add_device_model", "add_device_model"],
     "rows": [["PHB110", None], ["PHK110", None]], "says": ["PHB110", "PHK110"]},
    {"kind": "add", "text": "添加机型 SM G9750 到数据库", "tools": ["add_device_model"],
     "rows": [["SM-G9750", None]], "says": ["SMG9750"]},
    {"kind": "add", "text": "Could you put v2405a into the device database?", "tools": ["add_device_model"],
     "rows": [["V2405A", None]], "says": ["V2405A"]},
    {"kind": "add", "text": "New phone model to save: pgt-an10", "tools": ["add_device_model"],
     "rows": [["PGT-AN10", None]], "says": ["PGT-AN10"]},
    {"kind": "add", "text": "Add CPH2551 with the market name OPPO Find N3 Flip",
     "tools": ["add_device_model"], "rows": [["CPH2551", "OPPO Find N3 Flip"]], "says": ["CPH2551"]},
    {"kind": "add", "text": "Please register both RMX3851 and RMX3852",
     "tools": ["add_device_model", "add_device_model"],
     "rows": [["RMX3851", None], ["RMX3852", None]], "says": ["RMX3851", "RMX3852"]},
    {"kind": "add", "text": "I need 2311DRK48C recorded in the database", "tools": ["add_device_model"],
     "rows": [["2311DRK48C", None]], "says": ["2311DRK48C"]},
    {"kind": "add", "text": "Store CPH2581EEA in the db", "tools": ["add_device_model"],
     "rows": [["CPH2581", None]], "says": ["CPH2581"]},
    # --- query: is it there? (a question never writes) -------------------------------------------------
    {"kind": "query", "text": "SM-G9910 在数据库里吗？", "tools": ["query_device_model"],
     "says": ["SM-G9910"], "says_one_of": ABSENT},
    {"kind": "query", "text": "机型库有没有收录 CPH2437？", "tools": ["query_device_model"],
     "says": ["CPH2437"], "never_says": ABSENT},
    {"kind": "query", "text": "帮我查查 V2309A 录入了没有", "tools": ["query_device_model"],
     "says": ["V2309A"], "never_says": ABSENT},
    {"kind": "query", "text": "我想知道 PJD110 是否已经登记", "tools": ["query_device_model"],
     "says": ["PJD110"], "says_one_of": ABSENT},
    {"kind": "query", "text": "Is ALN-AL00 already recorded?", "tools": ["query_device_model"],
     "says": ["ALN-AL00"], "says_one_of": ABSENT},
    {"kind": "query", "text": "Do we have RMX3371 on file?", "tools": ["query_device_model"],
     "says": ["RMX3371"], "never_says": ABSENT},
    {"kind": "query", "text": "Check whether CPH2609 exists in the database", "tools": ["query_device_model"],
     "says": ["CPH2609"], "says_one_of": ABSENT},
    {"kind": "query", "text": "Look up the model V2309A for me", "tools": ["query_device_model"],
     "says": ["V2309A"], "never_says": ABSENT},
    # --- list ------------------------------------------------------------------------------------------
    {"kind": "list", "text": "给我看看数据库里全部的机型", "tools": ["list_device_models"],
     "says": list(SEED)},
    {"kind": "list", "text": "目前收录了哪些型号？", "tools": ["list_device_models"], "says": list(SEED)},
    {"kind": "list", "text": "What models are stored right now?", "tools": ["list_device_models"],
     "says": list(SEED)},
    {"kind": "list", "text": "Give me the full list of device models", "tools": ["list_device_models"],
     "says": list(SEED)},
    # --- chat: no tool at all; what it can do, from its tool list, in the person's language ------------
    {"kind": "chat", "text": "早上好！", "tools": [], "never_says": NOT_A_SUM},
    {"kind": "chat", "text": "你能帮我做什么？", "tools": [], "says_one_of": ["添加", "查询"],
     "never_says": NOT_A_SUM},
    {"kind": "chat", "text": "辛苦了，谢谢", "tools": [], "never_says": NOT_A_SUM},
    {"kind": "chat", "text": "Hi there, how are you?", "tools": [], "never_says": NOT_A_SUM},
    {"kind": "chat", "text": "What can you do?", "tools": [], "says_one_of": ["add", "look up", "list"],
     "never_says": NOT_A_SUM},
    {"kind": "chat", "text": "Thank you so much, bye!", "tools": [], "never_says": NOT_A_SUM},
    # --- delete: the demo model cannot, and says so --------------------------------------------------
    {"kind": "delete", "text": "把 CPH2437 从数据库里删掉", "tools": [], "says_one_of": CANNOT_ZH},
    {"kind": "delete", "text": "移除机型 RMX3371", "tools": [], "says_one_of": CANNOT_ZH},
    {"kind": "delete", "text": "Please delete V2309A from the database", "tools": [],
     "says_one_of": CANNOT_EN},
    # --- arithmetic: operator words, parentheses, precedence ------------------------------------------
    {"kind": "arithmetic", "text": "12 乘以 3 是多少？", "tools": ["calculator"], "result": 36},
    {"kind": "arithmetic", "text": "100 除以 8 等于几", "tools": ["calculator"], "result": 12.5},
    {"kind": "arithmetic", "text": "算一下 (15 加 5) 乘 4", "tools": ["calculator"], "result": 80},
    {"kind": "arithmetic", "text": "What is 9 times 12?", "tools": ["calculator"], "result": 108},
    {"kind": "arithmetic", "text": "Compute 250 minus 75 divided by 5", "tools": ["calculator"],
     "result": 235},
    {"kind": "arithmetic", "text": "how much is (7 + 3) * (2 + 8)?", "tools": ["calculator"], "result": 100},
    # --- time in a place --------------------------------------------------------------------------------
    {"kind": "time", "text": "北京现在几点？", "tools": ["current_time"], "zone": "Asia/Shanghai"},
    {"kind": "time", "text": "东京现在是什么时间", "tools": ["current_time"], "zone": "Asia/Tokyo"},
    {"kind": "time", "text": "What time is it in London right now?", "tools": ["current_time"],
     "zone": "Europe/London"},
    {"kind": "time", "text": "Tell me the current time in New York", "tools": ["current_time"],
     "zone": "America/New_York"},
]
# fmt: on
