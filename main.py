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

from langchain_core.language_models import BaseChatModel

from agent.agent import ChatAgent
from agent.audit import AuditLog
from agent.commands import Session, handle_command
from agent.config import Settings, bypass_proxy_for_loopback, load_permissions
from agent.console import PlainConsole, safe
from agent.llm_provider import make_llm
from agent.tool_selection import ToolSelector
from agent.tools import ToolRegistry
from agent.types import AgentError, ConfigError

LOCAL_MODEL_BANNER = (
    "未配置 LLM：使用内置演示模型 SmolLM2-135M（1.35 亿参数，只能演示简单的工具调用）。"
    "要用真实模型，请设置 LLM_BASE_URL、LLM_API_KEY、LLM_MODEL（见 README）。\n"
    "No LLM configured: using the embedded 135M demo model. Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL "
    "for a real one (see README)."
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Chat with a tool-calling agent.")
    parser.add_argument("-m", "--message", help="run one turn with this text, print the answer, exit")
    parser.add_argument("--yes", action="store_true", help="approve confirmations in -m mode")
    parser.add_argument("--session", metavar="NAME", help="save the conversation under NAME and resume it")
    parser.add_argument(
        "--lang", choices=["zh", "en"], help="language of the chat's messages (default: LANG)"
    )
    return parser.parse_args(argv)


def uses_local_model(settings: Settings) -> bool:
    return not (settings.llm_base_url or settings.llm_api_key)


def chat_model(settings: Settings, stack: ExitStack) -> BaseChatModel:
    """The configured endpoint, or the embedded local model, started here and stopped with `stack`."""
    if settings.llm_api_key and not settings.llm_base_url:
        raise ConfigError(
            "LLM_API_KEY is set but LLM_BASE_URL is not: set it, e.g. https://api.deepseek.com/v1"
        )
    if not uses_local_model(settings):
        return make_llm(settings, settings.llm_base_url or "")
    from agent.local_model import LocalModelServer

    print(LOCAL_MODEL_BANNER, file=sys.stderr, flush=True)
    server = stack.enter_context(LocalModelServer())
    return make_llm(settings, server.base_url, temperature=0, max_tokens=256)


def build_session(settings: Settings, stack: ExitStack, args: argparse.Namespace) -> Session:
    from devicedb.server import models_url  # FastAPI and uvicorn load only here
    from tools import DEVICE_SYSTEM_PROMPT, default_tools

    ui = make_console(args, settings)
    llm = chat_model(settings, stack)
    registry = ToolRegistry(
        confirm=lambda name, arguments: ui.ask(f"{name}({_json(arguments)})"),
        audit=AuditLog(settings.audit_log),
    )
    url = models_url(settings.add_model_url, settings.device_db, stack)
    # the embedded 135M demo model is not offered tools that need confirmation, such as deleting
    for tool in default_tools(url, risky=not uses_local_model(settings)):
        registry.register(tool)
    agent = ChatAgent(
        llm,
        registry,
        user_id=settings.agent_user,
        permissions=load_permissions(settings.permissions_file, settings.agent_user),
        system_prompt=DEVICE_SYSTEM_PROMPT,
        on_tool_result=ui.on_tool,
        # llama-cpp-python cannot stream when tools are offered: the embedded model answers whole
        on_text=ui.on_text if settings.llm_stream and not uses_local_model(settings) else None,
        tool_selector=ToolSelector(),  # past 16 tools, each request carries only the relevant ones
    )
    session = Session(agent, mcp_toolset(settings, registry, stack), ui, model=describe(settings, llm))
    if args.session:
        resume(session, args.session, settings.audit_log.parent / "sessions.db")
    return session


def make_console(args: argparse.Namespace, settings: Settings) -> Any:
    """rich + prompt_toolkit on a terminal; plain lines for pipes and -m (tool traces on stderr then)."""
    if args.message is None and sys.stdin.isatty() and sys.stdout.isatty():
        from agent.console import RichConsole, language

        return RichConsole(language(args.lang), settings.audit_log.parent / "history.txt")
    return PlainConsole(sys.stderr if args.message else sys.stdout, yes=args.yes)


def resume(session: Session, name: str, path: Path) -> None:
    from agent.sessions import SessionStore

    session.store, session.name = SessionStore(path), name
    for message in session.store.load(name):
        session.agent.memory.add(message)


def describe(settings: Settings, llm: BaseChatModel) -> str:
    where = getattr(llm, "base_url", None) or getattr(llm, "openai_api_base", "")
    if uses_local_model(settings):
        return f"SmolLM2-135M-Instruct, the embedded demo model, at {where}"
    return (
        f"{settings.llm_model or getattr(llm, 'model_name', '') or '(server default)'} at {where} "
        f"[{settings.llm_backend}]"
    )


def mcp_toolset(settings: Settings, registry: ToolRegistry, stack: ExitStack) -> Any:
    path = settings.mcp_config or Path("mcp_servers.json")
    if settings.mcp_config is None and not path.exists():
        return None
    from agent.mcp_client import load_servers  # the mcp SDK loads only when MCP is configured
    from agent.mcp_tools import McpToolset

    def report(line: str) -> None:
        print(f"  ! {safe(line)}", file=sys.stderr, flush=True)

    return stack.enter_context(McpToolset(load_servers(path), registry, settings.audit_log.parent, report))


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
