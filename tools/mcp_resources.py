"""The device models as MCP resources: a list, the `devicedb://models/{model}` template, and completion.

The tutorial's first MCP capability, Resources ("资源：让模型读取的数据"), served from the device service's
HTTP API at ADD_MODEL_URL (GET /api/models?q=&limit=&offset= and GET /api/models/{model}), so the server
reads the same database the tools write. Completion of a `model` argument (of the template or of a
prompt) suggests the codes the database holds. A module may add text resources beside them
(`TextResource`, see `--with-fixtures`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import anyio
import mcp_types as types
import requests
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate

from agent.llm.transport import session_for
from tools.mcp_prompts import PROMPTS

SCHEME = "devicedb://models/"
TEMPLATE = SCHEME + "{model}"
RESOURCE_NOT_FOUND = -32002  # the spec's code for a resource that does not exist
PAGE = 100  # resources per resources/list page; also the spec's cap on completion values


class DeviceCatalog:
    """Read-only access to the device service for resources and completion (blocking; run in a thread)."""

    def __init__(self, models_url: str, timeout: float = 10.0) -> None:
        self.models_url = models_url.rstrip("/")
        self._http = session_for(models_url)
        self._timeout = timeout

    def search(self, q: str = "", limit: int = PAGE, offset: int = 0) -> tuple[list[dict[str, Any]], int]:
        body = self._get("", params={"q": q, "limit": limit, "offset": offset})
        return body["items"], body["total"]

    def get(self, model: str) -> dict[str, Any] | None:
        try:
            return self._get(f"/{quote(model, safe='')}")
        except LookupError:
            return None

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        try:
            resp = self._http.get(self.models_url + path, params=params, timeout=self._timeout)
        except requests.RequestException as e:
            reason = f"the device service is unreachable: {type(e).__name__}"
            raise MCPError(types.INTERNAL_ERROR, reason) from None
        if resp.status_code == 404:
            raise LookupError(path)
        if resp.status_code >= 400:
            raise MCPError(types.INTERNAL_ERROR, f"the device service failed (HTTP {resp.status_code})")
        return resp.json()


def resource_of(record: dict[str, Any]) -> types.Resource:
    english = record.get("marketNameEn") or record.get("marketName")
    return types.Resource(
        uri=SCHEME + record["model"],
        name=record["model"],
        title=record.get("marketName") or None,
        description=f"device model {record['model']}: {english}",
        mime_type="application/json",
    )


@dataclass(frozen=True)
class TextResource:
    """A text resource served beside the device models: at one URI, or at every URI of a template
    (RFC 6570, e.g. `notes://{topic}`), whose variables `text` receives as keyword arguments."""

    uri: str
    name: str
    description: str
    mime_type: str
    text: Callable[..., str]

    @property
    def is_template(self) -> bool:
        return bool(UriTemplate.parse(self.uri).variable_names)

    def listed(self) -> types.Resource:
        return types.Resource(
            uri=self.uri, name=self.name, description=self.description, mime_type=self.mime_type
        )

    def listed_template(self) -> types.ResourceTemplate:
        return types.ResourceTemplate(
            uri_template=self.uri, name=self.name, description=self.description, mime_type=self.mime_type
        )

    def read(self, uri: str) -> types.TextResourceContents | None:
        variables = UriTemplate.parse(self.uri).match(uri)
        if variables is None:
            return None
        return types.TextResourceContents(uri=uri, mime_type=self.mime_type, text=self.text(**variables))


class DeviceResources:
    """The resource and completion handlers of the server: the device models over a DeviceCatalog, and
    the `extra` text resources a module adds (listed first)."""

    def __init__(self, catalog: DeviceCatalog, extra: Sequence[TextResource] = ()) -> None:
        self.catalog = catalog
        self.extra = tuple(extra)

    async def list_resources(self, ctx: object, params: types.PaginatedRequestParams | None) -> Any:
        offset = int(params.cursor) if params and params.cursor and params.cursor.isdigit() else 0
        items, total = await anyio.to_thread.run_sync(self.catalog.search, "", PAGE, offset)
        following = offset + len(items)
        extra = [r.listed() for r in self.extra if not r.is_template] if offset == 0 else []
        return types.ListResourcesResult(
            resources=extra + [resource_of(r) for r in items],
            next_cursor=str(following) if following < total else None,
        )

    async def list_templates(self, ctx: object, params: object) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(
            uri_template=TEMPLATE,
            name="device-model",
            title="Device model",
            description="One device model of the database by its code, e.g. devicedb://models/CPH2223",
            mime_type="application/json",
        )
        extra = [r.listed_template() for r in self.extra if r.is_template]
        return types.ListResourceTemplatesResult(resource_templates=[template, *extra])

    async def read(self, ctx: object, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        contents = await self._read_model(uri) if uri.startswith(SCHEME) else self._read_extra(uri)
        if contents is None:
            raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        return types.ReadResourceResult(contents=[contents])

    async def _read_model(self, uri: str) -> types.TextResourceContents | None:
        model = uri.removeprefix(SCHEME)
        record = await anyio.to_thread.run_sync(self.catalog.get, model) if model else None
        if record is None:
            return None
        text = json.dumps(record, ensure_ascii=False)
        return types.TextResourceContents(uri=uri, mime_type="application/json", text=text)

    def _read_extra(self, uri: str) -> types.TextResourceContents | None:
        return next((found for r in self.extra if (found := r.read(uri)) is not None), None)

    async def complete(self, ctx: object, params: types.CompleteRequestParams) -> types.CompleteResult:
        """Codes of the database for a `model` argument of our template or prompts; nothing for the rest."""
        ref, argument = params.ref, params.argument
        if isinstance(ref, types.ResourceTemplateReference):
            ours = ref.uri == TEMPLATE
        else:
            ours = ref.name in PROMPTS
        if not ours or argument.name != "model":
            return types.CompleteResult(completion=types.Completion(values=[]))
        items, total = await anyio.to_thread.run_sync(self.catalog.search, argument.value, PAGE, 0)
        values = [r["model"] for r in items]
        return types.CompleteResult(
            completion=types.Completion(values=values, total=total, has_more=total > len(values))
        )
