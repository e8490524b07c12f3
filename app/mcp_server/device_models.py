"""The device models as MCP resources of our server: a list, the `devicedb://models/{model}` template,
completion of a model code, and which tools change them.

Served from the device service's HTTP API through the tools' own client (`DeviceService`), so the server
reads the same database the tools write. Completion of a `model` argument — of the template, or of one of
our prompts — suggests the codes the database holds. A model's URI may be spelled in many ways (the
scheme's and the authority's case, percent-encoding, and every way the device service accepts a code:
case, hyphens and spaces, region suffixes); all of them name one resource, `devicedb://models/<stored
code>`, its canonical URI, and many are read in one request (`DeviceService.lookup`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

import mcp_types as types

from app.mcp_server.resources import Reference
from app.mcp_server.tasks import TASKS
from devicedb.schema import normalize_code
from tools.device_service import MODEL_URIS, DeviceService

SCHEME = MODEL_URIS.removesuffix("{model}")
# the resources a tool's successful run changes (tool name -> URIs or URI templates): what the server
# tells its listeners after the call
CHANGES = {
    "add_device_model": (MODEL_URIS,),
    "update_market_name": (MODEL_URIS,),
    "delete_device_model": (MODEL_URIS,),
}


def model_code(uri: str) -> str | None:
    """The stored code of the model `uri` names, however it is spelled; None when it names no model."""
    parts = urlsplit(uri)
    ours = (parts.scheme.lower(), parts.netloc.lower()) == ("devicedb", "models")
    if not ours or parts.query or parts.fragment:
        return None
    return normalize_code(unquote(parts.path.removeprefix("/")))


def resource_of(record: dict[str, Any]) -> types.Resource:
    english = record.get("marketNameEn") or record.get("marketName")
    return types.Resource(
        uri=SCHEME + record["model"],
        name=record["model"],
        title=record.get("marketName") or None,
        description=f"device model {record['model']}: {english}",
        mime_type="application/json",
    )


class DeviceModels:
    """A ResourceSource (`app/mcp_server/resources.py`): the device models of the service at `service`."""

    def __init__(self, service: DeviceService) -> None:
        self.service = service

    def templates(self) -> list[types.ResourceTemplate]:
        return [
            types.ResourceTemplate(
                uri_template=MODEL_URIS,
                name="device-model",
                title="Device model",
                description="One device model of the database by its code, e.g. devicedb://models/CPH2223",
                mime_type="application/json",
            )
        ]

    def page(self, offset: int, size: int) -> tuple[list[types.Resource], int]:
        found = self.service.search("", size, offset)
        return [resource_of(r) for r in found["items"]], found["total"]

    def read(self, uri: str) -> types.TextResourceContents | None:
        code = model_code(uri)
        record = self.service.get(code) if code else None
        if record is None:
            return None
        return types.TextResourceContents(uri=uri, mime_type="application/json", text=_text(record))

    def canonical(self, uri: str) -> str | None:
        code = model_code(uri)
        return SCHEME + code if code else None

    def texts(self, uris: Sequence[str]) -> dict[str, str]:
        """The models at these canonical URIs, in one request to the device service."""
        codes = {uri: uri.removeprefix(SCHEME) for uri in uris if uri.startswith(SCHEME)}
        found = self.service.lookup(list(codes.values()))
        return {uri: _text(found[code]) for uri, code in codes.items() if code in found}

    def complete(self, ref: Reference, argument: types.CompletionArgument) -> tuple[list[str], int] | None:
        """Codes of the database for a `model` argument of our template or prompts; None for the rest."""
        if isinstance(ref, types.ResourceTemplateReference):
            ours = ref.uri == MODEL_URIS
        else:
            ours = ref.name in TASKS
        if not ours or argument.name != "model":
            return None
        found = self.service.search(argument.value, 100, 0)
        return [r["model"] for r in found["items"]], found["total"]


def _text(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)
