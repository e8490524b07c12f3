"""The device-model HTTP service (FastAPI): add, look up, search, rename and delete phone model codes.

Every refusal is a 4xx whose JSON body names the field and the rule broken (responses.py), and writes
nothing; a 405 names every method the path allows; HEAD works wherever GET does. A database that does
not answer within a few seconds is a 503 in the same body, with Retry-After.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import FastAPI, Header, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AfterValidator
from starlette.exceptions import HTTPException
from starlette.routing import Match

from devicedb.auth import WriteGate, created_by, document
from devicedb.middleware import BodyGate, HeadAsGet
from devicedb.responses import (
    ADD_RESPONSES,
    DELETE_RESPONSES,
    GET_RESPONSES,
    SEARCH_RESPONSES,
    UPDATE_RESPONSES,
    AddResult,
    ModelOut,
    rejection,
)
from devicedb.schema import (
    CODE_PATTERN,
    TEXT_PATTERN,
    MarketNamesIn,
    ModelIn,
    check_display_text,
    code_problem,
    normalize_code,
)
from devicedb.store import DeviceStore, IdempotencyConflict, NoSuchModel
from plumbing import telemetry
from plumbing.sql import DatabaseUnavailable

MAX_BODY_BYTES = 64 * 1024
MAX_OFFSET = 2**63 - 1  # the largest OFFSET SQLite and Postgres take
ModelCode = Annotated[
    str, Path(description="机型代码，例如 CPH2223 或 CPH2223IN", json_schema_extra={"pattern": CODE_PATTERN})
]
SearchText = Annotated[
    str,
    Query(
        max_length=100,
        description="code or market-name fragment",
        json_schema_extra={"pattern": TEXT_PATTERN},
    ),
    AfterValidator(check_display_text),
]


def create_app(store: DeviceStore, token: str | None = None) -> FastAPI:
    """The service; `token`: the service token every write needs (auth.py; None: writes are open)."""
    app = FastAPI(title="devicedb", description="Phone model codes behind ADD_MODEL_URL", version="2")
    app.add_middleware(BodyGate, max_bytes=MAX_BODY_BYTES)
    app.add_middleware(WriteGate, token=token)
    app.add_middleware(HeadAsGet)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(DatabaseUnavailable, _database_down)

    @app.post(
        "/api/models",
        status_code=201,
        response_model=AddResult,
        responses=ADD_RESPONSES,
        operation_id="addModel",
    )
    def add_model(
        request: Request, body: ModelIn, idempotency_key: Annotated[str | None, Header(max_length=200)] = None
    ) -> Any:
        record = {**body.model_dump(), "createdBy": created_by(request, body.createdBy, token)}
        body_hash = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
        try:
            status, response = store.add(record, idempotency_key, body_hash)
        except IdempotencyConflict:
            return rejection(409, "Idempotency-Key", "this key was already used with a different body")
        return JSONResponse(response, status_code=status)

    @app.get("/api/models/{model}", responses=GET_RESPONSES, operation_id="getModel")
    def get_model(model: ModelCode) -> Any:
        code = normalize_code(model)
        record = store.get(code) if code else None
        return record or _no_such_model(model, code)

    @app.patch(
        "/api/models/{model}", response_model=ModelOut, responses=UPDATE_RESPONSES, operation_id="updateModel"
    )
    def update_model(
        model: ModelCode,
        body: MarketNamesIn,
        idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
    ) -> Any:
        code = normalize_code(model)
        if not code:
            return _no_such_model(model, code)
        changes = body.changes()
        request = json.dumps({"PATCH": code, **changes}, sort_keys=True)  # never a POST's body
        try:
            return store.update(code, changes, idempotency_key, hashlib.sha256(request.encode()).hexdigest())
        except IdempotencyConflict:
            return rejection(409, "Idempotency-Key", "this key was already used with a different body")
        except NoSuchModel:
            return _no_such_model(model, code)

    @app.delete("/api/models/{model}", responses=DELETE_RESPONSES, operation_id="deleteModel")
    def delete_model(model: ModelCode) -> Any:
        code = normalize_code(model)
        if not code or not store.delete(code):
            return _no_such_model(model, code)
        return {"model": code, "deleted": True}

    @app.get("/api/models", responses=SEARCH_RESPONSES, operation_id="searchModels")
    def search_models(
        q: SearchText = "",
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
    ) -> Any:
        code = normalize_code(q)
        items, total = store.search(q, code or q, limit, offset)
        return {"items": items, "total": total}

    if token is not None:
        document(app)
    telemetry.instrument(app)
    return app


def _no_such_model(raw: str, code: str | None) -> JSONResponse:
    if code is None:
        return rejection(404, "model", f"{raw[:40]!r} is not a model code: {code_problem(raw[:40])}")
    return rejection(404, "model", f"no model {code!r} in the database")


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
