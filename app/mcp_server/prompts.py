"""Prompts of an MCP server: task templates a client shows its person, who picks one and fills it in.

The tutorial's third MCP capability, Prompts ("提示：预置的任务模板"). A `Task` is a text template over
its arguments; `Prompts` serves a set of them (prompts/list, prompts/get). The text that comes back is
the user's message of a turn — in the client, where the person sends it.
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


class Prompts:
    """The prompts/list and prompts/get handlers over a set of tasks."""

    def __init__(self, tasks: Mapping[str, Task]) -> None:
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
