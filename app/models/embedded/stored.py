"""What is stored decides the act: a write of a value that is stored already, with values for the tool that
changes it ("PKX110 is the Find X9", PKX110 on record), is that change, proposed and confirmed as one;
a code only proposed for adding (no word of writing) that is stored already is looked up instead; and a
delete of a value that is not stored is a look-up, which says so.

Which read tool says whether a value is stored, and which tool changes it then, are the demo's data of the
writing tool (`facts.py`: stored_by, when_stored). The host asks the read tool itself, before it proposes
anything; a read it cannot make (the service down) leaves the write as it was planned.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agent.tools import FunctionTool, ToolRegistry
from agent.types import ToolContext
from app.models.embedded.facts import facts

HOST = ToolContext(user_id="host")
Calls = tuple[dict[str, Any], ...]


def changed(tool: str, calls: Calls, registry: ToolRegistry, proposed: bool = False) -> dict[str, Any]:
    """What becomes of a plan of `calls` of `tool` (its fields to replace), when every value it would write
    is stored already: the change, where each call gives the changing tool something to change; a look-up,
    where the write was only proposed (a code with no word of writing: "X 呢？") and gives nothing more;
    else nothing."""
    known = facts(tool)
    reader, changer = registry.get(known.stored_by[0]), registry.get(known.when_stored)
    if not calls or reader is None or changer is None:
        return {}
    key, argument = next(iter(calls[0]), ""), known.stored_by[1]
    takes = set(changer.parameters.get("properties", {})) - set(changer.injected) - {key}
    changes = tuple({key: call[key], **{k: v for k, v in call.items() if k in takes}} for call in calls)
    bare = all(len(change) == 1 for change in changes)
    if not (bare and proposed or all(len(change) > 1 for change in changes)):
        return {}
    if not all(_stored(reader, argument, str(change[key])) for change in changes):
        return {}
    if bare:
        return {
            "tool": reader.name,
            "effect": reader.effect,
            "calls": tuple({argument: c[key]} for c in changes),
        }
    return {"tool": changer.name, "effect": changer.effect, "calls": changes}


def unstored(tool: str, calls: Calls, registry: ToolRegistry) -> dict[str, Any]:
    """What becomes of a plan to remove with `calls` of `tool` (its fields to replace) when a value it
    would remove is not stored: a look-up of the values, which says so, instead of a delete of what is not
    there (a work order's number read as a model code); else nothing."""
    known = facts(tool)
    found, reader = registry.get(tool), registry.get(known.stored_by[0])
    if not calls or found is None or found.effect != "destructive" or reader is None:
        return {}
    key, argument = next(iter(calls[0]), ""), known.stored_by[1]
    if all(_stored(reader, argument, str(call.get(key, ""))) is not False for call in calls):
        return {}  # each stored, or the read could not be made: the delete as planned, confirmed
    return {"tool": reader.name, "effect": reader.effect, "calls": tuple({argument: c[key]} for c in calls)}


def _stored(reader: FunctionTool, argument: str, value: str) -> bool | None:
    """Does the read tool's answer name `value` as a value of its own (letters and digits compared)? None
    when it cannot be read (the service down, an answer that is no JSON): nothing known."""
    try:
        answer = json.loads(reader.call(HOST, json.dumps({argument: value})))
    except Exception:
        return None
    return _plain(value) in {_plain(v) for v in _strings(answer)}


def _strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


def _plain(value: str) -> str:
    return re.sub(r"[\W_]+", "", value).casefold()
