"""The evaluation's prompts as one kind of spec, whichever part they come from: the tuned cases
(`eval_cases.py`, dataclasses), the held-out prompts (`eval_heldout.py`), the held-out chat prompts
(`eval_chat_heldout.py`) and the held-out remarks (`eval_remarks_heldout.py`, `_2.py`, `_3.py`),
plain data read as their docstrings say."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from benchmarks import (
    eval_cases,
    eval_chat_heldout,
    eval_heldout,
    eval_remarks_heldout,
    eval_remarks_heldout_2,
    eval_remarks_heldout_3,
)


@dataclass(frozen=True)
class Spec:
    part: str  # "tuned", "held-out", "chat held-out", "remarks held-out" or "remarks held-out 2" or "3"
    kind: str
    text: str
    tools: tuple[str, ...]  # the tools a correct turn runs successfully, in order
    seed: dict[str, str]
    rows: tuple[tuple[str, str | None], ...] = ()  # rows a correct turn adds: (code as meant, market name)
    says: tuple[str, ...] = ()
    says_one_of: tuple[str, ...] = ()
    never_says: tuple[str, ...] = ()
    result: float | None = None  # arithmetic: the number the answer states
    zone: str | None = None  # time: the zone whose current date and hour the answer states
    arguments: dict[str, Any] = field(default_factory=dict)  # the tuned part's ideal call, for the control
    lang: str | None = None  # the language the whole answer is in
    updates: tuple[tuple[str, str], ...] = ()  # rows a correct turn changes: (code, market name afterwards)

    @property
    def approves(self) -> bool:
        """Does the person ask for a change? (They approve exactly what they asked for.)"""
        return self.kind in ("add", "normalize", "delete", "update")


def tuned() -> list[Spec]:
    return [
        Spec(
            "tuned",
            case.kind,
            case.text,
            (case.tool,) if case.tool else (),
            eval_cases.SEED,
            ((case.adds, None),) if case.adds else (),
            case.says,
            case.says_one_of,
            case.never_says,
            arguments=case.arguments,
        )
        for case in eval_cases.CASES
    ]


def held_out() -> list[Spec]:
    return [from_case("held-out", case, eval_heldout.SEED) for case in eval_heldout.HELD_OUT]


def chat_held_out() -> list[Spec]:
    return [
        from_case("chat held-out", case, eval_chat_heldout.SEED) for case in eval_chat_heldout.CHAT_HELD_OUT
    ]


def remarks_held_out() -> list[Spec]:
    seed = eval_remarks_heldout.SEED
    return [from_case("remarks held-out", case, seed) for case in eval_remarks_heldout.REMARKS_HELD_OUT]


def remarks_held_out_2() -> list[Spec]:
    seed = eval_remarks_heldout_2.SEED
    return [from_case("remarks held-out 2", case, seed) for case in eval_remarks_heldout_2.REMARKS_HELD_OUT_2]


def remarks_held_out_3() -> list[Spec]:
    seed = eval_remarks_heldout_3.SEED
    return [from_case("remarks held-out 3", case, seed) for case in eval_remarks_heldout_3.REMARKS_HELD_OUT_3]


def from_case(part: str, case: dict, seed: tuple) -> Spec:
    """A held-out part's case, as the scorer reads it (the keys a case leaves out keep their defaults)."""
    return Spec(
        part,
        case["kind"],
        case["text"],
        tuple(case["tools"]),
        seed,
        tuple((code, name) for code, name in case.get("rows", [])),
        tuple(case.get("says", ())),
        tuple(case.get("says_one_of", ())),
        tuple(case.get("never_says", ())),
        case.get("result"),
        case.get("zone"),
        lang=case.get("lang"),
        updates=tuple((code, name) for code, name in case.get("updates", [])),
    )


def all_specs() -> list[Spec]:
    return [
        *tuned(),
        *held_out(),
        *chat_held_out(),
        *remarks_held_out(),
        *remarks_held_out_2(),
        *remarks_held_out_3(),
    ]
