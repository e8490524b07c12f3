"""A tools file: tools a developer added, written as data, and prompts that say what a correct turn with
them does (the format `prompts/blind/BRIEF.md` gave the blind parts' writers). Each tool is made
a `FunctionTool` subclass the way the README adds one — its name, description, parameters, effect and
grounded parameters as class attributes, `call` answering the file's `returns` — and registered beside
the built-in tools (`default_tools`), as a developer's added tool is. A key the scorer does not know, a
tool named twice or an expected call of no tool is an error, said before anything runs."""

from __future__ import annotations

import json
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

from agent.config import DEFAULT_PERMISSIONS
from agent.function_tool import Effect, FunctionTool
from agent.tools import ToolRegistry
from agent.types import ToolContext
from tools import default_tools

STRICT = ConfigDict(extra="forbid")
NOWHERE = "http://127.0.0.1:9/api/models"  # the built-in tools' service, for what they say of themselves


class ToolsFileError(ValueError):
    """A tools file the scorer cannot read, said in one line with the file's name."""


@dataclass(frozen=True, config=STRICT)
class ToolDefinition:
    """One added tool, as the file declares it."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    description: str
    effect: Effect
    parameters: dict[str, Any]
    returns: Any  # what every call answers (any JSON)
    grounded: tuple[str, ...] = ()


@dataclass(frozen=True, config=STRICT)
class ExpectedCall:
    tool: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, config=STRICT)
class ToolPrompt:
    """One prompt of a tools file, with what it runs on: the device rows seeded and the tools added."""

    part: str
    kind: Literal["call", "ask", "no_write", "cannot", "chat"]
    text: str
    seed: dict[str, str] = field(repr=False)
    added: tuple[ToolDefinition, ...] = field(repr=False)
    lang: Literal["zh", "en"] | None = None
    calls: tuple[ExpectedCall, ...] = ()  # kind "call": the calls a correct turn makes, in order
    asks_for: str | None = None  # kind "ask": the value it asks for, when one is missing

    def __post_init__(self) -> None:
        if (self.kind == "call") != bool(self.calls):
            raise ValueError(f"a {self.kind!r} prompt {'lists no' if self.kind == 'call' else 'lists'} calls")

    @property
    def tools(self) -> tuple[str, ...]:
        """The tools a correct turn runs, in order."""
        return tuple(call.tool for call in self.calls)

    @property
    def approves(self) -> bool:
        """Does the person ask for a write? (They approve exactly when the expected calls hold one.)"""
        effects = {tool.name: tool.effect for tool in registered(self.added)}
        return any(effects[call.tool] != "read" for call in self.calls)

    def added_tools(self) -> list[FunctionTool]:
        """The added tools, made afresh, to register beside the built-in ones."""
        return [tool_class(definition)() for definition in self.added]

    def refused(self) -> list[str]:
        """The expected calls the host refuses whatever the model does — their arguments break the tool's
        schema, or a grounded value is not in the person's words as the tool compares them — by tool
        name: a prompt with one is beyond any model through this host."""
        registry = ToolRegistry(confirm=lambda name, arguments, ctx: True)
        for tool in registered(self.added):
            registry.register(tool)
        ctx = ToolContext(user_id="eval", permissions=DEFAULT_PERMISSIONS, user_text=(self.text,))
        passed: list[str] = []  # the host's last word before a call runs: said only when all checks passed

        def stop(name: str, arguments: dict[str, Any]) -> tuple[str, str]:
            passed.append(name)
            return "checked", "not run"

        refused = []
        for call in self.calls:
            passed.clear()
            registry.execute(ctx, {"name": call.tool, "args": call.args, "id": ""}, stop)
            refused += [] if passed else [call.tool]
        return refused


def tool_class(definition: ToolDefinition) -> type[FunctionTool]:
    """The README's way of adding a tool, with the file's values: class attributes, and a `call`."""
    answer = json.dumps(definition.returns, ensure_ascii=False)

    class AddedTool(FunctionTool):
        name = definition.name
        description = definition.description
        parameters = definition.parameters
        effect = definition.effect
        grounded = definition.grounded

        def call(self, ctx: ToolContext, input: str) -> str:
            return answer  # the arguments were checked against `parameters` before this

    AddedTool.__name__ = AddedTool.__qualname__ = definition.name.title().replace("_", "") + "Tool"
    return AddedTool


def registered(added: tuple[ToolDefinition, ...]) -> list[FunctionTool]:
    """The built-in tools and the added ones, as a registry takes them."""
    return [*default_tools(NOWHERE), *(tool_class(definition)() for definition in added)]


def declares_tools(path: Path) -> bool:
    """Does the file at `path` declare tools (a tools file), rather than a device job's prompts alone?"""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return isinstance(data, dict) and "tools" in data


def read(path: Path, part: str) -> list[ToolPrompt]:
    """The prompts of the tools file at `path`, as part `part`; ToolsFileError when it cannot be read."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not {"tools", "prompts"} <= data.keys():
            raise ValueError("it must be a mapping with `tools` and `prompts` (and an optional `seed`)")
        if unknown := data.keys() - {"seed", "tools", "prompts"}:
            raise ValueError(f"unknown key(s): {', '.join(sorted(unknown))}")
        added = tuple(ToolDefinition(**tool) for tool in data["tools"])
        _check_tools(added)
        seed = data.get("seed") or {}
        prompts = [ToolPrompt(part=part, seed=seed, added=added, **prompt) for prompt in data["prompts"]]
        _check_calls(prompts, {tool.name for tool in registered(added)})
    except (OSError, yaml.YAMLError, ValidationError, TypeError, ValueError) as e:
        said = " ".join(str(e).split())
        raise ToolsFileError(f"{path}: {said[:500]}") from None
    return prompts


def _check_tools(added: tuple[ToolDefinition, ...]) -> None:
    """The tools register (each name once, beside the built-in ones; each schema a JSON Schema), and a
    grounded parameter is one of the tool's own."""
    registry = ToolRegistry()
    for tool in registered(added):
        registry.register(tool)
    for definition in added:
        if stray := set(definition.grounded) - set(definition.parameters.get("properties", {})):
            raise ValueError(f"{definition.name}: grounded names no parameter: {', '.join(sorted(stray))}")


def _check_calls(prompts: list[ToolPrompt], names: set[str]) -> None:
    for number, prompt in enumerate(prompts, 1):
        if unknown := [call.tool for call in prompt.calls if call.tool not in names]:
            raise ValueError(f"prompt {number} expects a call of no tool: {', '.join(unknown)}")
