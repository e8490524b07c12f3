"""How Ctrl-C reaches a turn (app/chat/interrupts.py). At each step of drawing a turn on the terminal, a
real SIGINT, raised at one step after another by a profile hook (a function's entry, or just after a builtin
returned: where Python takes signals), cancels the turn or lets it end, and the chat goes on. Before, a
Ctrl-C at the turn's first step quit the chat; one at about a third of the steps of starting rich's spinner
ended it with a traceback (IndexError from rich, RuntimeError from threading), and one while stopping the
spinner left it spinning on. A Ctrl-C during an import is taken once the module is whole."""

from __future__ import annotations

import importlib
import inspect
import signal
import sys
import threading
import time
from types import CodeType, FrameType
from typing import Any

import pytest

from agent.agent import ChatAgent
from agent.function_tool import FunctionTool, ToolContext
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import ToolRegistry
from app.chat.commands import Session
from app.chat.interrupts import take_ctrl_c
from app.chat.terminal import RichConsole
from app.chat.watch import ConsoleObserver
from tests.support.fake_llm import Reply, call, text, tool_calls


class Clock(FunctionTool):
    name = "clock"
    description = "The time now."
    parameters = {"type": "object", "properties": {}}
    effect = "read"

    def call(self, ctx: ToolContext, input: str) -> str:
        return '{"time": "noon"}'


def model(request: dict[str, Any]) -> Reply:
    """Asked the time, it calls the clock, then says it; anything else it answers at once."""
    last = request["messages"][-1]
    if last["role"] == "tool":
        return Reply(text("noon it is"))
    if "time" in str(last["content"]):
        return Reply(tool_calls(call("clock", {}, "c1")))
    return Reply(text("still here"))


def ctrl_c_at(step: CodeType, n: int) -> list[bool]:
    """Press Ctrl-C (raise SIGINT) at the `n`th step of the first call of `step` (its own or of what it
    calls); the list says whether it was pressed."""
    depth, seen, pressed = 0, 0, []

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal depth, seen
        if frame.f_code is step and event in ("call", "return"):
            depth += 1 if event == "call" else -1
            if depth == 0:  # the first call is over: no Ctrl-C in this turn
                sys.setprofile(None)
        if depth > 0 and event in ("call", "c_return"):
            seen += 1
            if seen == n:
                sys.setprofile(None)
                pressed.append(True)
                signal.raise_signal(signal.SIGINT)

    sys.setprofile(profile)
    return pressed


def spinners_stopped(before: int) -> bool:
    """rich's spinner threads end within a refresh once stopped."""
    give_up_at = time.monotonic() + 2
    while threading.active_count() > before and time.monotonic() < give_up_at:
        time.sleep(0.02)
    return threading.active_count() <= before


@pytest.mark.parametrize("method", ["begin_turn", "_stop"])
def test_ctrl_c_at_any_step_of_drawing_a_turn_cancels_it_and_the_chat_goes_on(
    fake_llm, tmp_path, capsys, method
):
    registry = ToolRegistry()
    registry.register(Clock())
    step = inspect.unwrap(getattr(RichConsole, method)).__code__
    fake_llm.default = model
    before = threading.active_count()
    for n in range(1, 2000):
        screen = RichConsole("en", tmp_path / "history.txt")
        agent = ChatAgent(CustomLLMWrapper(base_url=fake_llm.url), registry, observer=ConsoleObserver(screen))
        chat = Session(agent, None, screen)
        pressed = ctrl_c_at(step, n)
        try:
            chat.turn("what time is it?")
        except KeyboardInterrupt:  # not to pytest, which would stop the run
            pytest.fail(f"Ctrl-C at step {n} of {method} was not taken by the turn: the chat quit")
        finally:
            sys.setprofile(None)
        shown = capsys.readouterr().out
        if not pressed:
            break
        assert "(turn cancelled)" in shown or "noon it is" in shown, (n, shown)
        assert spinners_stopped(before), f"Ctrl-C at step {n} of {method} left a spinner running"
        chat.turn("are you there?")
        assert "still here" in capsys.readouterr().out, n
    assert n > 20, f"{method} has only {n} steps"


def test_a_ctrl_c_during_an_import_is_taken_once_the_module_is_whole(tmp_path, monkeypatch):
    """A module cut off halfway stayed half-made, and importing it again failed, as tenacity did after a
    Ctrl-C in a chat's first model call (LangChain imports it then). This one presses Ctrl-C midway."""
    package = tmp_path / "halfway"
    package.mkdir()
    (package / "part.py").write_text("VALUE = 42\n")
    (package / "__init__.py").write_text(
        "import signal, sys\n"
        "first = 'halfway.part' not in sys.modules\n"
        "import halfway.part\n"
        "if first:  # the person presses Ctrl-C as the module is first imported\n"
        "    signal.raise_signal(signal.SIGINT)\n"
        "VALUE = halfway.part.VALUE\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    previous = signal.getsignal(signal.SIGINT)
    take_ctrl_c()
    try:
        with pytest.raises(KeyboardInterrupt):
            importlib.import_module("halfway")
            time.sleep(5)  # Ctrl-C comes here, once the import is done
        assert importlib.import_module("halfway").VALUE == 42
    finally:
        signal.signal(signal.SIGINT, previous)
        for name in ("halfway", "halfway.part"):
            sys.modules.pop(name, None)
