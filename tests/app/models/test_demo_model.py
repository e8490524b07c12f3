"""The embedded demo model's plug-in, piece by piece: the host's plan for a request (which tool, the calls,
every value from the person's words), what it says itself, and the model's words kept true. Phrases
written for development; the evaluation's held-out prompts are not used here."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, SystemMessage, ToolMessage

from agent.agent import ChatAgent
from agent.guards import untrusted
from agent.llm_wrapper import CustomLLMWrapper
from agent.memory import person_message
from agent.tools import FunctionTool, ToolRegistry
from agent.types import ok
from app.models.embedded.answers import Answerer, capabilities
from app.models.embedded.chat_model import DemoChatModel, kept_true, parrots
from tests.support.fake_llm import text


@pytest.mark.parametrize(
    "said, tool, calls",
    [
        ("帮我把 RMX2001 存进数据库", "add_device_model", [{"model": "RMX2001"}]),
        ("Please add SM-A5360 to the db", "add_device_model", [{"model": "SM-A5360"}]),
        ("录入 SM A5360，营销名叫 Galaxy A53", "add_device_model",  # 营销名: the market name, any script
         [{"model": "SM A5360", "marketName": "Galaxy A53"}]),
        ("录入 SM A5360，英文名叫 三星 A53", "add_device_model",  # 英文名: the English one, any script
         [{"model": "SM A5360", "marketNameEn": "三星 A53"}]),
        ("新增 PJD110，营销名 一加 Ace", "add_device_model", [{"model": "PJD110", "marketName": "一加 Ace"}]),
        ("Register CPH2611, marketing name OPPO A3", "add_device_model",  # one code: the name holds none
         [{"model": "CPH2611", "marketName": "OPPO A3"}]),
        ("把 V2309A 的营销名改成 vivo X100s", "update_market_name",  # the label decides, not the script
         [{"model": "V2309A", "marketName": "vivo X100s"}]),
        ("把 V2309A 的英文名改成 维沃 X100s", "update_market_name",
         [{"model": "V2309A", "marketNameEn": "维沃 X100s"}]),
        ("把 V2309A 的中文营销名改为 维沃 X100s", "update_market_name",
         [{"model": "V2309A", "marketName": "维沃 X100s"}]),
        ("please set the market name of CPH2451 to OPPO Reno10 5G", "update_market_name",
         [{"model": "CPH2451", "marketName": "OPPO Reno10 5G"}]),
        ("How many models are in the database?", "list_device_models", [{}]),
        ("add RMX3085 with English market name realme 8", "add_device_model",
         [{"model": "RMX3085", "marketNameEn": "realme 8"}]),
        ("请把 PFUM10 和 PDEM10 都存进去", "add_device_model", [{"model": "PFUM10"}, {"model": "PDEM10"}]),
        ("RMX2001 在库里吗", "query_device_model", [{"keyword": "RMX2001"}]),
        ("Has V2230 been stored already?", "query_device_model", [{"keyword": "V2230"}]),
        ("查一下 PDEM10 有没有录入", "query_device_model", [{"keyword": "PDEM10"}]),
        ("数据库里现在都有哪些手机机型", "list_device_models", [{}]),
        ("List every model you have", "list_device_models", [{}]),
        ("请算 8 乘以 (2 加 3)", "calculator", [{"expression": "8 * (2 + 3)"}]),
        ("What's 144 divided by 12?", "calculator", [{"expression": "144 / 12"}]),
        ("现在几点", "current_time", [{}]),
        ("巴黎现在几点了？", "current_time", [{"timezone": "巴黎"}]),
        ("把 RMX2001 删了", "delete_device_model", [{"model": "RMX2001"}]),  # confirmed before it runs
        ("V2230 was a test entry, please remove it", "delete_device_model", [{"model": "V2230"}]),
        ("PDEM10 的中文名填成 \"一加 Ace 3\" 得唔得", "update_market_name",
         [{"model": "PDEM10", "marketName": "一加 Ace 3"}]),  # the name alone, out of its quotes
        ("set the english name of CPH2451 to OnePlus Ace 3 pls, its blank", "update_market_name",
         [{"model": "CPH2451", "marketNameEn": "OnePlus Ace 3"}]),
        ("What time is it in Sydney?", "current_time", [{"timezone": "Sydney"}]),
    ],
)  # fmt: skip
def test_the_plan_is_the_fitting_tool_with_values_from_the_persons_words(router, said, tool, calls):
    plan = router.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", tool, calls)


@pytest.mark.parametrize(
    "said, kind, effect",
    [
        ("把那个机型删了", "missing", "destructive"),  # which? the host asks for the code
        ("please delete a model", "missing", "destructive"),
        ("V2230 英文名得改一下", "missing", "destructive"),  # to what? no name in the words
        ("V2230 后面那个 A 是啥意思", "offtopic", "read"),  # an explanation: no tool gives one
        ("加个新机型进库", "missing", "write"),  # which code? asked, not a list
        ("你都会些什么？", "capabilities", "read"),
        ("How can you help?", "capabilities", "read"),
        ("晚上好", "greeting", "read"),
        ("thanks a lot!", "thanks", "read"),
        ("Who are you?", "identity", "read"),
        ("月亮离地球多远？", "offtopic", "read"),  # a question the demo cannot answer
        ("Tell me a joke", "offtopic", "read"),
        ("I like green phones", "chat", "read"),  # a remark: the model's own words
        ("Change the market name of CPH2451", "missing", "destructive"),  # to what? the host asks
        ("把 CPH2451 的营销名改一下", "missing", "destructive"),
        ("Can you add a model for me?", "missing", "write"),  # no code: the host asks for one
    ],
)
def test_requests_no_tool_serves(router, said, kind, effect):
    plan = router.plan(said)
    assert (plan.kind, plan.effect, plan.calls) == (kind, effect, ())


def test_a_question_is_never_offered_a_write_and_a_delete_never_an_add(router):
    assert router.plan("RMX2001 录入了吗？").tool == "query_device_model"
    assert router.plan("Delete RMX2001 and add it again").tool == "delete_device_model"
    assert router.plan("RMX2001 的营销名改了吗？").tool == "query_device_model"
    assert router.plan("你好，RMX2001 在库里吗").tool == "query_device_model"  # a greeting with a request


def test_a_remark_that_shares_a_word_with_a_tool_calls_none_unless_it_gives_a_value(router):
    assert router.plan("天气真好，今天适合出门").kind == "chat"  # "今天" is the clock's word; nothing asked
    assert router.plan("I love a quiet day").kind == "chat"
    assert router.plan("好开心，CPH2437 在库里").tool == "query_device_model"  # a remark that gives a value
    assert router.plan("date today").tool == "current_time"  # terse, no remark: a request


def test_a_statement_about_something_else_than_the_tool_is_a_remark(router):
    """A statement (no question, no request) calls a tool only when it says little beyond the tool's
    words and values: a terse request; more, and it is a remark about something else."""
    assert router.plan("Spent the whole day at work today, totally drained").kind == "chat"
    assert router.plan("我觉得今天的会开得太久了").kind == "chat"
    assert router.plan("My shopping list this week keeps growing").kind == "chat"
    assert router.plan("current date in Tokyo").tool == "current_time"
    assert router.plan("New phone to record: CPH2699").tool == "add_device_model"
    assert router.plan("整数 84 除以 12").tool == "calculator"


def test_the_host_answers_in_the_persons_language(router):
    answer = Answerer(router, router.registry)
    chinese = answer([person_message("你都会些什么？")]).splitlines()
    tools = list(router.registry.tools())
    assert chinese == ["我可以：", *(f"- {t.summary['zh']}" for t in tools)]
    english = answer([person_message("How can you help?")]).splitlines()
    assert english == ["I can:", *(f"- {t.summary['en']}" for t in tools)]
    assert answer([person_message("把 RMX2001 删了")]) is None  # the delete is planned, and confirmed
    assert router.plan("Remove CPH1920 please").tool == "delete_device_model"
    assert answer([person_message("Can you add a model for me?")]).startswith("To add (record, save)")
    assert answer([person_message("帮我把 RMX2001 存进数据库")]) is None  # the tool runs first
    assert answer([person_message("你好")]).startswith("你好！我是")
    assert answer([person_message("thanks!")]).startswith("You're welcome")
    assert "SmolLM2-135M" in answer([person_message("Who are you?")])
    assert answer([person_message("Tell me a joke")]).startswith("The demo model can't do or answer that")
    assert "做不了" in answer([person_message("月亮离地球多远？")])
    assert answer([person_message("把 CPH2451 的营销名改一下")]) == (
        "要修改数据库中已有机型的中英文营销名，新的中文营销名是什么？"
    )


def test_a_tool_without_a_summary_is_said_by_its_descriptions_first_sentence(router):
    registry = ToolRegistry()
    registry.register(Plain())
    assert capabilities(registry, "zh") == "我可以：\n- 把一段文字反过来"
    assert capabilities(registry, "en") == "I can:\n- reverse a piece of text"


class Plain(FunctionTool):
    name = "reverse"
    effect = "read"
    description = "把一段文字反过来。只处理文字。Reverse a piece of text. Text only."
    parameters = {"type": "object", "properties": {}}

    def call(self, ctx, input):
        return ""


def test_after_the_tools_ran_the_host_states_each_result(router):
    call = {"name": "calculator", "args": {"expression": "8 * 5"}, "id": "c1", "type": "tool_call"}
    turn = [
        person_message("8 乘 5 是多少"),
        AIMessage("", tool_calls=[call]),
        ToolMessage(untrusted("calculator", ok({"expression": "8 * 5", "result": 40})), tool_call_id="c1"),
    ]
    assert Answerer(router, router.registry)(turn) == "计算结果：8 * 5 = 40"


def test_the_demo_chat_model_states_the_hosts_answer_and_the_local_model_is_not_asked(router, fake_llm):
    """No seam of the loop is the demo's: its chat model plans the calls, then states their result."""
    model = DemoChatModel(
        inner=CustomLLMWrapper(base_url=fake_llm.url),
        router=router,
        answerer=Answerer(router, router.registry),
        fallback=lambda lang, typed: "",
    )
    with ChatAgent(model, router.registry) as agent:
        assert agent.send_message("8 乘 5 是多少") == "计算结果：8 * 5 = 40"
    assert fake_llm.requests == []  # the local model is asked for neither the call nor the answer
    assert [m.type for m in agent.memory.history()][-3:] == ["ai", "tool", "ai"]  # kept like any answer


