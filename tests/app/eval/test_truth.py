"""The scorer's truth checks (app/eval/truth.py) and the control's reading of a spec
(benchmarks/eval_control.py), on made-up prompts."""

from app.eval.chinese_numbers import chinese_numbers
from app.eval.spec import Spec
from app.eval.truth import answer_problems, said_numbers, ungrounded_arguments, written_number
from benchmarks import eval_control


def test_a_number_is_written_as_a_person_writes_it() -> None:
    assert written_number(5499 * 0.7 - 200) == "3649.3"
    assert written_number(12345.67) == "12345.67"
    assert written_number(300.0) == "300"


def test_an_answer_states_a_sum_without_float_noise() -> None:
    spec = Spec(part="tuned", kind="arithmetic", text="x", tools=("calculator",), seed={}, result=12345.67)
    assert answer_problems(spec, "It comes to 12345.67.", (0, 0)) == []
    assert answer_problems(spec, "It comes to 12345.7.", (0, 0)) == ["does not state 12345.67"]


def test_a_value_the_tool_asks_a_model_to_infer_is_not_ungrounded() -> None:
    """A zone for a country is the time tool's documented use; a code nobody typed is not grounded."""
    time = [{"tool": "current_time", "arguments": {"timezone": "Asia/Tokyo"}}]
    assert ungrounded_arguments("what time is it in Japan?", time) == []
    look = [{"tool": "query_device_model", "arguments": {"keyword": "RMX9999"}}]
    assert ungrounded_arguments("is the Nova Z in there?", look) == ["query_device_model(keyword='RMX9999')"]
    sum_ = [{"tool": "calculator", "arguments": {"expression": "3 * 7"}}]
    assert ungrounded_arguments("what is 3 times 8?", sum_) == ["calculator(expression='3 * 7')"]


def test_the_control_looks_up_the_end_of_a_name_in_the_persons_words() -> None:
    """A name that runs Chinese into Latin ("星河Nova Z") has its words cut where the script changes."""
    seed = {"XYZ1234": "星河Nova Z", "ABC9876": "Star Nova Z Ultra"}
    mixed = Spec(
        part="tuned", kind="query", text="anything on Nova Z?", tools=("query_device_model",), seed=seed,
        says=("XYZ1234",),
    )  # fmt: skip
    assert eval_control._keyword(mixed) == "Nova Z"
    latin = Spec(
        part="tuned", kind="query", text="got the nova z ultra?", tools=("query_device_model",), seed=seed,
        says=("ABC9876",),
    )  # fmt: skip
    assert eval_control._keyword(latin) == "Nova Z Ultra"


def test_numbers_in_chinese_numerals_or_full_width_digits_are_the_persons() -> None:
    """A sum of the person's numbers is grounded however they wrote them; one of other numbers is not."""
    assert chinese_numbers("四百二十除以七，再加十七，六千七百五，八万四，一千零九，七点二") == [
        420,
        7,
        17,
        6750,
        84000,
        1009,
        7.2,
    ]
    assert said_numbers("（１５＋９）×４") == ["15", "9", "4"]
    right = [{"tool": "calculator", "arguments": {"expression": "420 / 7"}}]
    assert ungrounded_arguments("四百二十台分给七个组", right) == []
    wrong = [{"tool": "calculator", "arguments": {"expression": "420 / 6"}}]
    assert ungrounded_arguments("四百二十台分给七个组", wrong) == ["calculator(expression='420 / 6')"]


def test_numbers_written_in_english_words_or_with_wan_are_the_persons():
    """A sum's numbers the host reads from words ("one thousand two hundred", "3万") are the person's."""
    sum_ = [{"tool": "calculator", "arguments": {"expression": "1200 / 8"}}]
    assert ungrounded_arguments("one thousand two hundred pounds shared by eight clubs", sum_) == []
    budget = [{"tool": "calculator", "arguments": {"expression": "30000 - 4 * 2999"}}]
    said = "预算3万，买4台每台2999，还剩多少"
    assert ungrounded_arguments(said, budget) == []
    assert ungrounded_arguments(said, sum_) == ["calculator(expression='1200 / 8')"]
