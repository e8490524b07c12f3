"""McpTool: one tool of an MCP server as a FunctionTool, `<server>__<tool>`, under the same rules as local
tools; what of the server's definition the model may read; and the result as data.

Policy from annotations, as the spec asks (annotations from untrusted servers are untrusted): from a
server marked `"trusted": true`, read-only tools run freely and the others need confirmation unless
they say `destructiveHint: false`; from any other server every tool needs confirmation unless the
config's `"allow"` names it. Every call sends its arguments out of this host (`outward`), so once the
model has read untrusted text its values must be the person's or the person must approve the call.
A definition reaches the model cleaned of control characters and capped; from an untrusted server it
is untrusted text itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from agent.function_tool import Effect, FunctionTool
from agent.types import McpUnavailable, ToolContext, ToolError
from app.mcp.client import McpConnection, ServerConfig
from app.mcp.people import Reach, Shared

MAX_NAME, MAX_DESCRIPTION, MAX_TEXT, MAX_SCHEMA = 64, 1024, 256, 8192
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def exposed_name(server: str, tool: str) -> str:
    """`<server>__<tool>` in the characters providers accept; shortened deterministically past 64."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}__{tool}")
    if len(name) <= MAX_NAME and name == f"{server}__{tool}":
        return name
    digest = hashlib.sha256(f"{server}__{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def needs_confirmation(config: ServerConfig, tool: types.Tool) -> bool:
    if tool.name in config.allow:
        return False
    if not config.trusted:
        return True
    hints = tool.annotations
    return not (hints and (hints.read_only_hint or hints.destructive_hint is False))


def result_data(result: types.CallToolResult) -> Any:
    """Text and structured content for the model; images, audio and blobs described, not dumped."""
    parts = [describe(block) for block in result.content]
    if result.structured_content is not None:
        return {"content": parts, "structuredContent": result.structured_content}
    return parts[0] if len(parts) == 1 else parts


def describe(block: Any) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, (types.ImageContent, types.AudioContent)):
        return f"[{block.type}: {block.mime_type}, about {len(block.data) * 3 // 4} bytes, not shown]"
    if isinstance(block, types.EmbeddedResource):
        inner = block.resource
        if isinstance(inner, types.TextResourceContents):
            return inner.text
        return f"[resource {inner.uri}: {inner.mime_type or 'binary'}, not shown]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link {block.uri}]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"


def effect_of(config: ServerConfig, tool: types.Tool) -> Effect:
    """What a call does, by the annotations of a trusted server; anything else may write."""
    hints = tool.annotations if config.trusted else None
    if hints and hints.read_only_hint:
        return "read"
    return "destructive" if hints and hints.destructive_hint else "write"


def cleaned(value: Any, most: int = MAX_TEXT) -> Any:
    """A server's schema as the model may read it: every text without control characters, capped."""
    if isinstance(value, str):
        return _CONTROL.sub(" ", value)[:most]
    if isinstance(value, dict):
        return {cleaned(k, MAX_NAME): cleaned(v) for k, v in value.items()}
    if isinstance(value, list):
        return [cleaned(v) for v in value[:64]]
    return value


class McpTool(FunctionTool):
    """One tool of an MCP server. Its arguments leave this host (`outward`); its definition is data
    unless the server is trusted; a trusted server's annotations say its effect."""

    outward = True

    def __init__(self, connection: McpConnection, tool: types.Tool, reach: Reach | None = None) -> None:
        self.connection = connection  # the one that listed it
        self.reach: Reach = reach or Shared(connection)  # the connection a call goes on, by whom it is for
        self.remote = tool
        self.name = exposed_name(connection.config.name, tool.name)
        description = cleaned(tool.description or "", MAX_DESCRIPTION)
        self.description = f"[MCP server {connection.config.name}] {description}"
        self.parameters = cleaned(dict(tool.input_schema or {"type": "object"}))
        if len(json.dumps(self.parameters, ensure_ascii=False)) > MAX_SCHEMA:
            raise ValueError(f"its input schema is over {MAX_SCHEMA} characters")
        self.effect = effect_of(connection.config, tool)  # type: ignore[misc]  # per tool, not per class
        self.trusted = connection.config.trusted  # type: ignore[misc]
        self._confirm = needs_confirmation(connection.config, tool)

    @property
    def needs_confirmation(self) -> bool:
        """From the server's trust, its annotations and the config's "allow" list (see the module)."""
        return self._confirm

    def call(self, ctx: ToolContext, input: str) -> str:
        args = json.loads(input)
        if ctx.seconds_left(self.connection.config.timeout) <= 0:
            raise ToolError("the turn's deadline has passed; the tool was not called", retryable=False)
        try:
            # the connection's clock bounds the call, and stops while the person answers the server
            with self.reach.lease(ctx.user_id) as connection:
                result = connection.request(
                    lambda c: c.call_tool(self.remote.name, args, read_timeout_seconds=math.inf),
                    timeout=ctx.seconds_left(self.connection.config.timeout),
                )
        except McpUnavailable as e:
            raise ToolError(
                f"{e}; it will be restarted on next use. The call was not repeated: it may or "
                "may not have taken effect",
                retryable=True,
            ) from None
        except MCPError as e:
            raise ToolError(
                f"MCP server {self.connection.config.name!r} refused: {e}", retryable=False
            ) from None
        if result.is_error:
            raise ToolError(str(result_data(result)), retryable=True)
        return json.dumps(result_data(result), ensure_ascii=False)