def test_the_models_words_keep_no_number_or_code_the_person_did_not_write():
    typed = ("tell me about RMX2001",)
    assert kept_true("Sure! RMX2001 is a phone. It has 8 GB of RAM. I hope this", typed) == (
        "Sure! RMX2001 is a phone."
    )
    assert kept_true("早上好！早上好！早上好！", ("早上好",)) == "早上好！"
    assert kept_true("The answer is 42.", ("hello",)) == ""


def test_a_tool_turn_is_the_plan_and_a_chat_turn_the_models_words(router, fake_llm):
    model = DemoChatModel(
        inner=CustomLLMWrapper(base_url=fake_llm.url),
        router=router,
        answerer=lambda turn, lang: None,  # the host states nothing here: a chat turn gets the model's words
        fallback=lambda lang, typed: capabilities(router.registry, lang),
    )
    tools = router.registry.langchain_tools()
    reply = model.bind_tools(tools).invoke([SystemMessage("S"), person_message("RMX2001 在库里吗")])
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("query_device_model", {"keyword": "RMX2001"})
    ]
    assert fake_llm.requests == []  # nothing for the model to decide
    fake_llm.add(text("Hello! I am 3 years old. How can I help?"))
    reply = model.bind_tools(tools).invoke([SystemMessage("S"), person_message("hello there")])
    assert reply.content == "Hello! How can I help?"
    assert "tools" not in fake_llm.requests[0]


