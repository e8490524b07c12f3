"""OAuth 2.1 for MCP servers over HTTP, on the SDK's client auth: tokens in a file only the user can read.

A server that answers 401 starts the SDK's flow (metadata discovery, client registration, PKCE): the
person opens the authorization page, the browser comes back to a one-shot loopback callback here, and
the tokens are kept in `data/mcp-tokens.json` (mode 0600) for the next runs, refreshed by the SDK.
A server's `"oauth"` entry may name a pre-registered client (`client_id`, `client_secret`), a client ID
metadata document (`client_metadata_url`), `scope`, `callback_port`, or, for a machine with no person,
the client-credentials grant (`"grant": "client_credentials"` with a secret or a `private_key_file`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import anyio
from mcp.client.auth import OAuthClientProvider
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)

from agent.types import NeedsAuthorization

OpenUrl = Callable[[str], Awaitable[None]]  # show the person the authorization page (or, in tests, visit it)
SIGN_IN_SECONDS = 300


class TokenFile:
    """The SDK's TokenStorage for one server, in a JSON file shared by all servers, written 0600."""

    def __init__(self, path: Path, server_url: str, client: OAuthClientInformationFull | None = None) -> None:
        self.path, self.key, self.client = path, server_url, client  # a configured client wins

    def _entry(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.path.read_text(encoding="utf-8")).get(self.key) or {})
        except (OSError, ValueError):
            return {}

    def _save(self, field: str, value: dict[str, Any]) -> None:
        try:
            everything = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            everything = {}
        everything.setdefault(self.key, {})[field] = value
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".tmp")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(everything, f, indent=1)
        os.chmod(partial, 0o600)  # an older file may have been created with wider bits
        os.replace(partial, self.path)

    async def get_tokens(self) -> OAuthToken | None:
        saved = self._entry().get("tokens")
        return OAuthToken.model_validate(saved) if saved else None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self._save("tokens", tokens.model_dump(mode="json", exclude_none=True))

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        saved = self._entry().get("client")
        return self.client or (OAuthClientInformationFull.model_validate(saved) if saved else None)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._save("client", client_info.model_dump(mode="json", exclude_none=True))


class LoopbackCallback:
    """The redirect URI: http://127.0.0.1:PORT/callback, serving the one request that carries the code."""

    def __init__(self, port: int) -> None:
        self._result: AuthorizationCodeResult | None = None
        self._arrived = threading.Event()
        self._port, self._server = port, self._listen(port) if port == 0 else None  # 0: bind now, to know it
        self.url = f"http://127.0.0.1:{self._server.server_port if self._server else port}/callback"

    def _listen(self, port: int) -> HTTPServer:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = {k: v[0] for k, v in parse_qs(urlparse(self.path).query).items()}
                if "code" in query:
                    outer._result = AuthorizationCodeResult(
                        code=query["code"], state=query.get("state"), iss=query.get("iss")
                    )
                outer._arrived.set()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; charset=utf-8")
                self.end_headers()
                self.wfile.write("授权完成，可以关闭此页 / Authorized: you may close this page.".encode())

            def log_message(self, *args: Any) -> None:
                pass

        return HTTPServer(("127.0.0.1", port), Handler)

    def opening(self, open_url: OpenUrl) -> OpenUrl:
        """The redirect handler: listen for the browser's return, then show the page."""

        async def redirect(url: str) -> None:
            self._server = self._server or self._listen(self._port)
            threading.Thread(target=self._server.handle_request, daemon=True).start()
            await open_url(url)

        return redirect

    async def wait(self) -> AuthorizationCodeResult:
        arrived = await anyio.to_thread.run_sync(self._arrived.wait, SIGN_IN_SECONDS)
        if self._server is not None:
            self._server.server_close()
        if not arrived or self._result is None:
            raise NeedsAuthorization("the authorization page did not come back with a code")
        return self._result


def oauth_provider(url: str, settings: dict[str, Any], tokens: Path, open_url: OpenUrl) -> Any:
    """The SDK's provider for a server of `url`, configured by its `"oauth"` entry."""
    if settings.get("grant") == "client_credentials" and settings.get("private_key_file"):
        return _signed_jwt_provider(url, settings, TokenFile(tokens, url))
    if settings.get("grant") == "client_credentials":
        return ClientCredentialsOAuthProvider(
            url,
            TokenFile(tokens, url),
            settings["client_id"],
            settings["client_secret"],
            settings.get("token_endpoint_auth_method", "client_secret_basic"),
            scope=settings.get("scope"),
        )
    callback = LoopbackCallback(int(settings.get("callback_port", 33418)))
    metadata = OAuthClientMetadata(
        client_name="tool-use-agent",
        redirect_uris=[callback.url],  # type: ignore[list-item]
        grant_types=["authorization_code", "refresh_token"],
        scope=settings.get("scope"),
    )
    storage = TokenFile(tokens, url, _registered_client(settings, callback.url))
    return OAuthClientProvider(
        url,
        metadata,
        storage,
        callback.opening(open_url),
        callback.wait,
        client_metadata_url=settings.get("client_metadata_url"),
    )


def _signed_jwt_provider(url: str, settings: dict[str, Any], storage: TokenFile) -> Any:
    """Client credentials proven by a JWT signed with the client's private key (RFC 7523)."""
    signer = SignedJWTParameters(
        issuer=settings["client_id"],
        subject=settings["client_id"],
        signing_key=Path(settings["private_key_file"]).read_text(encoding="utf-8"),
        signing_algorithm=settings.get("signing_algorithm", "RS256"),
    )
    return PrivateKeyJWTOAuthProvider(
        url, storage, settings["client_id"], signer.create_assertion_provider(), scope=settings.get("scope")
    )


def _registered_client(settings: dict[str, Any], redirect: str) -> OAuthClientInformationFull | None:
    """A client registered beforehand with the authorization server: no dynamic registration."""
    if not settings.get("client_id"):
        return None
    secret = settings.get("client_secret")
    return OAuthClientInformationFull(
        client_id=settings["client_id"],
        client_secret=secret,
        redirect_uris=[redirect],  # type: ignore[list-item]
        token_endpoint_auth_method=settings.get(
            "token_endpoint_auth_method", "client_secret_basic" if secret else "none"
        ),
    )
