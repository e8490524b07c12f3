"""Elicitation: an MCP server asks the person a question (a small form, or a page to open) through the chat.

The client side of MCP's `elicitation/create`: the request's schema is read into fields the chat can ask
one by one, answers are typed and checked, and the person's choice goes back to the server as the spec's
`accept` (with the content), `decline` (an explicit no) or `cancel` (dismissed). Where no person can
answer (`-m`, pipes) the question is declined: `--yes` speaks for the person about the host's own
confirmations, never to a server.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import mcp_types as types

Action = Literal["accept", "decline", "cancel"]
Answer = tuple[Action, dict[str, Any] | None]
AskPerson = Callable[[str, types.ElicitRequestParams], Answer]  # (server, request) -> the person's answer
_KINDS = {"string": str, "integer": int, "number": float, "boolean": bool}


@dataclass(frozen=True)
class Field:
    name: str
    kind: str  # string, integer, number or boolean
    label: str
    required: bool
    default: Any = None
    choices: tuple[str, ...] = ()


def fields_of(schema: dict[str, Any]) -> list[Field]:
    """The form's fields, in the schema's order (the spec allows only flat primitive properties)."""
    required = set(schema.get("required") or ())
    fields = []
    for name, spec in (schema.get("properties") or {}).items():
        label = spec.get("title") or name
        if spec.get("description"):
            label = f"{label} ({spec['description']})"
        choices = tuple(spec.get("enum") or (o.get("const") for o in spec.get("oneOf") or ()))
        kind = spec.get("type") if spec.get("type") in _KINDS else "string"
        fields.append(Field(name, kind, label, name in required, spec.get("default"), choices))
    return fields


def parse_value(field: Field, text: str) -> Any:
    """The typed value of what the person typed; ValueError with a message they can act on."""
    text = text.strip()
    if field.choices and text not in field.choices:
        raise ValueError(f"choose one of {', '.join(field.choices)}")
    if field.kind == "boolean":
        if text.lower() not in ("y", "yes", "true", "n", "no", "false"):
            raise ValueError("answer y or n")
        return text.lower() in ("y", "yes", "true")
    if field.kind in ("integer", "number"):
        try:
            return int(text) if field.kind == "integer" else float(text)
        except ValueError:
            raise ValueError(f"a {field.kind} is needed") from None
    return text


def with_defaults(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The answer that takes every default; None when a required field has none."""
    fields = fields_of(schema)
    if any(f.required and f.default is None for f in fields):
        return None
    return {f.name: f.default for f in fields if f.default is not None}


def unattended(server: str, request: types.ElicitRequestParams) -> Answer:
    """For `-m`, pipes and served turns: no person to ask, so every question is declined."""
    return "decline", None


def elicitation_callback(server: str, ask: AskPerson, person_time: Callable[[], Any]) -> Any:
    """The SDK's elicitation callback: ask in a worker thread (the terminal blocks); `person_time()` is a
    context in which the call waiting on this answer does not time out."""

    async def handle(context: object, params: types.ElicitRequestParams) -> types.ElicitResult:
        with person_time():
            action, content = await anyio.to_thread.run_sync(ask, server, params)
        return types.ElicitResult(action=action, content=content if action == "accept" else None)

    return handle
