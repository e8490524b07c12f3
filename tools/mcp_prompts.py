"""The tutorial's tasks as MCP prompts: add a device model, check a device model.

The tutorial's third MCP capability, Prompts ("提示：预置的任务模板"): a client shows them to its person,
who picks one and fills in its arguments; the text that comes back is the user's message of a turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import mcp_types as types
from mcp.shared.exceptions import MCPError


@dataclass(frozen=True)
class Task:
    description: str
    arguments: tuple[types.PromptArgument, ...]
    text: str  # str.format template over the arguments; an optional one left out is ""
    # optional argument -> the words it stands for when given, "{}" its value
    when_given: Mapping[str, str] = field(default_factory=dict)

    def render(self, given: Mapping[str, str]) -> str:
        values = {a.name: given.get(a.name, "") for a in self.arguments}
        for name, words in self.when_given.items():
            values[name] = words.format(values[name]) if values[name] else ""
        return self.text.format(**values)


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
PROMPTS = tuple(TASKS)


class Prompts:
    """The prompts/list and prompts/get handlers over a set of tasks (the device tasks, and any a module
    adds: see `--with-fixtures`)."""

    def __init__(self, tasks: Mapping[str, Task] = TASKS) -> None:
        self.tasks = dict(tasks)

    async def list_prompts(self, ctx: object, params: object) -> types.ListPromptsResult:
        return types.ListPromptsResult(
            prompts=[
                types.Prompt(name=name, description=task.description, arguments=list(task.arguments))
                for name, task in self.tasks.items()
            ]
        )

    async def get_prompt(self, ctx: object, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        task = self.tasks.get(params.name)
        if task is None:
            known = ", ".join(self.tasks)
            raise MCPError(types.INVALID_PARAMS, f"Unknown prompt: {params.name}; prompts: {known}")
        given = {k: v.strip() for k, v in (params.arguments or {}).items() if isinstance(v, str)}
        missing = [a.name for a in task.arguments if a.required and not given.get(a.name)]
        if missing:
            raise MCPError(types.INVALID_PARAMS, f"prompt {params.name!r} needs the argument(s) {missing}")
        text = task.render(given)
        message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))
        return types.GetPromptResult(description=task.description, messages=[message])
