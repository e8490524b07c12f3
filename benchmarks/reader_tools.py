"""Tools invented to develop the demo's reader on, each added the README's way (a FunctionTool with its
description and schema, no worked examples): the README's weather tool, a parcel tracker whose numbers
look like model codes, a currency converter (a number and two enums) and a room booking (a write with a
date). The reader's development prompts (`prompts/reader_dev.yaml`) ask for them and for the project's
own tools; `python -m benchmarks.reader_dev` scores the reader on them."""

from __future__ import annotations

import json

from agent.tools import FunctionTool
from agent.types import ToolContext


class WeatherTool(FunctionTool):
    """The README's example, as its three steps add it."""

    name = "get_weather"
    description = "查询指定城市的实时天气。用户问天气时使用；不要用它查其他信息。"
    parameters = {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "城市名，例如 北京"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("city",)

    def call(self, ctx: ToolContext, input: str) -> str:
        city = json.loads(input)["city"]
        return json.dumps({"city": city, "weather": "晴", "temperature_c": 22}, ensure_ascii=False)


class TrackParcelTool(FunctionTool):
    name = "track_parcel"
    description = "查询快递包裹的物流状态。Where a parcel is now, by its tracking number."
    parameters = {
        "type": "object",
        "properties": {
            "number": {
                "type": "string",
                "pattern": "^[A-Z]{2}[0-9]{10,12}$",
                "description": "快递单号，两个大写字母加 10 到 12 位数字，例如 SF1234567890",
            }
        },
        "required": ["number"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("number",)

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"number": json.loads(input)["number"], "status": "in transit"})


class ConvertCurrencyTool(FunctionTool):
    name = "convert_currency"
    description = "按今天的汇率换算金额。Convert an amount of money from one currency to another."
    parameters = {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "金额 / the amount"},
            "source": {
                "type": "string",
                "enum": ["CNY", "USD", "EUR", "JPY", "GBP"],
                "description": "原币种",
            },
            "target": {
                "type": "string",
                "enum": ["CNY", "USD", "EUR", "JPY", "GBP"],
                "description": "目标币种",
            },
        },
        "required": ["amount", "source", "target"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({**json.loads(input), "result": 1.0})


class BookRoomTool(FunctionTool):
    name = "book_meeting_room"
    description = "预订会议室。Book a meeting room for a day."
    parameters = {
        "type": "object",
        "properties": {
            "room": {"type": "string", "enum": ["A101", "B202", "C303"], "description": "会议室 / the room"},
            "date": {"type": "string", "format": "date", "description": "日期 YYYY-MM-DD / the day"},
        },
        "required": ["room", "date"],
        "additionalProperties": False,
    }
    effect = "write"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({**json.loads(input), "booked": True})


class BmiTool(FunctionTool):
    """A calculator of one formula, its two amounts told apart by their names and units."""

    name = "calculate_bmi"
    description = "Calculate the body mass index from a person's weight and height."
    parameters = {
        "type": "object",
        "properties": {
            "weight_kg": {"type": "number", "description": "body weight in kilograms"},
            "height_m": {"type": "number", "description": "height in metres"},
        },
        "required": ["weight_kg", "height_m"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        return json.dumps({"bmi": round(args["weight_kg"] / args["height_m"] ** 2, 1)})


class LoanTool(FunctionTool):
    """Three amounts, one of them a whole number of years."""

    name = "loan_payment"
    description = "Work out the monthly repayment of a loan. 计算贷款每月还款额。"
    parameters = {
        "type": "object",
        "properties": {
            "principal": {"type": "number", "description": "the amount borrowed / 贷款金额"},
            "annual_rate": {"type": "number", "description": "yearly interest rate in percent / 年利率"},
            "years": {"type": "integer", "description": "length of the loan in years / 年限"},
        },
        "required": ["principal", "annual_rate", "years"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({**json.loads(input), "monthly": 1000.0})


class RectangleTool(FunctionTool):
    """Two amounts of the same kind: named, or said in the schema's order."""

    name = "rectangle_area"
    description = "Area of a rectangle."
    parameters = {
        "type": "object",
        "properties": {
            "length": {"type": "number", "description": "the length of the rectangle"},
            "width": {"type": "number", "description": "the width of the rectangle"},
            "unit": {"type": "string", "description": "unit of length, e.g. cm", "default": "m"},
        },
        "required": ["length", "width"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        return json.dumps({"area": args["length"] * args["width"]})


class StockTool(FunctionTool):
    """A look-up by a ticker symbol, with an optional choice."""

    name = "get_stock_price"
    description = "Latest share price of a listed company, by its ticker symbol."
    parameters = {
        "type": "object",
        "properties": {
            "symbol": {"type": "string", "pattern": "^[A-Z]{1,5}$", "description": "ticker, e.g. MSFT"},
            "exchange": {"type": "string", "enum": ["NASDAQ", "NYSE"], "description": "stock exchange"},
        },
        "required": ["symbol"],
        "additionalProperties": False,
    }
    effect = "read"
    grounded = ("symbol",)

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({**json.loads(input), "price": 100.0})


class TemperatureTool(FunctionTool):
    """One amount: a lone number fills it only when the request is about the tool."""

    name = "celsius_to_fahrenheit"
    description = "Convert a temperature from degrees Celsius to degrees Fahrenheit."
    parameters = {
        "type": "object",
        "properties": {"celsius": {"type": "number", "description": "the temperature in Celsius"}},
        "required": ["celsius"],
        "additionalProperties": False,
    }
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return json.dumps({"fahrenheit": json.loads(input)["celsius"] * 9 / 5 + 32})


def reader_tools() -> list[FunctionTool]:
    return [WeatherTool(), TrackParcelTool(), ConvertCurrencyTool(), BookRoomTool()]


def schema_tools() -> list[FunctionTool]:
    """Tools written as a generic API would be (English, several amounts), for the prompts that
    register them alone or together (`only:` in the development prompts)."""
    return [BmiTool(), LoanTool(), RectangleTool(), StockTool(), TemperatureTool()]
