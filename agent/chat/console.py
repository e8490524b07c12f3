"""The terminal face of the chat: rich panels for tool calls, a spinner, streamed Markdown answers,
prompt_toolkit input with history — and nothing from a model or a tool printed unsanitized.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console as RichTerminal
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from agent.guards import HOST_MARK, safe
from agent.mcp.elicitation import Answer, fields_of, parse_value

MESSAGES = {
    "zh": {
        "banner": "🤖 Chat Agent（支持工具调用）— /help 查看命令，Ctrl-D 退出",
        "you": "你",
        "agent": "Agent",
        "thinking": "思考中…",
        "cancelled": "（已取消本轮）",
        "allow": "允许吗",
        "host": "本程序",
        "untrusted": "注意：这个调用是模型读了不可信的内容（工具结果、资源等）之后决定的，未必是你要的。",
        "ok": "成功",
        "failed": "失败",
    },
    "en": {
        "banner": "🤖 Chat Agent (Tool Use Enabled) — /help for commands, Ctrl-D to leave",
        "you": "You",
        "agent": "Agent",
        "thinking": "thinking…",
        "cancelled": "(turn cancelled)",
        "allow": "Allow",
        "host": "host",
        "untrusted": "Note: the model decided this call after reading untrusted text (tool output, "
        "resources); it may not be what you asked for.",
        "ok": "ok",
        "failed": "failed",
    },
}


class Console(Protocol):
    """What the chat needs of a screen and a keyboard (`RichConsole` on a terminal, `PlainConsole` else)."""

    words: dict[str, str]

    def read(self) -> str:
        """The next line typed; KeyboardInterrupt clears it, EOFError ends the chat."""
        ...

    def say(self, text: str) -> None: ...

    def ask(self, what: str, after_untrusted: bool = False) -> bool:
        """The person's yes or no to `what` (a call to confirm, new MCP tools to allow); `after_untrusted`:
        the model decided it after reading untrusted text, so it may not be what the person asked for."""
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
LATIN = re.compile(r"[A-Za-z]")


def language(flag: str | None) -> str | None:
    """--lang if given, else the locale (LC_ALL, LC_MESSAGES, LANG): zh or en; None when it names neither
    (C, POSIX, C.UTF-8, unset...): then the chat's words follow the language of what the person types."""
    env = os.environ
    chosen = (flag or env.get("LC_ALL") or env.get("LC_MESSAGES") or env.get("LANG") or "").lower()
    if chosen.startswith("zh"):
        return "zh"
    return "en" if chosen.startswith("en") else None


def language_of(text: str, before: str) -> str:
    """The language of a message: zh with Chinese characters, en with Latin letters only, else `before`."""
    if CJK.search(text):
        return "zh"
    return "en" if LATIN.search(text) else before


