"""The tutorial's tasks as MCP prompts of our server: add a device model, check a device model.

A client shows them to its person, who picks one and fills in its arguments; the text that comes back is
the user's message of a turn (`app/mcp_server/prompts.py` serves them).
"""

from __future__ import annotations

import mcp_types as types

from app.mcp_server.prompts import Task

MODEL = types.PromptArgument(name="model", description="机型代码 / model code, e.g. CPH2223", required=True)
TASKS = {
    "add_device_model": Task(
        "添加设备机型到数据库 / add a device model to the database",
        (
            MODEL,
            types.PromptArgument(name="market_name", description="营销名 / market name, e.g. OPPO Find N6"),
        ),
        "请把机型 {model} 添加到数据库{market_name}。",
        when_given={"market_name": "，营销名 {}"},
    ),
    "check_device_model": Task(
        "查询机型是否已在数据库中 / check whether a model is in the database",
        (MODEL,),
        "机型 {model} 已经在数据库里了吗？请查询后告诉我它的营销名。",
    ),
}
