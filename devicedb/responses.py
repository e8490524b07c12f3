"""What the device service answers: the records, the one error body, and each route's declared responses.

Every refusal is `{"error": "<field>: <rule>", "field": ..., "rule": ...}` with a 4xx status. The
declarations below feed the OpenAPI document, links included, so a client (or a fuzzer) knows every
status a route can answer and what follows a successful add.
"""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel


class Rejection(BaseModel):
    """Why a request was refused; nothing was written."""

    error: str
    field: str
    rule: str


class ModelOut(BaseModel):
    model: str
    marketName: str
    marketNameEn: str | None
    createdAt: str
    createdBy: str | None


class AddResult(ModelOut):
    created: bool


class Page(BaseModel):
    items: list[ModelOut]
    total: int
    # a search that matched nothing: the stored codes one edit (a character dropped, added, changed or two
    # swapped) from the code searched for, which the person may have meant
    didYouMean: list[str] = []


class Deleted(BaseModel):
    model: str
    deleted: bool


def rejection(status: int, field: str, rule: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(
        {"error": f"{field}: {rule}", "field": field, "rule": rule}, status_code=status, headers=headers
    )


_THIS_MODEL = {"model": "$response.body#/model"}
_LINKS_FROM_RECORD = {
    "GetModel": {"operationId": "getModel", "parameters": _THIS_MODEL},
    "UpdateModel": {"operationId": "updateModel", "parameters": _THIS_MODEL},
    "DeleteModel": {"operationId": "deleteModel", "parameters": _THIS_MODEL},
}


def _refused(description: str) -> dict[str, Any]:
    return {"model": Rejection, "description": description}


_INVALID: dict[int | str, dict[str, Any]] = {
    422: _refused("A parameter or a field breaks its rule (named in the body)")
}

ADD_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": AddResult,
        "description": "It existed already: `created` is false",
        "links": _LINKS_FROM_RECORD,
    },
    201: {
        "model": AddResult,
        "description": "Added (or an idempotent replay of the add)",
        "links": _LINKS_FROM_RECORD,
    },
    400: _refused("The body is not UTF-8 JSON the service can read"),
    409: _refused("The Idempotency-Key was used with a different body"),
    413: _refused("The body is larger than 64 KiB"),
    **_INVALID,
}
GET_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": ModelOut,
        "description": "The record",
        "links": {"DeleteModel": _LINKS_FROM_RECORD["DeleteModel"]},
    },
    404: _refused("No such model (or not a model code)"),
    **_INVALID,
}
UPDATE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": ModelOut,
        "description": "The record with its new market names (or an idempotent replay of the change)",
        "links": {"GetModel": _LINKS_FROM_RECORD["GetModel"]},
    },
    400: _refused("The body is not UTF-8 JSON the service can read"),
    404: _refused("No such model (or not a model code)"),
    409: _refused("The Idempotency-Key was used with a different body"),
    413: _refused("The body is larger than 64 KiB"),
    **_INVALID,
}
DELETE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": Deleted, "description": "Deleted, with the idempotency keys that answered for it"},
    404: _refused("No such model (or not a model code)"),
    **_INVALID,
}
SEARCH_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": Page, "description": "One page of matches, by code"},
    **_INVALID,
}
