"""OAuth for HTTP MCP servers: tokens kept 0600, and one clear line when a server needs authorization
and no person can sign in. (The full flows are checked by `make conformance`, client mode.)"""

from __future__ import annotations

import json
import stat
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import anyio
import pytest
from mcp.shared.auth import OAuthToken

from agent.tools import ToolRegistry
from app.mcp.auth import TokenFile
from app.mcp.client import ServerConfig
from app.mcp.toolset import McpToolset


class Protected(BaseHTTPRequestHandler):
    """An MCP endpoint that wants a bearer token, with its authorization server's metadata."""

    def do_POST(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_port}"
        self.send_response(401)
        self.send_header(
            "WWW-Authenticate", f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource"'
        )
        self.end_headers()

    def do_GET(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_port}"
        documents = {
            "/.well-known/oauth-protected-resource": {
                "resource": f"{base}/mcp",
                "authorization_servers": [base],
            },
            "/.well-known/oauth-authorization-server": {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "code_challenge_methods_supported": ["S256"],
            },
        }
        body = documents.get(self.path.split("?")[0])
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body or {}).encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def protected_server():
    server = HTTPServer(("127.0.0.1", 0), Protected)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/mcp"
    server.shutdown()


def test_a_server_that_needs_authorization_says_so_in_one_line(tmp_path, protected_server):
    reports = []
    oauth = {"client_id": "pre-registered", "callback_port": 0}  # no registration endpoint: pre-registered
    config = ServerConfig(name="hosted", url=protected_server, timeout=10, oauth=oauth)
    with McpToolset([config], ToolRegistry(), tmp_path, reports.append) as mcp:
        assert mcp.tools == {}
    assert reports == [
        "MCP server 'hosted' skipped: MCP server 'hosted' needs authorization (OAuth): run `python main.py` "
        "in a terminal once to sign in; the tokens are then kept in data/mcp-tokens.json"
    ]


def test_static_credentials_that_are_refused_are_named(tmp_path, protected_server):
    reports = []
    config = ServerConfig(
        name="hosted", url=protected_server, timeout=10, headers={"Authorization": "Bearer old"}
    )
    with McpToolset([config], ToolRegistry(), tmp_path, reports.append):
        pass
    assert reports == [
        "MCP server 'hosted' skipped: MCP server 'hosted' "
        'refused the credentials of its "headers" (HTTP 401)'
    ]


def test_tokens_are_kept_in_a_file_only_the_user_can_read(tmp_path):
    path = tmp_path / "data" / "mcp-tokens.json"
    first, second = TokenFile(path, "https://a.example/mcp"), TokenFile(path, "https://b.example/mcp")

    async def save_and_load():
        await first.set_tokens(OAuthToken(access_token="A", refresh_token="RA", expires_in=60))
        await second.set_tokens(OAuthToken(access_token="B"))
        return await first.get_tokens(), await second.get_tokens(), await second.get_client_info()

    a, b, no_client = anyio.run(save_and_load)
    assert (a.access_token, a.refresh_token, b.access_token, no_client) == ("A", "RA", "B", None)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(json.loads(path.read_text())) == ["https://a.example/mcp", "https://b.example/mcp"]
