"""python main.py: chat with the tool-calling agent (the tutorial's "Chat Agent (Tool Use Enabled)").

`python main.py` chats interactively; `-m TEXT` runs one turn and prints the answer; lines piped on
stdin are turns. Without ADD_MODEL_URL the device service is started here, on a free loopback port.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import Any, TextIO

from langchain_core.language_models import BaseChatModel

from agent.agent import ChatAgent
from agent.audit import AuditLog
from agent.config import Settings, load_permissions
from agent.llm_provider import make_llm
from agent.tools import Confirm, ToolRegistry
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
    return parser.parse_args(argv)


def device_service_url(settings: Settings, stack: ExitStack) -> str:
    """ADD_MODEL_URL, or the embedded device service over DEVICE_DB, stopped when `stack` closes."""
    if settings.add_model_url:
        return settings.add_model_url
    from devicedb.server import BackgroundService

    service = stack.enter_context(BackgroundService(settings.device_db))
    return f"{service.url}/api/models"


def uses_local_model(settings: Settings) -> bool:
    return not (settings.llm_base_url or settings.llm_api_key)


def chat_model(settings: Settings, stack: ExitStack) -> BaseChatModel:
    """The configured endpoint, or the embedded local model, started here and stopped with `stack`."""
    if not uses_local_model(settings):
        return make_llm(settings, settings.llm_base_url or "https://api.openai.com/v1")
    from agent.local_model import LocalModelServer

    print(LOCAL_MODEL_BANNER, file=sys.stderr, flush=True)
    server = stack.enter_context(LocalModelServer())
    return make_llm(settings, server.base_url, temperature=0, max_tokens=256)


def build_agent(settings: Settings, stack: ExitStack, trace: TextIO, confirm: Confirm) -> ChatAgent:
    from tools import DEVICE_SYSTEM_PROMPT, default_tools

    llm = chat_model(settings, stack)
    registry = ToolRegistry(confirm=confirm, audit=AuditLog(settings.audit_log))
    # the embedded 135M demo model is not offered tools that need confirmation, such as deleting
    for tool in default_tools(device_service_url(settings, stack), risky=not uses_local_model(settings)):
        registry.register(tool)
    return ChatAgent(
        llm,
        registry,
        user_id=settings.agent_user,
        permissions=load_permissions(settings.permissions_file, settings.agent_user),
        system_prompt=DEVICE_SYSTEM_PROMPT,
        on_tool_result=lambda call, result: show_tool_result(trace, call, result),
    )


def confirmer(args: argparse.Namespace, out: TextIO) -> Confirm:
    """Ask y/N on a terminal; with -m or piped input, only --yes approves (and says so)."""
    ask = args.message is None and sys.stdin.isatty()

    def confirm(name: str, arguments: dict[str, Any]) -> bool:
        shown = f"{name}({json.dumps(arguments, ensure_ascii=False)})"
        if ask:
            return input(f"  ⚠ 确认执行 {shown}？Run it? [y/N] ").strip().lower() in ("y", "yes")
        print(
            f"  ⚠ {shown}: {'approved by --yes' if args.yes else 'refused (needs confirmation; use --yes)'}",
            file=out,
            flush=True,
        )
        return bool(args.yes)

    return confirm


def show_tool_result(out: TextIO, call: dict[str, Any], result: str) -> None:
    args = call["args"] if isinstance(call["args"], str) else json.dumps(call["args"], ensure_ascii=False)
    print(f"  → 调用工具 {call['name']}({args})", file=out)
    print(f"  ← {result[:300]}", file=out, flush=True)


def chat(agent: ChatAgent, interactive: bool) -> int:
    if interactive:
        print("🤖 Chat Agent (Tool Use Enabled) — /tools, /clear, /exit")
    while True:
        try:
            line = input("You: " if interactive else "").strip()
        except (EOFError, KeyboardInterrupt):
            return 0
        if line == "/exit":
            return 0
        if line:
            handle_line(agent, line)


def handle_line(agent: ChatAgent, line: str) -> None:
    if line == "/tools":
        for tool in agent.registry.langchain_tools():
            print(f"  {tool['function']['name']}: {tool['function']['description']}")
    elif line == "/clear":
        agent.memory.clear()
        print("(history cleared)")
    else:
        try:
            print(f"Agent: {agent.send_message(line)}", flush=True)
        except AgentError as e:
            print(f"error: {e}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        with ExitStack() as stack:
            trace = sys.stderr if args.message else sys.stdout
            agent = build_agent(Settings(), stack, trace, confirmer(args, trace))
            if args.message is None:
                return chat(agent, interactive=sys.stdin.isatty())
            print(agent.send_message(args.message))
            return 0
    except ConfigError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except AgentError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
