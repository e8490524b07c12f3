"""python main.py: chat with the tool-calling agent (the tutorial's "Chat Agent (Tool Use Enabled)").

`python main.py` chats interactively; `-m TEXT` runs one turn and prints the answer; lines piped on
stdin are turns. Without ADD_MODEL_URL the device service is started here, on a free loopback port;
without an LLM endpoint, the embedded local model; MCP servers come from MCP_CONFIG.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from agent.agent import ChatAgent
from agent.audit import AuditLog
from agent.chat.commands import Session, handle_command
from agent.chat.console import PlainConsole, safe
from agent.config import Settings, load_permissions
from agent.llm.provider import choose_model
from agent.llm.transport import bypass_proxy_for_loopback
from agent.tools import ToolRegistry
from agent.types import AgentError, ConfigError
from tools import default_tools, system_prompt
from tools.device_service import device_service_url


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Chat with a tool-calling agent.")
    parser.add_argument("-m", "--message", help="run one turn with this text, print the answer, exit")
    parser.add_argument("--yes", action="store_true", help="approve confirmations in -m mode")
    parser.add_argument("--session", metavar="NAME", help="save the conversation under NAME and resume it")
    parser.add_argument(
        "--lang", choices=["zh", "en"], help="language of the chat's messages (default: LANG)"
    )
    return parser.parse_args(argv)


def build_session(settings: Settings, stack: ExitStack, args: argparse.Namespace) -> Session:
    ui = make_console(args, settings)
    choice = choose_model(settings, stack)
    if choice.notice:
        print(choice.notice, file=sys.stderr, flush=True)
    registry = ToolRegistry(
        confirm=lambda name, arguments: ui.ask(f"{name}({_json(arguments)})"),
        audit=AuditLog(settings.audit_log),
        confirm_effects=choice.confirm_effects,
    )
    for tool in default_tools(device_service_url(settings, stack)):
        if tool.effect in choice.tool_effects:
            registry.register(tool)
    agent = ChatAgent(
        choice.model_for(registry),
        registry,
        user_id=settings.agent_user,
        permissions=load_permissions(settings.permissions_file, settings.agent_user),
        system_prompt=system_prompt(registry),
        on_tool_result=ui.on_tool,
        on_text=ui.on_text if settings.llm_stream and choice.streams_with_tools else None,
        tool_selector=choice.selector,  # which tools each request carries
        state_outcomes=choice.state_outcomes,
        limits=choice.limits,
    )
    session = Session(agent, mcp_toolset(settings, registry, stack, ui), ui, model=choice.description)
    if args.session:
        resume(session, args.session, settings.audit_log.parent / "sessions.db")
    return session


def make_console(args: argparse.Namespace, settings: Settings) -> Any:
    """rich + prompt_toolkit on a terminal; plain lines for pipes and -m (tool traces on stderr then)."""
    if args.message is None and sys.stdin.isatty() and sys.stdout.isatty():
        from agent.chat.console import RichConsole, language

        return RichConsole(language(args.lang), settings.audit_log.parent / "history.txt")
    return PlainConsole(sys.stderr if args.message else sys.stdout, yes=args.yes)


def resume(session: Session, name: str, path: Path) -> None:
    from agent.chat.sessions import SessionStore

    session.store, session.name = SessionStore(path), name
    for message in session.store.load(name):
        session.agent.memory.add(message)


def mcp_toolset(settings: Settings, registry: ToolRegistry, stack: ExitStack, ui: Any) -> Any:
    path = settings.mcp_config or Path("mcp_servers.json")
    if settings.mcp_config is None and not path.exists():
        return None
    from agent.mcp.client import Person, load_servers  # the mcp SDK loads only when MCP is configured
    from agent.mcp.toolset import McpToolset

    def report(line: str) -> None:
        print(f"  ! {safe(line)}", file=sys.stderr, flush=True)

    person = Person(ask=ui.elicit, open_url=ui.open_url)  # questions of servers, sign-in pages
    servers = load_servers(path)
    return stack.enter_context(McpToolset(servers, registry, settings.audit_log.parent, report, person))


def chat(session: Session) -> int:
    if not isinstance(session.ui, PlainConsole):
        session.ui.say(session.ui.words["banner"])
    while True:
        try:
            line = session.ui.read().strip()
        except KeyboardInterrupt:
            continue  # Ctrl-C at the prompt clears the line
        except EOFError:
            return 0
        if line == "/exit":
            return 0
        if line and not handle_command(session, line):
            session.turn(line)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    bypass_proxy_for_loopback()
    try:
        with ExitStack() as stack:
            session = build_session(Settings(), stack, args)
            if args.message is None:
                return chat(session)
            session.sync_mcp()
            answer = session.agent.send_message(args.message)
            session.save()
            print(safe(answer))
            return 0
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except AgentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
