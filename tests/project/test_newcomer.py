"""A newcomer's first session, for real: `python main.py` on the embedded default (the demo model on
llama.cpp, the device service main.py starts; no key, no scripted LLM) in a pseudo-terminal whose locale
names no language: a greeting, the tutorial's prompt answered y, a remark in Chinese (the host's line), one
in English cut off by Ctrl-C, the next chat turn, a query, the clock, /exit. Each answer is checked for its
language and content; the model's server survives the Ctrl-C, and no child process outlives the chat."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import sys
import time
from pathlib import Path

import pexpect
import pytest

from tests.app.chat.test_terminal import ANSI
from tests.conftest import ROOT, clean_env

pytestmark = pytest.mark.local_model

SPINNER = re.compile(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S+…")
PANEL = re.compile(r"[╭│╰]")
CJK = re.compile(r"[\u3400-\u9fff]")
ENGLISH_WORD = re.compile(r"\b[A-Za-z]{3,}\b")
CODE = re.compile(r"\b[A-Z]+\d[A-Z\d]*\b|\b[A-Z]{2,}\b")  # a code (CPH2223), a capital name (UTC, README)
STEP_SECONDS = 600  # a loaded 2-core machine is slow, never wrong: outcomes are checked, not times
PROMPT = "你:"  # its trailing space is drawn by moving the cursor
PROMPT_LINE = re.compile(r"^(你|You):")


class Chat:
    """The program in a pseudo-terminal, read as a person reads its screen (terminal codes removed)."""

    def __init__(self, folder: Path) -> None:
        env = clean_env(TERM="xterm-256color", LANG="C.UTF-8", PROMPT_TOOLKIT_NO_CPR="1")
        for name in ("LC_ALL", "LC_MESSAGES"):
            env.pop(name, None)
        self.child = pexpect.spawn(
            sys.executable,
            [str(ROOT / "main.py")],
            cwd=str(folder),
            env=env,
            encoding="utf-8",
            timeout=STEP_SECONDS,
            dimensions=(50, 120),
        )
        self.screen = ""

    def until(self, wanted: str, timeout: float = STEP_SECONDS) -> str:
        """What the screen shows from now until `wanted` has shown (included)."""
        start, give_up_at = len(self.screen), time.monotonic() + timeout
        while wanted not in self.screen[start:]:
            if time.monotonic() > give_up_at or not self.child.isalive():
                raise AssertionError(f"{wanted!r} never showed; the screen had: {self.screen[-1500:]!r}")
            with contextlib.suppress(pexpect.TIMEOUT):
                self.screen += ANSI.sub("", self.child.read_nonblocking(4096, timeout=0.2))
        return self.screen[start:]

    def type(self, line: str) -> None:
        time.sleep(0.5)  # keys sent while the prompt is still being drawn can be lost
        self.child.sendline(line)

    def turn(self, line: str, prompt: str = PROMPT) -> str:
        """The answer to `line`: what the screen shows until the program waits at its prompt again."""
        self.type(line)
        return answer_in(self.waiting(prompt), line)

    def waiting(self, prompt: str = PROMPT, timeout: float = STEP_SECONDS) -> str:
        """The screen until it ends with `prompt` and stays still for a second: the program waits for the
        person (a prompt redrawn as a line is sent, or during a turn, is followed by more)."""
        start, give_up_at, last_change = len(self.screen), time.monotonic() + timeout, time.monotonic()
        while not (self.screen[start:].rstrip().endswith(prompt) and time.monotonic() - last_change > 1):
            if time.monotonic() > give_up_at or not self.child.isalive():
                raise AssertionError(f"{prompt!r} never waited; the screen had: {self.screen[-1500:]!r}")
            with contextlib.suppress(pexpect.TIMEOUT):
                self.screen += ANSI.sub("", self.child.read_nonblocking(4096, timeout=0.2))
                last_change = time.monotonic()
        return self.screen[start:]


def answer_in(shown: str, typed: str = "") -> str:
    """The answer's lines: without the spinner, the panels, the prompts and the echo of the line typed."""
    lines = [line.strip() for line in SPINNER.sub("", shown.replace("^C", "")).splitlines()]
    kept = [line for line in lines if line and not PANEL.search(line) and not PROMPT_LINE.match(line)]
    return "\n".join(line for line in kept if not typed or (line != typed and not line.endswith(f" {typed}")))


