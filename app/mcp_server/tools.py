"""The tools of an MCP server: a registry's tools, with log messages, progress, the person's confirmation,
and a resources/list_changed notification when a call changed resources.

The tutorial's second MCP capability, Tools. Every call goes through the same ToolRegistry as in the chat
(validation, provenance, permissions, identity from the host, audit). What a remote client's model read
before it called is unknown, so every write (e.g. `add_device_model`, `delete_device_model`) is
confirmed by the client's person, shown the exact call: through elicitation for a client of the 2025
revisions, in the call's result for one of 2026-07-28 (`rounds.py`). Such tools are offered only to
clients that can ask their person; to other clients they do not exist. While it runs, a tool reaches
the client through its `ctx.channel` (`channel.py`). Which resources a tool's runs change is the
server's knowledge (`changes`: tool name -> URIs), told to listeners of both revisions.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

import anyio
import mcp_types as types
from anyio.from_thread import run as run_on_loop
from mcp.server.subscriptions import ResourcesListChanged, SubscriptionBus
from mcp.shared.exceptions import MCPError

from agent.tools import FunctionTool, ToolRegistry
from agent.types import AwaitingApproval, ToolContext
from app.mcp_server.channel import (
    LEVELS,
    ClientChannel,
    Request,
    ask_person,
    can_ask_person,
    connection_of,
    progress_reported,
    without_back_channel,
)
from app.mcp_server.rounds import Rounds

_request: ContextVar[Request] = ContextVar("mcp_request")  # the call being run
_rounds: ContextVar[Rounds] = ContextVar("mcp_rounds")  # its answers from earlier rounds (2026-07-28)


def tool_annotations(tool: FunctionTool) -> types.ToolAnnotations:
    """MCP's hints, from the tool's class (a registry's tools act on the host's own services)."""
    return types.ToolAnnotations(
        read_only_hint=tool.effect == "read",
        destructive_hint=tool.effect == "destructive",
        idempotent_hint=tool.effect == "read" or tool.idempotent,
        open_world_hint=False,
    )


def confirm_through_elicitation(name: str, args: dict[str, Any], call: ToolContext) -> bool:
    """The registry's `confirm`, run in a worker thread: ask the client's person, on the server's loop;
    in the 2026-07-28 revision, take the answer of an earlier round, or stop the round to ask."""
    ctx = _request.get(None)
    if ctx is None:
        return False
    question = f"Allow {name}({json.dumps(args, ensure_ascii=False)})? Nothing runs unless you accept."
    if without_back_channel(ctx):
        answer = _rounds.get().answer(question, CONFIRMATION)
        if answer is None:
            raise AwaitingApproval(name, args)
        return answer[0] == "accept"
    return run_on_loop(_ask_person, ctx, question)


CONFIRMATION: dict[str, Any] = {"type": "object", "properties": {}}  # a yes or no, nothing to fill in


async def _ask_person(ctx: Request, question: str) -> bool:
    answer = await ask_person(ctx, question, CONFIRMATION)
    return answer.action == "accept"


class ToolHandlers:
    """tools/list, tools/call and logging/setLevel for one registry; `host` is who calls through us."""

    def __init__(
        self,
        registry: ToolRegistry,
        host: ToolContext,
        changes: Mapping[str, tuple[str, ...]],
        bus: SubscriptionBus,
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.registry, self.host = registry, host
        self.changes, self.bus = changes, bus  # what a tool's runs change; who listens (2026-07-28)
        self.changed = changed  # told after a call changed resources (their subscribers' watch reads now)
        self._levels: dict[str, str] = {}  # connection (HTTP session id; "" for stdio) -> minimum level

    def offered(self, ctx: Request) -> list[FunctionTool]:
        """Every tool to a client that can ask its person; to any other, only what runs without asking: a
        read that stays here (the caller's reading is unknown, so the rest is confirmed every time)."""
        if can_ask_person(ctx):
            return self.registry.tools()
        return [
            t for t in self.registry.tools() if t.effect == "read" and not (t.outward or t.needs_confirmation)
        ]

    async def list_tools(self, ctx: Request, params: object) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(
                    name=tool.name,
                    description=tool.description,
                    input_schema=self.registry.model_schema(tool),
                    annotations=tool_annotations(tool),
                )
                for tool in self.offered(ctx)
            ]
        )

    async def call_tool(
        self, ctx: Request, params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        tool = next((t for t in self.offered(ctx) if t.name == params.name), None)
        if tool is None:  # the spec's answer to an unknown tool is a protocol error, not a tool result
            raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
        await self.log(ctx, "info", {"tool": tool.name, "event": "called"})
        rounds = Rounds.of(params) if without_back_channel(ctx) else Rounds()
        envelope = await self._run(ctx, tool.name, params.arguments or {}, rounds)
        if rounds.pending is not None:  # the call stopped at a question: it goes back in the result
            await self.log(ctx, "info", {"tool": tool.name, "event": "asking the person"})
            return rounds.input_required()
        assert envelope is not None
        level = "info" if envelope["ok"] else "warning"
        await self.log(ctx, level, {"tool": tool.name, **_outcome(envelope)})
        if envelope["ok"] and self.changes.get(tool.name):
            await self._changed(ctx)
        return _result(envelope)

    async def _changed(self, ctx: Request) -> None:
        """Resources changed (e.g. a device model was added, renamed or deleted): listeners of 2026-07-28
        hear it on subscriptions/listen, a client of the 2025 revisions on its session; the subscribers of
        a resource whose text changed hear it from the watch (`subscriptions.py`)."""
        self.changed()
        await self.bus.publish(ResourcesListChanged())
        if not without_back_channel(ctx):
            await ctx.session.send_resource_list_changed()

    async def _run(self, ctx: Request, name: str, args: dict[str, Any], rounds: Rounds) -> Any | None:
        call = {"name": name, "args": args, "id": f"mcp_{uuid.uuid4().hex[:12]}"}
        token, asked = _request.set(ctx), _rounds.set(rounds)  # worker threads get a copy of the context
        try:
            async with progress_reported(ctx, name) as progress:
                host = replace(self.host, channel=ClientChannel(ctx, name, self.log, progress, rounds))
                try:
                    envelope = await anyio.to_thread.run_sync(self.registry.execute_tool_call, host, call)
                except AwaitingApproval:  # the confirmation's question ends the round (2026-07-28)
                    return None
                return json.loads(envelope)
        finally:
            _request.reset(token)
            _rounds.reset(asked)

    async def set_level(self, ctx: Request, params: types.SetLevelRequestParams) -> Any:
        self._levels[connection_of(ctx)] = params.level
        return types.EmptyResult()

    async def log(self, ctx: Request, level: str, data: Any, logger: str = "tools") -> None:
        """A log message on the call's stream, if the connection's level lets it through ("tools": ours;
        a tool's own messages carry its name). In the 2026-07-28 revision each request says its level,
        and the SDK sends only what it asked for."""
        minimum = "debug" if without_back_channel(ctx) else self._levels.get(connection_of(ctx), "info")
        if LEVELS.index(level) >= LEVELS.index(minimum):
            await ctx.session.send_log_message(level, data, logger=logger, related_request_id=ctx.request_id)  # type: ignore[arg-type]


def _outcome(envelope: dict[str, Any]) -> dict[str, Any]:
    return {"event": "done"} if envelope["ok"] else {"event": "failed", "error": envelope["error"]}


def _result(envelope: dict[str, Any]) -> types.CallToolResult:
    payload = envelope["data"] if envelope["ok"] else envelope["error"]
    text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=payload if envelope["ok"] and isinstance(payload, dict) else None,
        is_error=not envelope["ok"],
    )
