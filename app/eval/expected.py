"""The calls a prompt's spec writes down (`spec.Spec`): its own `arguments`, the codes and names of the
rows it adds, the changes it makes, the codes it deletes. The scorecard checks a turn's arguments against
those it is certain of (`certain`); the scripted control (benchmarks/eval_control.py) makes them."""

from __future__ import annotations

import re
from typing import Any

from app.eval.spec import Spec

CJK = re.compile(r"[\u3400-\u9fff]")
Call = tuple[str, dict[str, Any]]


def certain(spec: Spec) -> list[Call]:
    """The calls whose arguments are certain: the spec's own `arguments`, else the codes and names of the
    rows it adds and changes (a look-up's keyword or a sum's expression may be written many ways)."""
    if spec.arguments:
        return [(spec.tools[0], spec.arguments)]
    if spec.tools and spec.tools[0] in ("add_device_model", "update_market_name"):
        return written(spec) or []
    return []


def written(spec: Spec) -> list[Call] | None:
    """The calls the spec writes down, in order; None for a tool whose arguments it does not say."""
    if spec.arguments or spec.part == "tuned":
        return [(spec.tools[0], spec.arguments)]
    name = spec.tools[0]
    if name == "add_device_model":
        return [(name, {"model": row[0], **_names(row[1:])}) for row in spec.rows]
    if name == "delete_device_model":
        return [(name, {"model": code}) for code in spec.removes]
    if name == "update_market_name":  # one call per model, with each of its changes
        changes: dict[str, dict[str, str]] = {}
        for change in spec.updates:
            changes.setdefault(change[0], {}).update(_names(change[1:]))
        return [(name, {"model": code, **names}) for code, names in changes.items()]
    return None


def _names(names: tuple[str | None, ...]) -> dict[str, str]:
    """The name arguments of a spec's row or change: one name (its column told by its script), a column
    and its value, or both columns."""
    if len(names) == 1:
        return {"marketName" if CJK.search(names[0]) else "marketNameEn": names[0]} if names[0] else {}
    if names[0] in ("marketName", "marketNameEn"):
        return {names[0]: str(names[1])}
    columns = zip(("marketName", "marketNameEn"), names, strict=True)
    return {column: value for column, value in columns if value}
