"""Resources of an MCP server: data a client's person may read into a conversation, and completion.

The tutorial's first MCP capability, Resources ("资源：让模型读取的数据"). `Resources` serves, for any
project, the resources of one `ResourceSource` (kept elsewhere, e.g. a database behind HTTP: listed by
page, read by URI) and any number of `TextResource`s written in code, listed first. A source that fails
answers the request with an MCP error; a URI nobody serves is the spec's "resource not found". For the
subscriptions' watch, a resource has one canonical URI however a client spells it (`canonical`), and many
are read at once (`texts`: one question to the source).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.shared.exceptions import MCPError
from mcp.shared.uri_template import UriTemplate

from agent.types import ToolError

RESOURCE_NOT_FOUND = -32002  # the spec's code for a resource that does not exist
PAGE = 100  # resources per resources/list page; also the spec's cap on completion values
Reference = types.ResourceTemplateReference | types.PromptReference


class ResourceSource(Protocol):
    """Resources kept elsewhere. Blocking calls (run in a worker thread); failures raise ToolError."""

    def templates(self) -> list[types.ResourceTemplate]: ...

    def page(self, offset: int, size: int) -> tuple[list[types.Resource], int]:
        """Resources `offset` to `offset + size`, and how many there are in all."""
        ...

    def read(self, uri: str) -> types.TextResourceContents | None:
        """The resource at `uri`; None when it is not one of this source's."""
        ...

    def canonical(self, uri: str) -> str | None:
        """The one URI of the resource `uri` names, however spelled; None when not one of this source's."""
        ...

    def texts(self, uris: Sequence[str]) -> dict[str, str]:
        """The texts of the resources at these canonical URIs, from one question to where they are kept (as
        `read` gives them); one that is not there is left out."""
        ...

    def complete(self, ref: Reference, argument: types.CompletionArgument) -> tuple[list[str], int] | None:
        """(values, total) for an argument this source completes; None for any other argument."""
        ...


@dataclass(frozen=True)
class TextResource:
    """A text resource written in code: at one URI, or at every URI of a template (RFC 6570, e.g.
    `notes://{topic}`), whose variables `text` receives as keyword arguments."""

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

    def serves(self, uri: str) -> bool:
        return UriTemplate.parse(self.uri).match(uri) is not None

    def read(self, uri: str) -> types.TextResourceContents | None:
        variables = UriTemplate.parse(self.uri).match(uri)
        if variables is None:
            return None
        return types.TextResourceContents(uri=uri, mime_type=self.mime_type, text=self.text(**variables))


class Resources:
    """The resources/list, resources/templates/list, resources/read and completion/complete handlers."""

    def __init__(self, source: ResourceSource | None = None, extra: Sequence[TextResource] = ()) -> None:
        self.source = source
        self.extra = tuple(extra)

    async def list_resources(self, ctx: object, params: types.PaginatedRequestParams | None) -> Any:
        offset = int(params.cursor) if params and params.cursor and params.cursor.isdigit() else 0
        items, total = await self._ask(lambda s: s.page(offset, PAGE), ([], 0))
        following = offset + len(items)
        extra = [r.listed() for r in self.extra if not r.is_template] if offset == 0 else []
        return types.ListResourcesResult(
            resources=extra + items, next_cursor=str(following) if following < total else None
        )

    async def list_templates(self, ctx: object, params: object) -> types.ListResourceTemplatesResult:
        templates = await self._ask(lambda s: s.templates(), [])
        extra = [r.listed_template() for r in self.extra if r.is_template]
        return types.ListResourceTemplatesResult(resource_templates=[*templates, *extra])

    async def read(self, ctx: object, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        contents = next((found for r in self.extra if (found := r.read(uri)) is not None), None)
        if contents is None:
            contents = await self._ask(lambda s: s.read(uri), None)
        if contents is None:
            raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        return types.ReadResourceResult(contents=[contents])

    def canonical(self, uri: str) -> str | None:
        """The one URI of the resource `uri` names (a resource written in code has only its own); None when
        nobody here serves it."""
        if any(r.serves(uri) for r in self.extra):
            return uri
        return self.source.canonical(uri) if self.source is not None else None

    async def texts(self, uris: Sequence[str]) -> dict[str, str]:
        """The texts of the resources at these canonical URIs; one that is not there is left out. The
        source's are read in one question; a source that fails raises an MCP error."""
        found: dict[str, str] = {}
        elsewhere = []
        for uri in uris:
            contents = next((c for r in self.extra if (c := r.read(uri)) is not None), None)
            if contents is None:
                elsewhere.append(uri)
            else:
                found[uri] = contents.text
        if elsewhere:
            found.update(await self._ask(lambda s: s.texts(elsewhere), {}))
        return found

    async def complete(self, ctx: object, params: types.CompleteRequestParams) -> types.CompleteResult:
        found = await self._ask(lambda s: s.complete(params.ref, params.argument), None)
        if found is None:
            return types.CompleteResult(completion=types.Completion(values=[]))
        values, total = found
        return types.CompleteResult(
            completion=types.Completion(values=values, total=total, has_more=total > len(values))
        )

    async def _ask(self, question: Callable[[ResourceSource], Any], nothing: Any) -> Any:
        if self.source is None:
            return nothing
        source = self.source
        try:
            return await anyio.to_thread.run_sync(lambda: question(source))
        except ToolError as e:
            raise MCPError(types.INTERNAL_ERROR, str(e)) from None
