"""The device models as MCP resources of our server: a list, the `devicedb://models/{model}` template,
completion of a model code, and which tools change them.

Served from the device service's HTTP API through the tools' own client (`DeviceService`), so the server
reads the same database the tools write. Completion of a `model` argument — of the template, or of one of
our prompts — suggests the codes the database holds.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from app.mcp_server.resources import Reference
from app.mcp_server.tasks import TASKS
from tools.device_service import MODEL_URIS, DeviceService

SCHEME = MODEL_URIS.removesuffix("{model}")
# the resources a tool's successful run changes (tool name -> URIs or URI templates): what the server
# tells its listeners after the call
CHANGES = {
    "add_device_model": (MODEL_URIS,),
    "update_market_name": (MODEL_URIS,),
    "delete_device_model": (MODEL_URIS,),
}


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
        model = uri.removeprefix(SCHEME) if uri.startswith(SCHEME) else ""
        record = self.service.get(model) if model else None
        if record is None:
            return None
        text = json.dumps(record, ensure_ascii=False)
        return types.TextResourceContents(uri=uri, mime_type="application/json", text=text)

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
