"""The device-model HTTP service (FastAPI): add, look up and search phone model codes.

Every rejection is a 4xx whose JSON body names the field and the rule broken, and writes nothing.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from devicedb.schema import CODE_PATTERN, ModelIn, normalize_code
from devicedb.store import DeviceStore, IdempotencyConflict

MAX_BODY_BYTES = 64 * 1024


def create_app(store: DeviceStore) -> FastAPI:
    app = FastAPI(title="devicedb", description="Phone model codes behind ADD_MODEL_URL")
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.add_exception_handler(RequestValidationError, _validation_error)

    @app.post("/api/models", status_code=201)
    def add_model(
        body: ModelIn, idempotency_key: Annotated[str | None, Header(max_length=200)] = None
    ) -> Any:
        record = body.model_dump()
        body_hash = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()
        try:
            status, response = store.add(record, idempotency_key, body_hash)
        except IdempotencyConflict:
            return rejection(409, "Idempotency-Key", "this key was already used with a different body")
        return JSONResponse(response, status_code=status)

    @app.get("/api/models/{model}")
    def get_model(model: str) -> Any:
        record = store.get(normalize_code(model))
        return record or rejection(404, "model", f"no model {normalize_code(model)!r} in the database")

    @app.delete("/api/models/{model}")
    def delete_model(model: str) -> Any:
        code = normalize_code(model)
        if not store.delete(code):
            return rejection(404, "model", f"no model {code!r} in the database")
        return {"model": code, "deleted": True}

    @app.get("/api/models")
    def search_models(
        q: Annotated[str, Query(max_length=100)] = "",
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
        offset: Annotated[int, Query(ge=0)] = 0,
    ) -> Any:
        code = normalize_code(q)
        items, total = store.search(q.strip(), code if CODE_PATTERN.match(code) else q.strip(), limit, offset)
        return {"items": items, "total": total}

    return app


def rejection(status: int, field: str, rule: str) -> JSONResponse:
    return JSONResponse({"error": f"{field}: {rule}", "field": field, "rule": rule}, status_code=status)


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    first = exc.errors()[0]
    if first["type"] == "json_invalid":
        return rejection(400, "body", f"malformed JSON: {first.get('ctx', {}).get('error', first['msg'])}")
    field = ".".join(str(p) for p in first["loc"] if p != "body") or "body"
    return rejection(422, field, first["msg"].removeprefix("Value error, "))


class BodyLimit:
    """ASGI middleware: refuse request bodies over `max_bytes`, declared or streamed, with 413."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.max_bytes:
            return await self._refuse(scope, receive, send)
        body, more = bytearray(), True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                return await self._refuse(scope, receive, send)
        return await self.app(scope, _replay(bytes(body), receive), send)

    async def _refuse(self, scope: dict, receive: Any, send: Any) -> None:
        response = rejection(413, "body", f"larger than {self.max_bytes} bytes")
        await response(scope, receive, send)


def _replay(body: bytes, receive: Any) -> Any:
    """A `receive` that hands the already-read body over once, then waits on the real connection."""
    sent = False

    async def replay() -> dict:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
