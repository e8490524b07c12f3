"""The scorecard's command line (`python main.py eval ...`): its options, each part it can run named and
grouped by what it is, a file of one's own (tools, or a device job) read before anything runs; and the
command that runs it again (`reproduce`), as the person started it."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from agent.audit import redact_text
from app.eval import bfcl_run
from app.eval.groups import GROUPS, group
from app.eval.spec import FILES, JobFileError, job_file
from app.eval.tools_file import ToolsFileError, read

DESCRIPTION = """\
Score the configured model's tool calling. Each case is one turn through the
real host (its registry, argument validation, grounding, confirmation) on a
fresh device database, judged against what a correct turn does; the scorecard,
in Markdown, goes to stdout, its first line the overall result and the command
that reproduces it, and the progress goes to stderr. The model is chosen as
for the chat: the embedded demo model when nothing is set, LOCAL_MODEL for
another GGUF, or LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for an
OpenAI-compatible endpoint."""
TOOLS_HELP = (
    "also score a tools file of your own (tools as data and prompts, in the format of the blind parts' "
    "BRIEF.md, see docs/evaluation), as a part named by the file's stem; repeatable"
)
JOB_HELP = (
    "also score a device job file of your own (a seed and prompts, in the format of the blind job parts, "
    "see docs/evaluation), as a part named by the file's stem; repeatable"
)
BFCL_HELP = (
    "also run the first N cases (or all) of each of BFCL's single-turn categories through the host, "
    "with grounding and without, scored by bfcl-eval's checker in a venv of its own (make bfcl-venv)"
)
SCRIPT = "tool-use-agent"  # the installed command (pyproject's [project.scripts])
MODEL = ("LLM_BASE_URL", "LLM_MODEL", "LOCAL_MODEL", "LOCAL_MODEL_TEMPLATE")  # what chooses the model


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"{launcher()} eval",
        description=DESCRIPTION,
        epilog=_parts_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--part", nargs="*", choices=list(FILES), metavar="NAME", help=PART_HELP)
    parser.add_argument("--limit", type=_positive, metavar="N", help="run the first N cases of each part")
    parser.add_argument("--k", type=_positive, default=1, help="runs of each case, for pass^k (default 1)")
    parser.add_argument(
        "--tools-file", type=Path, action="append", default=[], metavar="FILE", help=TOOLS_HELP
    )
    parser.add_argument("--job-file", type=Path, action="append", default=[], metavar="FILE", help=JOB_HELP)
    parser.add_argument("--bfcl", type=_cases, default=0, metavar="N|all", help=BFCL_HELP)
    parser.add_argument(
        "--bfcl-python", type=Path, default=bfcl_run.VENV_PYTHON, metavar="PATH", help=BFCL_PYTHON_HELP
    )
    parser.add_argument(
        "--floors", choices=["docs", "all"], help="exit 1 below the floors docs/embedded states / on any fail"
    )
    parser.add_argument("--md", type=Path, metavar="FILE", help="write the Markdown here, not to stdout")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures per part as JSON")
    args = parser.parse_args(argv)
    if args.part == [] and args.bfcl == 0 and not args.tools_file and not args.job_file:
        parser.error(
            "--part names no part, and neither --tools-file, --job-file nor --bfcl is given: there is "
            "nothing to run"
        )
    args.files = {}
    readers: list[tuple[str, Path, Callable[[Path, str], Sequence[object]]]] = [
        *(("--tools-file", path, read) for path in args.tools_file),
        *(("--job-file", path, job_file) for path in args.job_file),
    ]
    for flag, path, reader in readers:
        if path.stem in FILES or path.stem in args.files:  # each read now: one in error stops nothing midway
            parser.error(f"{flag} {path}: a part is already named {path.stem!r}; rename the file")
        try:
            reader(path, path.stem)
        except (ToolsFileError, JobFileError) as e:
            parser.error(f"{flag} {e}")
        args.files[path.stem] = path
    if args.bfcl != 0 and not args.bfcl_python.exists():  # 0: not asked for
        parser.exit(2, f"eval: BFCL runs in a venv of its own, which is missing: {BFCL_VENV}\n")
    return args


PART_HELP = "the parts to run, by name (default: all of them; --part naming none: none); see below"
BFCL_VENV = "run `make bfcl-venv` in a checkout, or name its python with --bfcl-python"
BFCL_PYTHON_HELP = "the python of BFCL's venv (default: the checkout's, which make bfcl-venv makes)"


def _parts_epilog() -> str:
    """The parts, grouped as the scorecard reports them, each group's names on lines of their own."""
    lines = ["parts (--part NAME ...):"]
    for each in GROUPS:
        names = [name for name in FILES if group(name) == each.key]
        if names:
            lines.append(f"  {each.label}:")
            lines += [f"    {line}" for line in _wrapped(names)]
    me = f"{launcher()} eval"
    lines += ["", "examples:", f"  {me} --limit 2                  the first 2 cases of every part"]
    lines += [f"  {me} --part golden tuned --k 3  two parts, each case 3 times (pass^3)"]
    return "\n".join(lines)


def _wrapped(names: list[str], width: int = 74) -> list[str]:
    """The names quoted, comma-separated, in lines of at most `width` characters where they fit."""
    lines = [""]
    for name in names:
        word = f"{name!r}, " if name != names[-1] else repr(name)
        if lines[-1] and len(lines[-1] + word.rstrip()) > width:
            lines[-1] = lines[-1].rstrip()
            lines.append("")
        lines[-1] += word
    return lines


def _cases(text: str) -> int | None:
    """--bfcl's N: a whole number, or `all` (None: no limit)."""
    return None if text == "all" else _positive(text)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


def launcher() -> str:
    """How the person started the program: `python main.py`, `python -m main`, or the installed command."""
    if sys.orig_argv[1:3] == ["-m", "main"]:
        return "python -m main"
    return SCRIPT if Path(sys.argv[0]).name == SCRIPT else "python main.py"


def reproduce(args: argparse.Namespace) -> str:
    """The command that runs the same cases against the same model: the model's variables that are set
    (never its key, nor a URL's user and password), then the options that choose the cases."""
    settings = [
        f"{name}={shlex.quote(redact_text(os.environ[name]))}" for name in MODEL if os.environ.get(name)
    ]
    options: list[str] = []
    if args.part is not None:
        options += ["--part", *args.part]
    for flag, value, default in (("--limit", args.limit, None), ("--k", args.k, 1), ("--bfcl", args.bfcl, 0)):
        if value != default:
            options += [flag, "all" if value is None else str(value)]
    for path in args.tools_file:
        options += ["--tools-file", str(path)]
    for path in args.job_file:
        options += ["--job-file", str(path)]
    if args.bfcl != 0 and args.bfcl_python != bfcl_run.VENV_PYTHON:
        options += ["--bfcl-python", str(args.bfcl_python)]
    if args.floors:
        options += ["--floors", args.floors]
    return " ".join([*settings, launcher(), "eval", *map(shlex.quote, options)])
