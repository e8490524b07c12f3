"""RichConsole, the chat on a terminal: rich panels for tool calls, a spinner, streamed Markdown answers,
prompt_toolkit input with history (the [chat] extra) — and nothing from a model or a tool printed unsanitized.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console as RichTerminal
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from agent.guards import HOST_MARK, safe
from agent.provenance import TAKEN
from app.chat.console import Words
from app.chat.interrupts import whole

if TYPE_CHECKING:
    from app.mcp.elicitation import Answer


class RichConsole:
    """One interactive terminal session; `turn()` is the context of one agent turn."""

    def __init__(self, lang: str | None, history_file: Path) -> None:
        """`lang` None: the words follow each message the person types (English until the first)."""
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        history_file.parent.mkdir(parents=True, exist_ok=True)
        self.language = Words(lang)
        self.words = self.language.words
        self.console = RichTerminal(highlight=False)
        self._prompt: PromptSession[str] = PromptSession(history=FileHistory(str(history_file)))
        self._live: Live | None = None
        self._status: Any = None
        self._streamed = ""
        self._asking = threading.RLock()  # one question at a time: a server's form never takes an answer

    def read(self) -> str:
        """The next line typed; Ctrl-C clears the line (KeyboardInterrupt), Ctrl-D ends (EOFError)."""
        line = self._prompt.prompt(f"{self.words['you']}: ")
        self.words = self.language.heard(line)
        return line

    def say(self, text: str) -> None:
        self.console.print(Text(safe(text)))

    def ask(self, what: str, untrusted: str | None = None) -> bool:
        """The host's own question, marked as the host's: a server's text never reaches this line."""
        with self._asking:
            self._stop()
            if untrusted == TAKEN:
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
        from app.mcp.elicitation import fields_of  # only an MCP server asks

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
                return _parse(field, typed)
            except ValueError as e:
                self.say(f"  ({e})")
        raise KeyboardInterrupt  # five wrong answers: give up on this question

    async def open_url(self, url: str) -> None:
        """An MCP server needs authorization: the person opens the page; its answer comes back to us."""
        self._stop()
        self.say(f"  🔑 授权 / authorize in your browser: {url}")

    @whole()  # Ctrl-C waits for the spinner to be started or stopped whole
    def begin_turn(self) -> None:
        self._streamed = ""
        self._status = self.console.status(self.words["thinking"])
        self._status.start()

    @whole()
    def on_text(self, piece: str) -> None:
        if self._live is None:
            self._stop()
            self._live = Live(console=self.console, refresh_per_second=12)
            self._live.start()
        self._streamed += safe(piece)
        self._live.update(Markdown(lines_kept(self._streamed)))

    @whole()
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

    @whole()
    def end_turn(self, answer: str | None, error: str | None = None) -> None:
        streamed = self._live is not None
        self._stop()
        if error:
            self.console.print(Text(f"error: {safe(error)}", style="red"))
        elif answer is None:
            self.console.print(Text(self.words["cancelled"], style="yellow"))
        elif not streamed:
            self.console.print(Markdown(lines_kept(safe(answer))))

    def end_turn_quietly(self) -> None:
        self._stop()

    @whole()
    def _stop(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self._live is not None:
            self._live.stop()
            self._live = None


def _parse(field: Any, typed: str) -> Any:
    from app.mcp.elicitation import parse_value

    return parse_value(field, typed)


def lines_kept(text: str) -> str:
    """Markdown in which each line of the answer stays a line (one sentence per call's result), as `-m` and
    pipes print it: a line break is a hard one."""
    return text.replace("\n", "  \n")
