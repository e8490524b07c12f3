"""Who may write to the device service: the holder of its service token, who also says for whom it writes.

Reads are open: model codes and market names are no secrets, and the agent's queries, MCP resources and the
page read them. A write (POST, PATCH, DELETE) needs `Authorization: Bearer <token>`; without it, a 401 in the
service's error body, and nothing is written. The token holder (the agent's host) vouches for the person: its
`X-On-Behalf-Of` header is the record's `createdBy`. A service built with no token (`token=None`: a test's,
inside one process) is open, as it was before.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request

from devicedb.responses import rejection

TOKEN_ENV = "DEVICE_TOKEN"
TOKEN_FILE = "devicedb.token"  # made when DEVICE_TOKEN is unset; data/ and *.token are in .gitignore
ON_BEHALF = "X-On-Behalf-Of"  # the person a token holder writes for: the record's createdBy
SCHEME = "serviceToken"
_READS = ("GET", "HEAD", "OPTIONS")


class WriteGate:
    """ASGI middleware: a write without the service token is a 401 (WWW-Authenticate: Bearer)."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app, self.token = app, token

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] in _READS or self.token is None:
            return await self.app(scope, receive, send)
        given = dict(scope["headers"]).get(b"authorization", b"")
        if hmac.compare_digest(given, b"Bearer " + self.token.encode()):
            return await self.app(scope, receive, send)
        refused = rejection(
            401,
            "Authorization",
            f"a write needs the service token: Authorization: Bearer <{TOKEN_ENV}>",
            {"WWW-Authenticate": 'Bearer realm="devicedb"'},
        )
        return await refused(scope, receive, send)


def created_by(request: Request, written: str | None, token: str | None) -> str | None:
    """The record's createdBy: the person the token holder vouches for; the body's only on an open service."""
    vouched = request.headers.get(ON_BEHALF)
    if token is None:
        return vouched or written
    return vouched.strip() if vouched and vouched.strip() else written


def service_token(database: str | Path, data: Path = Path("data")) -> tuple[str, str]:
    """(token, where it is): DEVICE_TOKEN, else the one kept beside a SQLite database, or in the `data` folder
    for a Postgres one; made on first use, the owner's only (0600 from the start)."""
    if os.environ.get(TOKEN_ENV):
        return os.environ[TOKEN_ENV], f"${TOKEN_ENV}"
    where = (data if "://" in str(database) else Path(database).parent) / TOKEN_FILE
    if not where.exists():
        where.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(where, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
    return where.read_text().strip(), str(where.resolve())


def document(app: FastAPI) -> None:
    """OpenAPI states the scheme: a bearer token on every operation that writes, and its 401."""
    schema = app.openapi()
    schema.setdefault("components", {}).setdefault("securitySchemes", {})[SCHEME] = {
        "type": "http",
        "scheme": "bearer",
        "description": f"the service token ({TOKEN_ENV}); the person written for in {ON_BEHALF}",
    }
    unauthorized = {"$ref": "#/components/schemas/Rejection"}
    for path in schema["paths"].values():
        for method, operation in path.items():
            if method.upper() not in _READS:
                operation["security"] = [{SCHEME: []}]
                operation["responses"]["401"] = {
                    "description": "No service token, or a wrong one",
                    "content": {"application/json": {"schema": unauthorized}},
                }
