"""python main.py: chat with the tool-calling agent (the tutorial's "Chat Agent (Tool Use Enabled)").

`python main.py` chats interactively; `-m TEXT` runs one turn and prints the answer; lines piped on
stdin are turns. Without ADD_MODEL_URL the device service is started here, on a free loopback port;
without an LLM endpoint, the embedded local model; MCP servers come from MCP_CONFIG.
`python main.py serve` serves the same agent over HTTP, `python main.py keys` manages its API keys
(app/serve/cli.py); `python main.py eval` scores the configured model's tool calling
(app/eval/). Installed from a wheel, `tool-use-agent` (or `python -m main`) is the same command.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import sys
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from agent import tracing
from agent.config import Settings, installed, missing_extra
from agent.function_tool import FunctionTool
from agent.guards import safe
from agent.provenance import values_read
from agent.types import AgentError, ConfigError
from app.chat.commands import Session, handle_command
from app.chat.console import Console, PlainConsole, PlainTerminal, language
from app.chat.interrupts import take_ctrl_c
from app.chat.watch import ConsoleObserver
from app.host import Front, build_host
from app.models.choice import ASKS
from plumbing.http import bypass_proxy_for_loopback
from tools import default_tools
from tools.device_service import device_service_url


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Chat with a tool-calling agent.")
    parser.add_argument("-m", "--message", help="run one turn with this text, print the answer, exit")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="approve the host's confirmations (writes) in -m mode and for piped input; "
        "questions of MCP servers are still declined there",
    )
    parser.add_argument("--session", metavar="NAME", help="save the conversation under NAME and resume it")
    parser.add_argument(
        "--lang", choices=["zh", "en"], help="language of the chat's messages (default: LANG)"
    )
    return parser.parse_args(argv)


def build_session(settings: Settings, stack: ExitStack, args: argparse.Namespace) -> Session:
    ui = make_console(args, settings)
    front = Front(
        confirm=lambda name, arguments, ctx: ui.ask(
            f"{name}({_json(arguments)})", values_read(arguments, ctx)
        ),
        elicit=ui.elicit,  # questions of MCP servers
        open_url=ui.open_url,  # their sign-in pages
    )
    tools = default_tools(device_service_url(stack, lazy=True))  # served from the first device call
    host = build_host(settings, stack, tools, front)
    assert host.model is not None
    if host.model.notice:
        print(host.model.notice, file=sys.stderr, flush=True)
    agent = stack.enter_context(host.agent(settings.agent_user, observer=ConsoleObserver(ui)))
    session = Session(agent, host.mcp, ui, model=host.model.description, runs=host.model.runs)
    if args.session:
        resume(session, args.session, settings)
    return session


def make_console(args: argparse.Namespace, settings: Settings) -> Console:
    """rich + prompt_toolkit on a terminal; plain lines for pipes and -m (tool traces on stderr then)."""
    if args.message is None and sys.stdin.isatty() and sys.stdout.isatty():
        take_ctrl_c()  # a person at a terminal: their Ctrl-C cancels a turn, however the chat was started
        if not installed("rich", "prompt_toolkit"):
            print(f"  ({missing_extra('the rich terminal', 'chat')}; plain lines meanwhile)", file=sys.stderr)
            return PlainTerminal(language(args.lang))
        from app.chat.terminal import RichConsole

        return RichConsole(language(args.lang), settings.audit_log.parent / "history.txt")
    plain = PlainConsole(sys.stderr, yes=args.yes, lang=language(args.lang))  # answers alone on stdout
    if args.message is not None:
        plain.hear(args.message)
    return plain


def resume(session: Session, name: str, settings: Settings) -> None:
    """The person's saved conversation `name`, continued (kept under their user and that name)."""
    from app.chat.sessions import SessionStore

    session.store = SessionStore(settings.audit_log.parent / "sessions.db", settings.agent_user)
    session.name = name
    for message in session.store.load(name):
        session.agent.memory.add(message)


def chat(session: Session) -> int:
    if not isinstance(session.ui, PlainConsole):
        session.ui.say(session.ui.words["banner"])
    while True:
        try:
            line = session.ui.read().strip()
            if line == "/exit":
                return 0
            if line and not handle_command(session, line):
                session.turn(line)
        except KeyboardInterrupt:
            continue  # Ctrl-C at the prompt clears the line; one between a turn's steps ends the turn
        except EOFError:
            return 0


def served_tools(settings: Settings, stack: ExitStack) -> Callable[[], list[FunctionTool]]:
    """For `serve`: the device service, started here once, and the tools each worker registers for it."""
    return functools.partial(default_tools, device_service_url(stack))


def asks(session: Session) -> bool:
    """Did the turn end by asking the person a question (a value it needs)?"""
    last = session.agent.memory.history()[-1:]
    return bool(last and last[0].additional_kwargs.get(ASKS))


REFUSED = {  # the line of a write -m did not run, in the person's language
    "zh": "没有执行：-m 模式下，加 --yes 才会执行写入",
    "en": "was not run: --yes approves writes in -m mode",
}


def language_of(text: str) -> str:
    return "zh" if re.search(r"[\u3400-\u9fff]", text) else "en"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def evaluate(argv: list[str]) -> int:
    """`python main.py eval`: the scorecard (app/eval/), its prompt sets in the package."""
    if not installed("pydantic_evals", "opentelemetry"):
        print(f"error: {missing_extra('python main.py eval', 'eval')}", file=sys.stderr)
        return 2
    from app.eval import scorecard  # pydantic-evals and OpenTelemetry load only here

    try:
        return scorecard.main(argv)
    except ConfigError as e:
        print(f"error: {safe(str(e))}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    bypass_proxy_for_loopback()
    if argv[:1] in (["serve"], ["keys"]):
        if not installed("fastapi", "uvicorn", "ag_ui"):
            print(f"error: {missing_extra(f'python main.py {argv[0]}', 'serve')}", file=sys.stderr)
            return 2
        from app.serve.cli import run_command  # FastAPI, uvicorn and AG-UI load only here

        return run_command(argv, served_tools)
    if argv[:1] == ["eval"]:
        return evaluate(argv[1:])
    args = parse_args(argv)
    try:
        with ExitStack() as stack:
            tracing.start(stack)  # when OTEL_EXPORTER_OTLP_ENDPOINT is set; before any service starts
            session = build_session(Settings(), stack, args)
            if args.message is None:
                return chat(session)
            session.sync_mcp()
            answer = session.agent.send_message(args.message)
            session.save()
            if refused := getattr(session.ui, "refused", None):  # name(arguments) of what was asked
                tool = safe(refused[0].partition("(")[0])
                print(f"error: {tool} {REFUSED[language_of(args.message)]}", file=sys.stderr)
                return 1
            print(safe(answer))
            return 2 if asks(session) else 0
    except ConfigError as e:
        print(f"error: {safe(str(e))}", file=sys.stderr)
        return 2
    except AgentError as e:  # an endpoint's words may be in it
        print(f"error: {safe(str(e))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