def test_no_chinese_words_of_the_small_model_and_no_english_that_parrots(router, fake_llm):
    """The 135M model is not asked in Chinese (its Chinese is no language): the host says what it can do.
    In English, a reply that says the person's message again or a clause of its own over and over is
    dropped whole."""
    model = DemoChatModel(
        inner=CustomLLMWrapper(base_url=fake_llm.url),
        router=router,
        answerer=lambda turn, lang: None,
        fallback=lambda lang, typed: f"fallback {lang}",
    )
    assert model.invoke([SystemMessage("S"), person_message("今天仓库的空调又坏了")]).content == "fallback zh"
    assert fake_llm.requests == []
    fake_llm.add(text("The air conditioning broke again today. That is not good."))
    said = "the air conditioning broke again today"
    assert model.invoke([SystemMessage("S"), person_message(said)]).content == "fallback en"
    fake_llm.add(text("You can check the stock, you can check the stock, you can check it."))
    assert model.invoke([SystemMessage("S"), person_message("my day was long")]).content == "fallback en"
    assert parrots("Sure, that sounds nice. Have a good day.", ("my day was long",)) is False


UPDATE, ADD = "update_market_name", "add_device_model"


@pytest.mark.parametrize(
    "said, tool, call",
    [
        ("V2244A 的英文名应该是 vivo Y78", UPDATE, {"model": "V2244A", "marketNameEn": "vivo Y78"}),
        ("PJA110 营销名不对，应该是 一加 Ace 2", UPDATE, {"model": "PJA110", "marketName": "一加 Ace 2"}),
        ("V2244A's chinese name should be 维沃 Y78", UPDATE, {"model": "V2244A", "marketName": "维沃 Y78"}),
        ("帮我加 PKX110，营销名应该是 OPPO Find X8", ADD, {"model": "PKX110", "marketName": "OPPO Find X8"}),
        ("add PKX110, english name should be OPPO N5", ADD, {"model": "PKX110", "marketNameEn": "OPPO N5"}),
    ],
)  # fmt: skip
def test_what_a_name_should_be_changes_it_unless_the_model_is_being_added(router, said, tool, call):
    """What a stored name should be (应该是, "should be") is a change to what follows those words, not to
    what is wrong; beside an add it is the new model's name. A market name's own words ("Find") ask
    nothing."""
    plan = router.plan(said)
    assert (plan.kind, plan.tool, list(plan.calls)) == ("tool", tool, [call])


@pytest.mark.parametrize(
    "said, lang, codes",
    [("PKB110 帮忙处理", "zh", ["PKB110"]), ("deal with CPH2611 and PKB110", "en", ["CPH2611", "PKB110"])],
)
def test_a_code_with_a_word_that_says_not_what_to_do_is_asked_about(router, said, lang, codes):
    """ "处理 X", "deal with X": add it, or look it up? The demo asks (and `-m` exits 2) instead of
    guessing; a code alone still proposes an add, as it answers "what is the code?"."""
    plan = router.plan(said)
    assert (plan.kind, plan.lang, [c["code"] for c in plan.calls]) == ("which", lang, codes)
    assert router.plan("PKX110").tool == "add_device_model"
    assert router.plan("handle PKX110, add it").tool == "add_device_model"
