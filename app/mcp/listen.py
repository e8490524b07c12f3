"""List changes of a 2026-07-28 server: a subscriptions/listen stream, open as long as the connection is.

The revision has no session to carry `notifications/tools/list_changed`: the client asks for the
changes it cares about on a stream of their own. What arrives only marks the lists as changed; the
toolset lists them again before the next turn, and new or changed tools wait for the person, as with a
server of the 2025 revisions. A stream that ends is opened again (no event is replayed, so the lists
are then marked changed, to be fetched afresh); a server that does not offer the stream has no news.
"""

from __future__ import annotations

from collections.abc import Callable

import anyio
from mcp import Client
from mcp.client.subscriptions import ResourcesListChanged, SubscriptionLost, ToolsListChanged
from mcp.shared.exceptions import MCPError

Changed = Callable[[bool, bool], None]  # (tools changed, resources changed)
AGAIN_S = 1.0  # seconds before a lost stream is opened again


async def listen_for_changes(client: Client, changed: Changed) -> None:
    """Mark `changed` on every list change of `client`'s server, until the task is cancelled."""
    capabilities = client.server_capabilities
    tools = bool(capabilities.tools and capabilities.tools.list_changed)
    resources = bool(capabilities.resources and capabilities.resources.list_changed)
    if not (tools or resources):
        return
    first = True
    while True:
        try:
            async with client.listen(tools_list_changed=tools, resources_list_changed=resources) as stream:
                if not first:
                    changed(tools, resources)  # what happened while no stream was open is unknown
                first = False
                async for event in stream:
                    changed(isinstance(event, ToolsListChanged), isinstance(event, ResourcesListChanged))
        except MCPError:
            return  # refused: this server tells no changes
        except (SubscriptionLost, TimeoutError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        await anyio.sleep(AGAIN_S)
