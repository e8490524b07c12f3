"""Who holds which resource subscription, within the server's bounds.

A holder is a 2025 session (its connection) or a 2026-07-28 listen stream. It holds URIs as its client
spelled them, each naming one resource by its canonical URI; it is told of a change under its own
spelling. A holder may hold `per_holder` URIs, all holders together `in_all`; one more is refused with an
MCP error (INVALID_REQUEST) that says which bound and how to make room. What the server watches is the
canonical URIs held: one however many spellings and holders name it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Literal

import mcp_types as types
from mcp.shared.exceptions import MCPError

Kind = Literal["session", "stream"]


class Subscribers:
    def __init__(self, per_holder: int, in_all: int) -> None:
        self.per_holder, self.in_all = per_holder, in_all
        self._held: dict[Hashable, dict[str, str]] = {}  # holder -> URI as spelled -> canonical URI

    def count(self) -> int:
        return sum(len(uris) for uris in self._held.values())

    def room(self, holder: Hashable, uris: Iterable[str], kind: Kind) -> None:
        """Raise the MCP error of the bound `holder` would go beyond by also holding `uris`."""
        mine = self._held.get(holder, {})
        new = [uri for uri in dict.fromkeys(uris) if uri not in mine]
        if new and len(mine) + len(new) > self.per_holder:
            if kind == "stream":
                message = f"a listen stream may name {self.per_holder}, this one names {len(new)}"
            else:
                message = f"a session may hold {self.per_holder}; unsubscribe from one first ({new[0]})"
            raise MCPError(
                types.INVALID_REQUEST,
                f"Too many subscriptions: {message}",
                {"limit": self.per_holder, **({"uri": new[0]} if kind == "session" else {})},
            )
        if new and self.count() + len(new) > self.in_all:
            raise MCPError(
                types.INVALID_REQUEST,
                f"Too many subscriptions: this server holds {self.in_all} in all, its most; try again later",
                {"limit": self.in_all},
            )

    def hold(self, holder: Hashable, named: Mapping[str, str], kind: Kind) -> None:
        """`holder` holds these URIs (as spelled -> canonical), or nothing more if that breaks a bound."""
        self.room(holder, named, kind)
        self._held.setdefault(holder, {}).update(named)

    def release(self, holder: Hashable, uri: str | None = None) -> None:
        """`holder` no longer holds `uri` (None: anything)."""
        mine = self._held.get(holder, {})
        if uri is not None:
            mine.pop(uri, None)
        if uri is None or not mine:
            self._held.pop(holder, None)

    def watched(self) -> set[str]:
        """The canonical URIs of what is held."""
        return {canonical for uris in self._held.values() for canonical in uris.values()}

    def of(self, canonical: str) -> list[tuple[Hashable, str]]:
        """(holder, URI as it spelled it) for each holder of a URI that names the resource `canonical`."""
        return [(h, uri) for h, uris in self._held.items() for uri, c in uris.items() if c == canonical]
