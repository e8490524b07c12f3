"""The chat's slash commands: /help, /tools, /clear, and MCP's /mcp, /resources, /read, /prompts, /prompt."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agent.agent import ChatAgent
from agent.types import AgentError, ToolError

HELP = """  /tools                     工具列表 / list the tools
  /clear                     清空历史 / clear the history
  /mcp                       MCP 服务器 / MCP servers
  /resources                 MCP 资源 / MCP resources
  /read <uri>                读取资源 / read a resource
  /prompts                   MCP 提示模板 / MCP prompts
  /prompt <name> key=value   用提示模板发一轮 / send a turn from a prompt
  /exit                      退出 / leave"""


@dataclass
class Session:
    agent: ChatAgent
    mcp: Any  # McpToolset | None
    ask: Callable[[str], bool]  # the person's y/N

    def sync_mcp(self) -> None:
        """Before a turn: tools an MCP server announced since the last one wait for the person's approval."""
        if self.mcp is not None:
            self.mcp.sync(lambda server, names: self.ask(f"MCP server {server!r} offers new tools {names}"))


def handle_command(session: Session, line: str) -> bool:
    """Run `line` if it is a command; False means it is a message for the agent."""
    if not line.startswith("/"):
        return False
    name, _, rest = line.partition(" ")
    command = COMMANDS.get(name)
    if command is None:
        print(f"unknown command {name}; /help lists them")
        return True
    try:
        command(session, rest.strip())
    except (ToolError, AgentError, ValueError) as e:
        print(f"error: {e}")
    return True


def _help(session: Session, rest: str) -> None:
    print(HELP)


def _tools(session: Session, rest: str) -> None:
    for tool in session.agent.registry.langchain_tools():
        print(f"  {tool['function']['name']}: {tool['function']['description']}")


def _clear(session: Session, rest: str) -> None:
    session.agent.memory.clear()
    print("(history cleared)")


def _mcp(session: Session, rest: str) -> None:
    if session.mcp is None:
        print("  no MCP servers configured (MCP_CONFIG, or mcp_servers.json)")
        return
    for name, connection in session.mcp.connections.items():
        tools = [t.name for t in session.mcp.tools.values() if t.connection is connection]
        trust = "trusted" if connection.config.trusted else "untrusted"
        print(f"  {name} ({trust}): {', '.join(tools) or 'no tools'}")


def _resources(session: Session, rest: str) -> None:
    for server, resource in session.mcp.resources() if session.mcp else []:
        print(f"  [{server}] {resource.uri}  {resource.name}")


def _read(session: Session, rest: str) -> None:
    if session.mcp is None or not rest:
        raise ValueError("usage: /read <uri> (with MCP servers configured)")
    print(session.mcp.read(rest))


def _prompts(session: Session, rest: str) -> None:
    for server, prompt in session.mcp.prompts() if session.mcp else []:
        arguments = " ".join(f"{a.name}=" for a in prompt.arguments or [])
        print(f"  [{server}] {prompt.name} {arguments}  {prompt.description or ''}")


def _prompt(session: Session, rest: str) -> None:
    words = shlex.split(rest)
    if session.mcp is None or not words:
        raise ValueError("usage: /prompt <name> key=value ... (with MCP servers configured)")
    arguments = dict(word.split("=", 1) for word in words[1:] if "=" in word)
    text = session.mcp.prompt(words[0], arguments)
    print(f"(prompt {words[0]})\n{text}")
    print(f"Agent: {session.agent.send_message(text)}", flush=True)


COMMANDS: dict[str, Callable[[Session, str], None]] = {
    "/help": _help,
    "/tools": _tools,
    "/clear": _clear,
    "/mcp": _mcp,
    "/resources": _resources,
    "/read": _read,
    "/prompts": _prompts,
    "/prompt": _prompt,
}
