"""The chat's faces: what the chat needs of a screen and a keyboard (`Console`), its words in Chinese and
English, and `PlainConsole` for pipes and `-m` (the rich terminal is terminal.py) — nothing from a model or
a tool printed unsanitized.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent.guards import HOST_MARK, safe
from agent.provenance import TAKEN

if TYPE_CHECKING:  # the mcp SDK loads only when MCP servers are configured
    from app.mcp.elicitation import Answer

MESSAGES = {
    "zh": {
        "banner": "🤖 Chat Agent（支持工具调用）— /help 查看命令，Ctrl-D 退出",
        "you": "你",
        "agent": "Agent",
        "thinking": "思考中…",
        "cancelled": "（已取消本轮）",
        "not_done": "没有做完：",
        "allow": "允许吗",
        "host": "本程序",
        "untrusted": "注意：这个调用是模型读了不可信的内容（工具结果、资源等）之后决定的，未必是你要的。",
        "ok": "成功",
        "failed": "失败",
        "calls": "调用工具",
    },
    "en": {
        "banner": "🤖 Chat Agent (Tool Use Enabled) — /help for commands, Ctrl-D to leave",
        "you": "You",
        "agent": "Agent",
        "thinking": "thinking…",
        "cancelled": "(turn cancelled)",
        "not_done": "not done: ",
        "allow": "Allow",
        "host": "host",
        "untrusted": "Note: the model decided this call after reading untrusted text (tool output, "
        "resources); it may not be what you asked for.",
        "ok": "ok",
        "failed": "failed",
        "calls": "calling",
    },
}


class Console(Protocol):
    """What the chat needs of a screen and a keyboard (`RichConsole` on a terminal, `PlainConsole` else)."""

    words: dict[str, str]

    def read(self) -> str:
        """The next line typed; KeyboardInterrupt clears it, EOFError ends the chat."""
        ...

    def say(self, text: str) -> None: ...

    def ask(self, what: str, untrusted: str | None = None) -> bool:
        """The person's yes or no to `what` (a call to confirm, new MCP tools to allow); `untrusted`: how
        its values stand with the untrusted text the model had read (provenance.values_read): TAKEN, one
        came from there, so it may not be what the person asked for; ECHOED, the person said them too."""
        ...

    def elicit(self, server: str, request: Any) -> Answer:
        """An MCP server's question (`elicitation/create`), put to the person."""
        ...

    @property
    def open_url(self) -> Callable[[str], Any] | None:
        """Shows the person an MCP server's sign-in page; None where nobody can sign in."""
        ...

    @property
    def on_text(self) -> Callable[[str], None] | None:
        """Shows an answer as it streams in; None where answers are printed whole."""
        ...

    def begin_turn(self) -> None: ...

    def on_tool(self, call: dict[str, Any], envelope: str, seconds: float) -> None: ...

    def end_turn(self, answer: str | None, error: str | None = None) -> None: ...

    def end_turn_quietly(self) -> None: ...


CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2,}(?![A-Za-z0-9])")  # an English word: not "y", not CPH2223


def language(flag: str | None) -> str | None:
    """--lang if given, else the locale (LC_ALL, LC_MESSAGES, LANG): zh or en; None when it names neither
    (C, POSIX, C.UTF-8, unset...): then the chat's words follow the language of what the person types."""
    env = os.environ
    chosen = (flag or env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or "").lower()
    if chosen.startswith("zh"):
        return "zh"
    return "en" if chosen.startswith("en") else None


def language_of(text: str, before: str) -> str:
    """The language of a message: zh with Chinese characters, en with English words only, else `before`: a
    letter, a code or a sum ("y", "CPH2223", "12*7") leaves the words in the language the person wrote."""
    if CJK.search(text):
        return "zh"
    return "en" if WORD.search(text) else before


