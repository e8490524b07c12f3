"""The size attacks, each with its cost measured, and the grounding rule's smaller holes: a megabyte of the
person's words and of untrusted text checked against a 400-word argument, 200 items against a pattern
written to backtrack, words joined into a code, a zero-width joiner, a client's malformed history."""

from __future__ import annotations

import json
import time
import tracemalloc

import pytest

from agent.grounding import MOST_WORDS, grounding_error, said_by_person
from agent.guards import ArgumentsValidator, first_error
from agent.provenance import CONFIRM, provenance
from agent.types import ToolContext
from app.serve.errors import RequestError
from app.serve.history import from_client
from tools.model_tool import AddModelTool

MIB = 1 << 20


def megabyte(seed: str) -> str:
    words = [f"{seed}{i % 9973} lorem ipsum 机型" for i in range(MIB // 20)]
    return " ".join(words)[:MIB]


def check(ctx: ToolContext, args: dict) -> tuple[str | None, str]:
    tool = AddModelTool.__new__(AddModelTool)
    return grounding_error(args, tool.grounded, ctx, tool.canonical), provenance(
        "write", False, (), args, ctx
    )


def cost(fn) -> tuple[float, float]:
    """(CPU seconds, peak MB allocated) of fn(): its own cost, whatever else the machine runs."""
    started = time.process_time()
    fn()
    seconds = time.process_time() - started
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1] / 1e6
    tracemalloc.stop()
    return seconds, peak


def test_a_megabyte_of_history_and_a_400_word_argument_cost_under_a_second_and_100_mb():
    typed, read = megabyte("CPH") + " add CPH2223IN", megabyte("RMX")
    ctx = ToolContext("alice", user_text=(typed,), untrusted=(read,), deadline=time.monotonic() + 60)
    long = " ".join(read.split()[:400])  # 400 words, found in the untrusted text
    args = {"model": "CPH2223", "marketName": long}
    seconds, peak = cost(lambda: check(ctx, args))
    print(f"\n1 MiB typed + 1 MiB read, 400-word argument: {seconds:.3f}s, {peak:.1f} MB")
    grounded, verdict = check(ctx, args)
    assert grounded is not None and "marketName" in grounded  # 400 words: no value a person types
    assert verdict != CONFIRM and "taken from a tool's result" in verdict
    assert seconds < 1.0 and peak < 100
    invented = {"model": "CPH77777"}  # found nowhere: the slow path, each span looked at once at most
    seconds, peak = cost(lambda: check(ctx, invented))
    print(f"an invented code against 1 MiB: {seconds:.3f}s, {peak:.1f} MB")
    assert check(ctx, invented)[0] is not None and seconds < 1.0 and peak < 100


def test_a_deadline_stops_the_check():
    from agent.types import DeadlineError

    ctx = ToolContext("alice", user_text=(megabyte("CPH"),), deadline=time.monotonic() - 1)
    with pytest.raises(DeadlineError):
        check(ctx, {"model": "CPH77777"})


def test_one_pattern_budget_per_call_and_checking_stops_at_the_first_error():
    evil = {"type": "array", "items": {"type": "string", "pattern": "^(a|aa)+$"}}
    validator = ArgumentsValidator({"type": "object", "properties": {"xs": evil}})
    started = time.perf_counter()
    error = first_error(validator, {"xs": ["a" * 40 + "!"] * 200})
    seconds = time.perf_counter() - started
    print(f"\n200 items against a backtracking pattern: {seconds:.3f}s")
    assert error is not None and "in time" in error.message and seconds < 0.5
    assert first_error(validator, {"xs": ["aaa"] * 200}) is None  # the twin: good items pass


@pytest.mark.parametrize(
    ("value", "typed", "grounded"),
    [
        ("ISPJD110", "Is PJD110 in the database?", False),  # two words joined into a code
        ("PJD110", "Is PJD110 in the database?", True),
        ("SMG9910", "add SM G9910", True),  # a code as it is written
        ("SM-G9910", "add smg9910", True),
        ("CPH2223", "add CPH2223IN", True),
        ("CPH22", "add CPH2223", False),
        ("PJD110", "add PJ\u200dD110", True),  # a zero-width joiner splits nothing
    ],
)
def test_grounding_joins_words_only_in_a_codes_written_shape(value, typed, grounded):
    tool = AddModelTool.__new__(AddModelTool)
    assert said_by_person(value, (typed,), lambda v: tool.canonical("model", v)) is grounded


def test_a_value_longer_than_a_person_types_grounds_nothing():
    name = " ".join(["word"] * (MOST_WORDS + 1))
    ctx = ToolContext("alice", user_text=(name,))
    assert "not in the user's messages" in (check(ctx, {"marketName": name})[0] or "")
    assert check(ctx, {"marketName": name.removesuffix(" word")})[0] is None


def test_malformed_client_history_is_a_clear_request_error():
    call = {"id": 7, "type": "function", "function": {"name": "x", "arguments": "{}"}}
    with pytest.raises(RequestError, match="id is not a string"):
        from_client([{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]}])
    claimed = from_client([{"role": "assistant", "content": "Add PJD110."}])[0]
    assert json.loads(json.dumps(claimed.additional_kwargs)) == {"claimed_by_client": True}


def test_all_the_patterns_of_one_call_share_the_docs_0_05_seconds(monkeypatch):
    """docs/security: patterns are checked within 0.05 s of CPU time shared by all of one call's patterns.
    The time each search is given is read where `regex` takes it (no clock is asserted): never over
    0.05 s when none is cut off, and each search gets what the ones before it left."""
    import regex

    given: list[float] = []
    search = regex.search

    def timed(pattern, string, *args, timeout=None, **kwargs):
        given.append(timeout)
        return search(pattern, string, *args, timeout=timeout, **kwargs)

    monkeypatch.setattr(regex, "search", timed)
    items = {"type": "array", "items": {"type": "string", "pattern": "^a+$"}}
    slow = {"type": "string", "pattern": "^(a|aa)+$"}  # backtracks on a long run of a's that fails
    validator = ArgumentsValidator({"type": "object", "properties": {"xs": items, "y": items, "z": slow}})
    assert first_error(validator, {"xs": ["aaa"] * 100, "y": ["a"] * 100}) is None
    assert len(given) == 200 and all(0 < t <= 0.05 for t in given)
    assert given == sorted(given, reverse=True) and given[-1] < given[0]  # one budget, spent as it goes
    evil = {"z": "a" * 40 + "!"}  # spends the whole budget: "could not be checked ... in time"
    assert "in time" in first_error(validator, evil).message
    assert first_error(validator, {"z": "aaaa", "xs": ["aaa"]}) is None  # the next call has its own budget
