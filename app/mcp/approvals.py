"""Approvals: the MCP tool definitions the person approved, kept across runs in a file only they can read.

A tool of an MCP server reaches the model only in a definition the person approved — or, from a server
the configuration marks trusted, as it was first seen. A definition that changes later (a "rug pull")
is withdrawn until the person approves it again, shown what changed; a restart does not forget that.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

Definition = dict[str, Any]  # description, parameters, effect: what the model is told and what may run


class Approvals:
    def __init__(self, path: Path) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, Definition]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def seen(self, server: str, name: str) -> Definition | None:
        """The definition of `name` the person approved last, or None."""
        return self._load().get(server, {}).get(name)

    def approve(self, server: str, definitions: dict[str, Definition]) -> None:
        data = self._load()
        data.setdefault(server, {}).update(definitions)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)


def what_changed(name: str, before: Definition | None, now: Definition) -> str:
    """One line for the person: a new tool, or which parts of its definition changed and how."""
    if before is None:
        return f"{name} (new): {_short(now.get('description', ''))}"
    parts = [
        f"{key} {_short(before.get(key))} -> {_short(now.get(key))}"
        for key in sorted(now.keys() | before.keys())
        if before.get(key) != now.get(key)
    ]
    return f"{name} changed: {'; '.join(parts)}"


def _short(value: Any, most: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)
    return repr(text if len(text) <= most else text[:most] + "…")