class Words:
    """A terminal's words: in the chosen language, or (`lang` None) in that of the person's last message,
    English until the first."""

    def __init__(self, lang: str | None) -> None:
        self.follows_person, self.lang = lang is None, lang or "en"
        self.words = MESSAGES[self.lang]

    def heard(self, line: str) -> dict[str, str]:
        """The words after the person typed `line`: in its language when they follow it (a command's does
        not count)."""
        if self.follows_person and not line.lstrip().startswith("/"):
            self.lang = language_of(line, self.lang)
            self.words = MESSAGES[self.lang]
        return self.words


class PlainConsole:
    """Pipes and `-m`: plain lines, no colours, its words in the person's language (`lang`, else that of
    their last message); confirmations only with --yes."""

    open_url = None  # nobody to sign in: a server that needs authorization is reported and skipped

    def __init__(self, out: Any, yes: bool, lang: str | None = None) -> None:
        self.out, self.yes = out, yes
        self.language = Words(lang)
        self.words = self.language.words
        self.refused: list[str] = []  # what was refused for want of --yes (`-m` then fails, saying so)

    def hear(self, line: str) -> None:
        """The person said `line`: the words that follow are in its language (unless one was chosen)."""
        self.words = self.language.heard(line)

    def elicit(self, server: str, request: Any) -> Answer:
        """A server's question is declined: nobody is here to answer it, and --yes speaks for the person
        only about what they asked for, never to a server."""
        self.say(f"  ❓ MCP server {server!r} asks: {request.message}: declined (no one to ask)")
        return "decline", None

    def read(self) -> str:
        line = input("")
        self.hear(line)
        return line

    def say(self, text: str) -> None:
        print(safe(text), file=self.out, flush=True)

    def ask(self, what: str, untrusted: str | None = None) -> bool:
        """--yes approves what the person asked for; never a call decided after reading untrusted text
        that holds one of its values (even one the person said too: the text may have steered the call)."""
        if untrusted:
            self._host_says(what, "refused (decided after reading untrusted text; approve it in the chat)")
            return False
        verdict = "approved by --yes" if self.yes else "refused (needs confirmation; use --yes)"
        self._host_says(what, verdict)
        if not self.yes:
            self.refused.append(what)
        return self.yes

    def _host_says(self, what: str, verdict: str) -> None:
        print(f"  {HOST_MARK} {safe(what)}: {verdict}", file=self.out, flush=True)

    def begin_turn(self) -> None:
        pass

    on_text = None  # answers are printed whole

    def on_tool(self, call: dict[str, Any], envelope: str, seconds: float) -> None:
        args = call["args"] if isinstance(call["args"], str) else json.dumps(call["args"], ensure_ascii=False)
        self.say(f"  → {self.words['calls']} {call['name']}({args})")
        self.say(f"  ← {envelope[:300]}" + ("…" if len(envelope) > 300 else ""))  # cut: said so

    def end_turn_quietly(self) -> None:
        pass

    def end_turn(self, answer: str | None, error: str | None = None) -> None:
        if error:
            print(f"error: {safe(error)}", flush=True)
        elif answer is None:
            print(self.words["cancelled"], flush=True)
        else:
            print(f"Agent: {safe(answer)}", flush=True)


class PlainTerminal(PlainConsole):
    """A terminal without the [chat] extra: plain lines, and the person's own yes or no to each call."""

    def __init__(self, lang: str | None) -> None:
        super().__init__(sys.stdout, yes=False, lang=lang)

    def read(self) -> str:
        line = input(f"{self.words['you']}: ")
        self.hear(line)
        return line

    def ask(self, what: str, untrusted: str | None = None) -> bool:
        if untrusted == TAKEN:
            self.say(f"  {self.words['untrusted']}")
        question = f"  {HOST_MARK} [{self.words['host']}] {safe(what)} — {self.words['allow']}? [y/N] "
        try:
            return input(question).strip().lower() in ("y", "yes")
        except (EOFError, KeyboardInterrupt):
            return False  # no answer is a no
