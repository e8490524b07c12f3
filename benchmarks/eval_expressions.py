"""The scripted control's sums (`eval_control`): the shortest arithmetic expression over the numbers a
prompt says that gives the result its answer must state, for words the demo's reader has no rule for."""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterator

from app.eval.truth import said_numbers


def _power(base: float, exponent: float) -> float:
    """A power the calculator would take; nan for one too large to be anyone's sum, or of no number."""
    if abs(exponent) > 12 or abs(base) > 10**6 or (base == 0 and exponent < 0):
        return math.nan
    return base**exponent


OPERATIONS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": _power}


def expression_for(text: str, result: float | None) -> str:
    """Words the demo's reader has no rule for ("3 phones at 2499 each", "15% of 2480"): the ideal call is
    the shortest expression over the numbers the prompt says (`said_numbers`: its digits, and the 100 or 10
    that a percentage or a discount implies) that gives the result the answer must state."""
    said = said_numbers(text)
    pools = [(said * 2, size) for size in range(2, 5)]  # each at most twice: a rise is (b - a) / a * 100
    pools.append(([*said, "100"] if "100" in said else said, 5))  # 899 * (100 - 30) / 100 - 50
    for numbers, size in pools:
        for chosen in dict.fromkeys(itertools.permutations(numbers, size)):
            for value, written in _expressions(chosen):
                if abs(value - (result or 0)) < 1e-6:
                    return written
    raise ValueError(f"no operation on the numbers of {text!r} gives {result}")


def _expressions(numbers: tuple[str, ...]) -> Iterator[tuple[float, str]]:
    """(value, expression) of each way to combine `numbers`, in this order, with + - * / and parentheses."""
    if len(numbers) == 1:
        yield float(numbers[0]), numbers[0]
        return
    for cut in range(1, len(numbers)):
        for left, a in _expressions(numbers[:cut]):
            for right, b in _expressions(numbers[cut:]):
                for sign, operation in OPERATIONS.items():
                    if sign != "/" or right:
                        yield operation(left, right), f"({a} {sign} {b})"
