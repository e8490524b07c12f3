"""The device service's routes: reading (look up one model, search) and writing (add, rename, delete),
over the store; every refusal is a 4xx in the service's error body (responses.py). They are added to the
app itself, not through an APIRouter: FastAPI keeps an included router's routes out of the app's own
list, where a 405 finds the methods a path allows (app.py)."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any

from fastapi import FastAPI, Header, Path, Query, Request
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, Field

from devicedb.auth import created_by
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
    PAGE_MOST,
    TEXT_PATTERN,
    MarketNamesIn,
    ModelIn,
    check_display_text,
    code_problem,
    normalize_code,
    to_code,
)
from devicedb.store import DeviceStore, IdempotencyConflict, NoSuchModel

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
Code = Annotated[str, Field(json_schema_extra={"pattern": CODE_PATTERN}), AfterValidator(to_code)]
Codes = Annotated[
    list[Code] | None,
    Query(
        max_length=PAGE_MOST,
        description="only these model codes (repeat the parameter, at most 100): many records in one request",
    ),
]


def add_writes(app: FastAPI, store: DeviceStore, token: str | None) -> None:
    """Add, rename and delete; `token`: the service token, whose holder may name the creator (auth.py)."""

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


def add_reads(app: FastAPI, store: DeviceStore) -> None:
    """Look up one model, and search by code or market-name fragment, among given codes if named."""

    @app.get("/api/models/{model}", responses=GET_RESPONSES, operation_id="getModel")
    def get_model(model: ModelCode) -> Any:
        code = normalize_code(model)
        record = store.get(code) if code else None
        return record or _no_such_model(model, code)

    @app.get("/api/models", responses=SEARCH_RESPONSES, operation_id="searchModels")
    def search_models(
        q: SearchText = "",
        limit: Annotated[int, Query(ge=1, le=PAGE_MOST)] = 20,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
        model: Codes = None,
    ) -> Any:
        code = normalize_code(q)
        items, total = store.search(q, code or q, limit, offset, among=model or ())
        near = store.one_edit_from(code) if code and not total else []
        return {"items": items, "total": total, **({"didYouMean": near} if near else {})}


def _no_such_model(raw: str, code: str | None) -> JSONResponse:
    if code is None:
        return rejection(404, "model", f"{raw[:40]!r} is not a model code: {code_problem(raw[:40])}")
    return rejection(404, "model", f"no model {code!r} in the database")
