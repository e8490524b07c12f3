"""What each part is, in words: the group the scorecard reports it in — tuned, held out when written and
mined since, held out, blind held out by outside writers, golden, or a file of one's own (tools, or a
device job) — and its status, as the parts' table and the JSON name it. A part's name is its file's
history ("held-out" was held out when written); its group says what its figure measures now."""

from __future__ import annotations

from dataclasses import dataclass

from app.eval.device_job import MINED
from app.eval.spec import FILES, GOLDEN, blind, held_out


@dataclass(frozen=True)
class Group:
    key: str
    label: str  # in --help's list of parts
    heading: str  # the scorecard's section of its parts


GROUPS = (
    Group("tuned", "tuned", "Tuned: written while the demo's reading was tuned on them"),
    Group(
        "mined",
        "held out when written, mined since",
        "Held out when written, mined since: written before the demo changed for them, their failures "
        "since read while it was changed (from the commit in their status), so they measure the tuning "
        "now (prompts not shown: case ids only)",
    ),
    Group(
        "held out",
        "held out",
        "Held out: written before the demo changed for them, never read since (prompts not shown: case "
        "ids only)",
    ),
    Group(
        "blind",
        "blind held out, by outside writers",
        "Blind held out: written by four people outside the project from the tools' descriptions only, "
        "before the reader changed for them (prompts not shown: case ids only)",
    ),
    Group("golden", "golden", "Golden: the regression set the scripted ideal model passes in full"),
    Group("own file", "files of your own", "Files of your own (`--tools-file`, `--job-file`)"),
)
OWN_FILE = "own file"  # the group of a tools file or a device job file named on the command line


def group(name: str) -> str:
    """The key of the part's group (GROUPS)."""
    if name not in FILES:
        return OWN_FILE
    if name in MINED:
        return "mined"
    if blind(name):
        return "blind"
    if held_out(name):
        return "held out"
    return "golden" if name == GOLDEN else "tuned"


def status(name: str) -> str:
    """The part's status: its group, and for a mined part since when ("held out, mined since 49811d0")."""
    key = group(name)
    if key == "mined":
        return f"held out, mined since {MINED[name]}"
    if key == OWN_FILE:
        return "file of your own"
    return "blind, held out" if key == "blind" else key
