"""The conformance suite's client under test: this project's MCP client (app/mcp), driven per scenario.

`conformance client --command "python conformance/client_driver.py"` starts a test server for each
scenario and runs this with its URL as the last argument, the scenario in MCP_CONFORMANCE_SCENARIO and
credentials, when a scenario has some, in MCP_CONFORMANCE_CONTEXT. The person is scripted: questions
are answered as with `--yes` (forms accepted with their defaults), and the "browser" that opens the
authorization page follows its redirects to the client's own loopback callback. The person approves
the server's tools when asked, as at the chat's first turn.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

import httpx2
import mcp_types as types

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent.tools import ToolRegistry  # noqa: E402
from agent.types import ToolContext  # noqa: E402
from app.mcp.client import Person, ServerConfig  # noqa: E402
from app.mcp.elicitation import Answer, with_defaults  # noqa: E402
from app.mcp.toolset import McpToolset  # noqa: E402

CALLS = {  # scenario -> the tool it wants called, with arguments
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
    "sse-retry": ("test_reconnection", {}),
}


async def browser(url: str) -> None:
    """Open the authorization page as a browser would: follow redirects, to our callback at the end."""
    async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as http:
        await http.get(url)


CIMD_URL = "https://conformance-test.local/client-metadata.json"  # the document the suite's server knows


def oauth_settings(scenario: str, context: dict, data: Path) -> dict:
    """The server's `"oauth"` entry, as a user would write it for the scenario's authorization server."""
    settings: dict = {"callback_port": 0, "client_metadata_url": CIMD_URL}
    if context.get("client_id"):
        settings |= {"client_id": context["client_id"], "client_secret": context.get("client_secret")}
    if context.get("private_key_pem"):
        (data / "client-key.pem").write_text(context["private_key_pem"])
        settings |= {"private_key_file": str(data / "client-key.pem")}
        settings |= {"signing_algorithm": context.get("signing_algorithm", "ES256")}
    if scenario.startswith("auth/client-credentials"):
        settings["grant"] = "client_credentials"
    return settings


def takes_the_defaults(server: str, request: types.ElicitRequestParams) -> Answer:
    """The person of these runs: a form is sent back with its defaults (the suite checks that a client
    applies them); one with a required field and no default, or a page to open, is declined."""
    if isinstance(request, types.ElicitRequestFormParams):
        content = with_defaults(dict(request.requested_schema))
        if content is not None:
            return "accept", content
    return "decline", None


def main() -> int:
    url, scenario = sys.argv[-1], os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    data = Path(tempfile.mkdtemp(prefix="mcp-conformance-"))  # the token file of this run only
    oauth = oauth_settings(scenario, context, data)
    config = ServerConfig(name="conformance", url=url, timeout=20, oauth=oauth)
    registry, reports = ToolRegistry(confirm=lambda *call: True), []
    person = Person(ask=takes_the_defaults, open_url=browser)
    with McpToolset([config], registry, data, reports.append, person) as toolset:
        toolset.sync(lambda server, lines: True)  # the person approves what the server offers
        if reports:
            print("\n".join(reports), file=sys.stderr)
            return 1
        tool, args = CALLS.get(scenario, (None, {}))
        offered = [t.name for t in registry.tools()]
        if tool is None and offered and scenario.startswith("auth/"):
            tool = offered[0].removeprefix("conformance__")
        if tool is not None:
            call = {"name": f"conformance__{tool}", "args": args, "id": "c1"}
            print(registry.execute_tool_call(ToolContext(user_id="conformance"), call))
    return 0


if __name__ == "__main__":
    sys.exit(main())
