"""The evaluation's prompts as one kind of spec, whichever part they come from. Each part is a data file in
`prompts/` beside this module, shipped in the package (YAML, its header says what each key means): the
tuned prompts (`tuned.yaml`), the held-out prompts (`heldout.yaml`), the held-out chat prompts
(`chat_heldout.yaml`), the held-out remarks (`remarks_heldout.yaml`, `_2`, `_3`), the held-out people's
prompts (`people_heldout.yaml`, `_2`, `_3`) and the blind held-out parts (`blind/`: four writers' device
jobs here, and the tools each added, read by `tools_file.py`). A key the scorer does not know is an
error, not a silent default."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from pydantic import ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass

_COLUMNS = ("marketName", "marketNameEn")
PROMPTS = Path(__file__).resolve().parent / "prompts"

# The parts, in the order the scorer reports them: part name -> its file in PROMPTS.
PARTS = {
    "tuned": "tuned.yaml",
    "held-out": "heldout.yaml",
    "chat held-out": "chat_heldout.yaml",
    "remarks held-out": "remarks_heldout.yaml",
    "remarks held-out 2": "remarks_heldout_2.yaml",
    "remarks held-out 3": "remarks_heldout_3.yaml",
    "people held-out": "people_heldout.yaml",
    "people held-out 2": "people_heldout_2.yaml",
    "people held-out 3": "people_heldout_3.yaml",
    # written blind, from the tools' descriptions only (blind/README.md): each writer's device job
    "blind lab job": "blind/lab_job.yaml",
    "blind manager job": "blind/manager_job.yaml",
    "blind overseas job": "blind/overseas_job.yaml",
    "blind newcomer job": "blind/newcomer_job.yaml",
}
# ... and the tools each of them added, with their prompts: another format (tools_file.py)
TOOL_PARTS = {
    "blind lab tools": "blind/lab_tools.yaml",
    "blind manager tools": "blind/manager_tools.yaml",
    "blind overseas tools": "blind/overseas_tools.yaml",
    "blind newcomer tools": "blind/newcomer_tools.yaml",
}
# The golden trajectories the scorecard's regression gate runs (`python main.py eval`): not a part of
# `make eval`'s floors, not held out.
GOLDEN = "golden"
FILES = {**PARTS, GOLDEN: "golden.yaml", **TOOL_PARTS}


def held_out(name: str) -> bool:
    """Was the part written before the demo changed for it, and is it never shown? (Held-out and blind.)"""
    return name in FILES and ("heldout" in FILES[name] or FILES[name].startswith("blind/"))


def blind(name: str) -> bool:
    return name in FILES and FILES[name].startswith("blind/")


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class Spec:
    part: str  # a key of FILES, or a job file's stem (`--job-file`)
    kind: str
    text: str
    tools: tuple[str, ...]  # the tools a correct turn runs successfully, in order
    seed: dict[str, str]
    # rows a correct turn adds: (code as meant, market name in either column), or (code as meant, marketName,
    # marketNameEn), each column checked
    rows: tuple[tuple[str | None, ...], ...] = ()
    says: tuple[str, ...] = ()
    says_one_of: tuple[str, ...] = ()
    never_says: tuple[str, ...] = ()
    result: float | None = None  # arithmetic: the number the answer states
    zone: str | None = None  # time: the zone whose current date and hour the answer states
    arguments: dict[str, Any] = Field(default_factory=dict)  # the tuned part's ideal call, for the control
    lang: str | None = None  # the language the whole answer is in
    # rows a correct turn changes: (code, market name afterwards, in either column) or (code, column, value)
    updates: tuple[tuple[str, ...], ...] = ()

    @property
    def approves(self) -> bool:
        """Does the person ask for a change? (They approve exactly what they asked for.)"""
        return self.kind in ("add", "normalize", "delete", "update")

    @property
    def removes(self) -> tuple[str, ...]:
        """The seeded codes a correct turn deletes: those the answer names, when the delete tool is to run
        (a part whose delete kind expects no tool removes nothing)."""
        return tuple(c for c in self.says if c in self.seed) if "delete_device_model" in self.tools else ()

    def names(self) -> list[str]:
        """The market names the spec's rows and changes hold, as the person wrote them."""
        return [n for row in (*self.rows, *self.updates) for n in row[1:] if n and n not in _COLUMNS]


def part(name: str) -> list[Spec]:
    """One part's prompts (or the golden set's), read from its file (not a part of TOOL_PARTS)."""
    data = yaml.safe_load((PROMPTS / FILES[name]).read_text(encoding="utf-8"))
    read = _tuned if name == "tuned" else dict
    return [Spec(part=name, seed=data["seed"], **read(prompt)) for prompt in data["prompts"]]


class JobFileError(ValueError):
    """A device job file the scorer cannot read, said in one line with the file's name."""


def job_file(path: Path, name: str) -> list[Spec]:
    """The prompts of a device job file of one's own (`--job-file`: a `seed` and `prompts`, in the blind
    job parts' format), as part `name`; JobFileError when it cannot be read."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "prompts" not in data:
            raise ValueError("it must be a mapping with `prompts` (and an optional `seed`)")
        if unknown := data.keys() - {"seed", "prompts"}:
            raise ValueError(f"unknown key(s): {', '.join(sorted(unknown))}")
        return [Spec(part=name, seed=data.get("seed") or {}, **prompt) for prompt in data["prompts"]]
    except (OSError, yaml.YAMLError, ValidationError, TypeError, ValueError) as e:
        said = " ".join(str(e).split())
        raise JobFileError(f"{path}: {said[:500]}") from None


def _tuned(prompt: dict[str, Any]) -> dict[str, Any]:
    """A tuned prompt names one tool and the code it adds; a time prompt's answer says the current year."""
    prompt = dict(prompt)
    tool, adds = prompt.pop("tool", None), prompt.pop("adds", None)
    prompt["tools"] = [tool] if tool else []
    prompt["rows"] = [[adds, None]] if adds else []
    if prompt["kind"] == "time":
        prompt["says"] = [str(datetime.now(UTC).year)]
    return prompt


def all_specs() -> list[Spec]:
    return [spec for name in PARTS for spec in part(name)]