class RichConsole:
    """One interactive terminal session; `turn()` is the context of one agent turn."""

    def __init__(self, lang: str | None, history_file: Path) -> None:
        """`lang` None: the words follow each message the person types (English until the first)."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        history_file.parent.mkdir(parents=True, exist_ok=True)
        self.follows_person = lang is None
        self.lang = lang or "en"
        self.words = MESSAGES[self.lang]
        self.console = RichTerminal(highlight=False)
        self._prompt: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)))
        self._live: Live | None = None
        self._status: Any = None
        self._streamed = ""
        self._asking = threading.RLock()  # one question at a time: a server's form never takes an answer

    def read(self) -> str:
        """The next line typed; Ctrl-C clears the line (KeyboardInterrupt), Ctrl-D ends (EOFError)."""
        line = self._prompt.prompt(f"{self.words['you']}: ")
        if self.follows_person and not line.lstrip().startswith("/"):
            self.lang = language_of(line, self.lang)
            self.words = MESSAGES[self.lang]
        return line

    def say(self, text: str) -> None:
        self.console.print(Text(safe(text)))

    def ask(self, what: str, after_untrusted: bool = False) -> bool:
        """The host's own question, marked as the host's: a server's text never reaches this line."""
        with self._asking:
            self._stop()
            if after_untrusted:
                self.console.print(Text(f"  {self.words['untrusted']}", style="yellow"))
            try:
                answer = self._prompt.prompt(
                    f"  {HOST_MARK} [{self.words['host']}] {safe(what)} — {self.words['allow']}? [y/N] "
                )
            except (EOFError, KeyboardInterrupt):
                return False  # no answer is a no
            return answer.strip().lower() in ("y", "yes")

    def elicit(self, server: str, request: Any) -> Answer:
        """An MCP server's question (`elicitation/create`), asked field by field, each line naming the
        server, after any question of the host's is answered; Ctrl-C or Ctrl-D cancel."""
        with self._asking:
            return self._elicit(server, request)

    def _elicit(self, server: str, request: Any) -> Answer:
        self._stop()
        self.console.print(Panel(Text(safe(request.message)), title=Text(f"❓ MCP server {safe(server)}")))
        try:
            if getattr(request, "url", None):
                self.say(f"  {request.url}")
                return ("accept", {}) if self.ask("Open this page") else ("decline", None)
            content = {}
            for field in fields_of(dict(request.requested_schema)):
                value = self._ask_field(server, field)
                if value is not None:
                    content[field.name] = value
            return ("accept", content) if self.ask(f"Send {content} to {server}") else ("decline", None)
        except (EOFError, KeyboardInterrupt):
            return "cancel", None

    def _ask_field(self, server: str, field: Any) -> Any:
        default = "" if field.default is None else f", {field.default}"
        hint = f" [{'/'.join(field.choices) or field.kind}{default}]"
        for _ in range(5):
            typed = self._prompt.prompt(f"  ❓ {safe(server)}: {safe(field.label)}{safe(hint)}: ").strip()
            if not typed:
                if field.default is not None or not field.required:
                    return field.default
                self.say("  (required)")
                continue
            try:
                return parse_value(field, typed)
            except ValueError as e:
                self.say(f"  ({e})")
        raise KeyboardInterrupt  # five wrong answers: give up on this question

    async def open_url(self, url: str) -> None:
        """An MCP server needs authorization: the person opens the page; its answer comes back to us."""
        self._stop()
        self.say(f"  🔑 授权 / authorize in your browser: {url}")

    def begin_turn(self) -> None:
        self._streamed = ""
        self._status = self.console.status(self.words["thinking"])
        self._status.start()

    def on_text(self, piece: str) -> None:
        if self._live is None:
            self._stop()
            self._live = Live(console=self.console, refresh_per_second=12)
            self._live.start()
        self._streamed += safe(piece)
        self._live.update(Markdown(self._streamed))

    def on_tool(self, call: dict[str, Any], envelope: str, seconds: float) -> None:
        self._stop()
        body = json.loads(envelope)
        status = f"[green]✓ {self.words['ok']}[/]" if body["ok"] else f"[red]✗ {self.words['failed']}[/]"
        args = call["args"] if isinstance(call["args"], str) else json.dumps(call["args"], ensure_ascii=False)
        preview = json.dumps(body.get("data", body.get("error")), ensure_ascii=False)
        text = Text(f"{safe(args)}\n")
        text.append_text(Text.from_markup(f"{status}  {seconds * 1000:.0f} ms\n"))
        text.append(safe(preview[:300]) + ("…" if len(preview) > 300 else ""), style="dim")
        self.console.print(
            Panel(text, title=Text(f"🔧 {safe(call['name'] or '?')}"), title_align="left", expand=False)
        )
        self.begin_turn()

    def end_turn(self, answer: str | None, error: str | None = None) -> None:
        streamed = self._live is not None
        self._stop()
        if error:
            self.console.print(Text(f"error: {safe(error)}", style="red"))
        elif answer is None:
            self.console.print(Text(self.words["cancelled"], style="yellow"))
        elif not streamed:
            self.console.print(Markdown(safe(answer)))

    def end_turn_quietly(self) -> None:
        self._stop()

    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self._live is not None:
            self._live.stop()
            self._live = None


class PlainConsole:
    """Pipes and `-m`: plain lines, no colours; confirmations only with --yes."""

    words = MESSAGES["en"]

    open_url = None  # nobody to sign in: a server that needs authorization is reported and skipped

    def __init__(self, out: Any, yes: bool) -> None:
        self.out, self.yes = out, yes
        self.refused: list[str] = []  # what was refused for want of --yes (`-m` then fails, saying so)

    def elicit(self, server: str, request: Any) -> Answer:
        """A server's question is declined: nobody is here to answer it, and --yes speaks for the person
        only about what they asked for, never to a server."""
        self.say(f"  ❓ MCP server {server!r} asks: {request.message}: declined (no one to ask)")
        return "decline", None

    def read(self) -> str:
        return input("")

    def say(self, text: str) -> None:
        print(safe(text), file=self.out, flush=True)

    def ask(self, what: str, after_untrusted: bool = False) -> bool:
        """--yes approves what the person asked for; never a call decided after reading untrusted text."""
        if after_untrusted:
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
        self.say(f"  → 调用工具 {call['name']}({args})")
        self.say(f"  ← {envelope[:300]}")

    def end_turn_quietly(self) -> None:
        pass

    def end_turn(self, answer: str | None, error: str | None = None) -> None:
        if error:
            print(f"error: {safe(error)}", flush=True)
        elif answer is None:
            print(self.words["cancelled"], flush=True)
        else:
            print(f"Agent: {safe(answer)}", flush=True)
