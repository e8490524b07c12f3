"""Held-out means held out (benchmarks/held_out.py): no held-out prompt, nor a distinctive phrase of one,
is in what the embedded demo plans from — the blind parts' device jobs and tools files included; and the
check finds a copy planted there."""

import subprocess

import pytest

from app.eval.spec import FILES, PARTS, TOOL_PARTS
from benchmarks import held_out
from tests.conftest import ROOT

FACTS = "app/models/embedded/facts.py"
HELD_OUT = [name for name in [*PARTS, *TOOL_PARTS] if name != "tuned"]


def prompts_of(name: str) -> list[str]:
    return [prompt for part, prompt in held_out.held_out_prompts() if part == name]


def test_no_held_out_prompt_or_phrase_of_one_is_in_the_demo() -> None:
    found = held_out.leaks(held_out.demo_sources())
    said = [
        f"{leak.part}: a prompt's phrase in {leak.where}: {leak.phrase!r}" for leak in found
    ]  # never the prompt
    assert not said, "\n".join(said)  # the parts and phrases, never a held-out prompt


def planted(text: str) -> dict[str, str]:
    """The demo's sources with `text` added to its worked examples."""
    sources = held_out.demo_sources()
    sources[FACTS] += f"\nEXAMPLE = {text!r}\n"
    return sources


@pytest.mark.parametrize("name", HELD_OUT)
def test_a_held_out_prompt_copied_into_the_demo_is_found(name: str) -> None:
    prompt = max(prompts_of(name), key=lambda text: len(held_out.runs(text)))
    found = held_out.leaks(planted(prompt))
    caught = (name, prompt, FACTS) in {(leak.part, leak.prompt, leak.where) for leak in found}
    assert caught, f"{name}: its longest prompt, planted in {FACTS}, was not found"


@pytest.mark.parametrize(
    ("phrase", "prompt"),
    [
        ("查查 XY1234 录入了没有", "帮我查查 V2309A 录入了没有"),  # another code, the same phrasing
        ("it needs to go into the db", "New device code SM-S9210 needs to go into the db"),
        ("太感谢了", "太感谢了，帮大忙了"),  # four characters of a nine-character prompt
    ],
)
def test_a_phrase_of_a_held_out_prompt_is_found_with_other_values(phrase: str, prompt: str) -> None:
    found = held_out.leaks(planted(phrase))
    caught = prompt in {leak.prompt for leak in found if leak.where == FACTS}
    assert caught, "the planted prompt was not found"


def test_a_tuned_prompt_or_a_generic_phrase_is_no_leak() -> None:
    found = held_out.leaks(planted("数据库里有 RMX3371 吗？ 计算 (3 + 4) * 5 CPH2451 的营销名"))
    assert not found, [(leak.part, leak.where, leak.phrase) for leak in found]


def test_each_generic_phrase_is_one_some_held_out_prompt_shares() -> None:
    """An entry no held-out prompt shares allows nothing: it goes."""
    held = set().union(*(held_out.runs(text) for _, text in held_out.held_out_prompts()))
    unused = [
        phrase for phrase in [*held_out.GENERIC, *held_out.PREDATING] if not held_out.runs(phrase) & held
    ]
    assert not unused


def test_a_phrase_the_demo_held_before_a_blind_part_is_still_there_and_found_anywhere_else() -> None:
    """PREDATING allows a run only in the files that held it when the blind parts were written: each is
    still there (else the entry goes), and the same run planted in another file is a leak."""
    sources = held_out.demo_sources()
    for phrase, files in held_out.PREDATING.items():
        assert all(held_out.runs(phrase) <= held_out.runs(sources[where]) for where in files), phrase
    for phrase in held_out.PREDATING:
        found = held_out.leaks({"tools/new_tool.py": f"# for example: {phrase}\n"})
        assert any(leak.part in TOOL_PARTS or leak.part.startswith("blind") for leak in found), phrase


@pytest.mark.parametrize("name", HELD_OUT)
def test_a_held_out_file_is_never_edited(name: str) -> None:
    """Its history, followed through moves, is its creation and moves that kept every byte (git's R100),
    and the working copy holds those bytes."""
    path = f"app/eval/prompts/{FILES[name]}"
    log = _git("log", "--follow", "--format=", "--raw", "--no-abbrev", "--", path)
    changes = [line.split() for line in log.splitlines() if line.startswith(":")]
    assert changes, f"{path} has no history"
    statuses = [change[4] for change in changes]
    assert set(statuses[:-1]) <= {"R100"} and statuses[-1] == "A", f"{path} was edited: {statuses}"
    blobs = {change[3] for change in changes}  # each change's new bytes: one blob, the first one's
    assert len(blobs) == 1, f"{path} was edited: {blobs}"
    assert _git("hash-object", path).strip() in blobs, f"{path} has changes not committed"


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout
