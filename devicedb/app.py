"""The device-model HTTP service (FastAPI): add, look up, search, rename and delete phone model codes.

Every refusal is a 4xx whose JSON body names the field and the rule broken (responses.py), and writes
nothing; a 405 names every method the path allows; HEAD works wherever GET does. A database that does
not answer within a few seconds is a 503 in the same body, with Retry-After.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.routing import Match

from devicedb.auth import WriteGate, document
from devicedb.middleware import BodyGate, HeadAsGet
from devicedb.responses import rejection
from devicedb.routes import add_reads, add_writes
from devicedb.store import DeviceStore
from plumbing import telemetry
from plumbing.sql import DatabaseUnavailable

MAX_BODY_BYTES = 64 * 1024


def create_app(store: DeviceStore, token: str | None = None) -> FastAPI:
    """The service; `token`: the service token every write needs (auth.py; None: writes are open)."""
    app = FastAPI(
        title="devicedb",
        description="Phone model codes behind ADD_MODEL_URL",
        version="2",
        **telemetry.fastapi_options(FastAPI),
    )
    app.add_middleware(BodyGate, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(WriteGate, token=token)
    app.add_middleware(HeadAsGet)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(DatabaseUnavailable, _database_down)

    add_writes(app, store, token)
    add_reads(app, store)
    if token is not None:
        document(app)
    telemetry.instrument(app)
    return app


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return rejection(400, "body", f"malformed JSON: {first.get('ctx', {}).get('error', first['msg'])}")
    field = ".".join(str(p) for p in first["loc"][1:]) or str(first["loc"][0])
    return rejection(422, field, first["msg"].removeprefix("Value error, "))


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's own refusals (no such path, method not allowed) in the service's error body."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        allow = ", ".join(allowed_methods(request))
        return rejection(
            405, "method", f"{request.method} is not allowed here; allowed: {allow}", {"Allow": allow}
        )
    if exc.status_code == 404:
        return rejection(404, "path", f"no such endpoint: {request.url.path[:100]}")
    return rejection(exc.status_code, "request", str(exc.detail))


async def _database_down(request: Request, exc: Exception) -> JSONResponse:
    return rejection(503, "database", f"unavailable ({exc}); try again shortly", {"Retry-After": "5"})


def allowed_methods(request: Request) -> list[str]:
    """Every method some route takes at this path (Starlette names only the first route's), HEAD with GET."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= getattr(route, "methods", None) or set()
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)
