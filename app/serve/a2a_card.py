"""The served agent's A2A agent card: who it is, its skills (one per tool of the registry, tagged with the
tool's effect), how to sign in (an API key as a bearer token) and where its JSON-RPC binding answers — an
absolute URL, of the host the client reached (`for_base`)."""

from __future__ import annotations

from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)

from agent.function_tool import FunctionTool
from agent.tools import ToolRegistry

RPC_PATH = "/a2a"
PROTOCOL_VERSION = "1.0"
BEARER = "bearer"
DESCRIPTION = (
    "The tool-calling agent of tool-use-agent: it answers in words and runs its tools (device models, a "
    "calculator, the time...) for the person its API key signs in; a write that needs the person's approval "
    "waits for their yes or no (task state input-required)."
)


def agent_card(registry: ToolRegistry, base_url: str = "http://127.0.0.1:8080") -> AgentCard:
    bearer = HTTPAuthSecurityScheme(
        scheme="Bearer", description="an API key of this server: python main.py keys add NAME"
    )
    return AgentCard(
        name="tool-use-agent",
        description=DESCRIPTION,
        version="1",
        supported_interfaces=[
            AgentInterface(
                url=base_url.rstrip("/") + RPC_PATH,
                protocol_binding="JSONRPC",
                protocol_version=PROTOCOL_VERSION,
            )
        ],
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        security_schemes={BEARER: SecurityScheme(http_auth_security_scheme=bearer)},
        security_requirements=[SecurityRequirement(schemes={BEARER: StringList()})],
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain", "application/json"],
        skills=[skill(tool) for tool in registry.tools()],
    )


def skill(tool: FunctionTool) -> AgentSkill:
    return AgentSkill(
        id=tool.name,
        name=tool.name,
        description=tool.description,
        tags=[tool.effect, "tool"],
        input_modes=["text/plain"],
        output_modes=["text/plain", "application/json"],
    )


def for_base(card: AgentCard, base_url: str) -> AgentCard:
    """`card`, its interface at `base_url` (the scheme and host the client reached)."""
    served = AgentCard()
    served.CopyFrom(card)
    served.supported_interfaces[0].url = base_url.rstrip("/") + RPC_PATH
    return served
