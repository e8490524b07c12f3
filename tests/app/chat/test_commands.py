"""The chat session's commands and turns (app/chat/commands.py): Ctrl-C during a turn of several calls
ends the turn and names the calls it did not do; /tools lists what the current model runs; /resources and
/prompts with no MCP server say so."""

from __future__ import annotations

import io

from agent.agent import ChatAgent
from agent.function_tool import FunctionTool, ToolContext
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import ToolRegistry
from app.chat.commands import Session, handle_command
from app.chat.console import PlainConsole
from tests.support.fake_llm import call, text, tool_calls


class Step(FunctionTool):
    """A step of a job; the person presses Ctrl-C while the one named "slow" runs."""

    name = "step"
    description = "Do one step of the job."
    parameters = {"type": "object", "properties": {"n": {"type": "string"}}, "required": ["n"]}

    def call(self, ctx: ToolContext, input: str) -> str:
        if '"slow"' in input:
            raise KeyboardInterrupt
        return '{"done": true}'


class Hidden(Step):
    name = "hidden"
    description = "A tool the current model does not run."


def session(fake_llm, out: io.StringIO) -> tuple[Session, ChatAgent]:
    registry = ToolRegistry()
    registry.register(Step())
    registry.register(Hidden())
    agent = ChatAgent(CustomLLMWrapper(base_url=fake_llm.url, stream=False), registry)
    screen = PlainConsole(out, yes=True, lang="en")
    return Session(agent, None, screen, runs=lambda tool: tool.name != "hidden"), agent


def test_ctrl_c_during_a_turn_of_several_calls_names_what_was_not_done(fake_llm, capsys):
    steps = [call("step", {"n": n}, f"c{i}") for i, n in enumerate(["first", "slow", "last"])]
    fake_llm.add(tool_calls(*steps), text("the next turn"))
    out = io.StringIO()
    chat, agent = session(fake_llm, out)
    chat.turn("do the three steps")
    shown = out.getvalue()
    answered = [m.tool_call_id for m in agent.memory.history() if m.type == "tool"]
    assert answered == ["c0"]  # the step done before Ctrl-C keeps its answer
    assert 'not done: step({"n": "slow"}), step({"n": "last"})' in shown
    assert "(turn cancelled)" in capsys.readouterr().out
    chat.turn("go on")  # the next turn runs, on a history that says what was cancelled
    assert [m["role"] for m in fake_llm.requests[-1]["messages"]][-4:] == ["tool", "tool", "tool", "user"]


def test_the_commands_say_what_there_is(fake_llm, capsys):
    chat, _ = session(fake_llm, io.StringIO())
    for command in ("/tools", "/resources", "/prompts"):
        assert handle_command(chat, command)
    shown = capsys.readouterr().out
    assert "step: Do one step of the job." in shown and "hidden" not in shown  # what the model runs
    assert shown.count("no MCP servers configured") == 2