def in_chinese(answer: str) -> bool:
    """Chinese words, and no English word besides model codes, abbreviations and tool names."""
    english = [w for w in ENGLISH_WORD.findall(CODE.sub("", answer)) if "_" not in w]
    return bool(CJK.search(answer)) and not english


def model_servers(pid: int) -> list[int]:
    """The pids of the embedded model's servers among `pid`'s children."""
    found = []
    for child in children(pid):
        with contextlib.suppress(OSError):
            if b"app.models.embedded.runtime" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
    return found


def model_server(pid: int, seconds: float = 60.0) -> int:
    """The pid of the embedded model's server among `pid`'s children, once it has started."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if servers := model_servers(pid):
            return servers[0]
        time.sleep(0.1)
    raise AssertionError("the embedded model's server is not running")


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            found += [int(p) for p in (task / "children").read_text().split()]
    return found


def rows(folder: Path) -> list[tuple]:
    with sqlite3.connect(folder / "data" / "devices.db") as conn:
        return conn.execute("SELECT model, marketName FROM models").fetchall()


def test_a_newcomers_first_session(tmp_path):
    """Every step's answer is checked and every wrong one reported, at the end, together."""
    chat, wrong = Chat(tmp_path), []

    def check(holds: object, step: str, answer: str) -> None:
        if not holds:
            wrong.append(f"{step}: {answer!r}")

    try:
        chat.until("You:")  # nothing typed yet: the words are English until the person writes
        check("SmolLM2-135M" in chat.screen, "the demo model's notice", chat.screen)
        check(model_servers(chat.child.pid) == [], "no model server before a turn needs it", chat.screen)

        greeting = chat.turn("你好")
        check(in_chinese(greeting) and re.search("你好|您好", greeting), "1. a greeting in Chinese", greeting)

        chat.type("把机型 CPH2223 添加到数据库")
        asked = chat.waiting("允许吗? [y/N]")  # the host's question, in the person's language
        check('add_device_model({"model": "CPH2223"' in asked, "2. the call asked about", asked)
        added = chat.turn("y")
        check(in_chinese(added) and "CPH2223" in added and "添加" in added, "2. the add, said", added)
        check([code for code, _ in rows(tmp_path)] == ["CPH2223"], "2. the row", str(rows(tmp_path)))

        check(model_servers(chat.child.pid) == [], "no model server for planned turns", chat.screen)
        remark = chat.turn("我喜欢绿色的手机")  # a Chinese remark: the host answers, not the model
        check(in_chinese(remark) and "收到" in remark, "3. a Chinese remark, the host's line", remark)
        check(model_servers(chat.child.pid) == [], "3. no model server for a Chinese remark", chat.screen)

        chat.type("I really like green phones")  # a remark in English: it goes to the model
        chat.until("thinking")
        server = model_server(chat.child.pid)  # started for the model's words, and kept for the session
        chat.child.sendintr()
        cut = answer_in(chat.waiting("You:"))
        check(cut == "(turn cancelled)", "3. the turn cut off by Ctrl-C", cut)

        after = chat.turn("green looks great", "You:")  # the model's words, or the host's line instead
        check(after and "cannot reach" not in after and not CJK.search(after), "4. the next chat turn", after)
        check(model_server(chat.child.pid) == server, "4. the model's server survived", chat.screen)
        check("正在重启" not in chat.screen, "4. no restart was needed", chat.screen)

        found = chat.turn("数据库里有 CPH2223 吗？")
        check(in_chinese(found) and "CPH2223" in found and "没有" not in found, "5. the query", found)

        clock = chat.turn("现在几点了？")
        check(in_chinese(clock) and re.search(r"\d{1,2}:\d{2}", clock), "6. the clock", clock)

        chat.type("/exit")
        chat.child.expect(pexpect.EOF, timeout=60)
        chat.child.close()
        check(chat.child.exitstatus == 0, "7. /exit", str(chat.child.exitstatus))
        check(not Path(f"/proc/{server}").exists(), "7. the model's server ended with the chat", str(server))
    finally:
        chat.child.close(force=True)
    assert wrong == [], "\n".join(wrong)
