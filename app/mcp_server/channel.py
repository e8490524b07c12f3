"""How a tool running under the MCP server reaches the client's person: log messages, progress, questions.

The MCP utilities a long or interactive tool call needs (logging, progress, elicitation), for any
FunctionTool: the tool calls its `ctx.channel` from its worker thread, and the channel runs the SDK's
calls on the server's loop, inside the tools/call request, so they travel on that request's stream.
A question goes out as elicitation (2025 revisions) or in the call's result (2026-07-28, `rounds.py`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import mcp_types as types
from anyio.from_thread import run as run_on_loop
from mcp.server.context import ServerRequestContext
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent.types import ToolError

if TYPE_CHECKING:
    from app.mcp_server.rounds import Rounds

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
Request = ServerRequestContext[Any, Any]
Log = Callable[[Request, str, Any, str], Coroutine[Any, Any, None]]  # (request, level, data, logger)


def connection_of(ctx: Request) -> str:
    """The client's connection: its HTTP session id, "" on stdio (one client per server process)."""
    headers = getattr(ctx.request, "headers", None)
    return (headers.get("mcp-session-id") if headers is not None else None) or ""


def without_back_channel(ctx: Request) -> bool:
    """The request speaks the 2026-07-28 revision: questions go back in the call's result."""
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def can_ask_person(ctx: Request) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.elicitation is not None


async def ask_person(ctx: Request, message: str, schema: dict[str, Any]) -> types.ElicitResult:
    return await ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id)


class CallProgress:
    """Progress of one call, for a client that asked with a progressToken: the tool's own figures once it
    reports any; until then a heartbeat, 0 at the start, one step a second, the total at the end."""

    def __init__(self, ctx: Request, name: str) -> None:
        self.ctx, self.name = ctx, name
        self.sent = -1.0
        self.by_tool = False

    async def send(self, done: float, total: float | None, message: str | None) -> None:
        if done > self.sent:  # the spec: progress increases with every notification; the rest is dropped
            self.sent = done
            await self.ctx.session.report_progress(done, total, message)

    async def from_tool(self, done: float, total: float | None, message: str | None) -> None:
        self.by_tool = True
        await self.send(done, total, message)

    async def heartbeat(self) -> None:
        while not self.by_tool:
            await anyio.sleep(1)
            if not self.by_tool:
                await self.send(self.sent + 1, None, f"{self.name}: still running ({self.sent + 1:.0f} s)")


@asynccontextmanager
async def progress_reported(ctx: Request, name: str) -> AsyncIterator[CallProgress]:
    """The progress of one call while it runs (the heartbeat stops once the tool reports its own)."""
    progress = CallProgress(ctx, name)
    await progress.send(0, None, f"{name}: started")
    async with anyio.create_task_group() as ticker:
        ticker.start_soon(progress.heartbeat)
        try:
            yield progress
        finally:
            ticker.cancel_scope.cancel()
    if not progress.by_tool:
        await progress.send(progress.sent + 1, progress.sent + 1, f"{name}: done")


class ClientChannel:
    """The ToolChannel of one tools/call: what the tool says goes to the client that called it."""

    def __init__(self, ctx: Request, tool: str, log: Log, progress: CallProgress, rounds: Rounds) -> None:
        self.ctx, self.tool = ctx, tool
        self._log, self._progress, self._rounds = log, progress, rounds

    def log(self, level: str, data: Any) -> None:
        if level not in LEVELS:
            raise ValueError(f"unknown log level {level!r}; levels: {', '.join(LEVELS)}")
        run_on_loop(self._log, self.ctx, level, data, self.tool)

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        run_on_loop(self._progress.from_tool, done, total, message)

    def ask(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        if not can_ask_person(self.ctx):
            raise ToolError(
                f"{self.tool} needs to ask the person, and this MCP client cannot (no elicitation)"
            )
        if without_back_channel(self.ctx):
            given = self._rounds.answer(message, schema)
            if given is None:  # the round ends here; the handler sends the question back
                raise ToolError(f"{self.tool} waits for the person's answer", retryable=False)
            return given
        answer = run_on_loop(ask_person, self.ctx, message, schema)
        return answer.action, answer.content
