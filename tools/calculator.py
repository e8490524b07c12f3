"""CalculatorTool: safe arithmetic — the tutorial's CalculatorTool, parsed with `ast`, never `eval`."""

from __future__ import annotations

import ast
import json
import math
import operator
from collections.abc import Callable
from typing import Any

from agent.function_tool import FunctionTool
from agent.types import ToolContext, ToolError

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
MAX_DIGITS = 1000


class CalculatorTool(FunctionTool):
    name = "calculator"
    effect = "read"
    summary = {"zh": "计算算术题（加减乘除、括号）", "en": "calculate arithmetic (+ - * /, parentheses)"}
    description = (
        "执行数学计算：加、减、乘、除（+ - * /，乘以、除以）、整除、取余、幂运算和括号。"
        "只做算术，例如 (2 + 3) * 4 ** 2、“3 加 5 等于几？”“20 除以 4 是多少”。"
        'Calculate arithmetic: plus, minus, times, divided by, e.g. "what is 6 times 7?".'
    )
    parameters = {
        "type": "object",
        "properties": {
            "expression": {
                "type": "string",
                "maxLength": 200,
                "pattern": "^[-+*/%().0-9 ]+$",
                "description": "算术表达式，只含数字、运算符和括号，例如 (2 + 3) * 4",
            },
        },
        "required": ["expression"],
        "additionalProperties": False,
    }

    def call(self, ctx: ToolContext, input: str) -> str:
        expression = json.loads(input)["expression"]
        try:
            tree = ast.parse(expression, mode="eval")
        except SyntaxError as e:
            raise ToolError(f"not an arithmetic expression: {e.msg}", retryable=True) from None
        try:
            value = _evaluate(tree.body)
        except (ZeroDivisionError, OverflowError) as e:
            raise ToolError(f"cannot compute {expression!r}: {e}", retryable=False) from None
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            value = int(value)  # 1000 / 8 is 125, as a person writes it, not 125.0
        return json.dumps({"expression": expression, "result": value})


def _evaluate(node: ast.AST) -> int | float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and _too_big(left, right):
            raise ToolError(f"a power in the expression would have over {MAX_DIGITS} digits", retryable=False)
        result = _BINARY[type(node.op)](left, right)
        if isinstance(result, float) and not math.isfinite(result):
            raise OverflowError("the result is not a finite number")
        return result
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_evaluate(node.operand))
    raise ToolError(
        f"only numbers and + - * / // % ** ( ) are allowed, not {type(node).__name__}", retryable=True
    )


def _too_big(base: int | float, exponent: int | float) -> bool:
    """Would base ** exponent have more than MAX_DIGITS digits? (Checked before computing it.)"""
    return abs(base) > 1 and abs(exponent) * math.log10(abs(base)) > MAX_DIGITS
