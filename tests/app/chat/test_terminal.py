"""The real program in a pseudo-terminal (pexpect): panels, streaming, Ctrl-C, /exit, resumed sessions."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable

import pexpect
import pytest

from devicedb.server import BackgroundService
from tests.conftest import ROOT, clean_env
from tests.support.fake_llm import Reply, call, streamed, text, tool_calls
from tests.support.zygote import helper_server

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def spawn(
    fake_llm, tmp_path, *args: str, lang: str = "en_US.UTF-8", sigint: signal.Handlers = signal.SIG_DFL
) -> pexpect.spawn:
    """The chat in a pseudo-terminal. It starts with SIGINT as `sigint` says, whatever the tests' own
    process has (a shell script's background job, as a test run may be, starts with it ignored)."""
    env = clean_env(
        LLM_BASE_URL=fake_llm.url,
        DEVICE_DB=str(tmp_path / "d.db"),
        AUDIT_LOG=str(tmp_path / "data" / "audit.jsonl"),
        TERM="xterm-256color",
        LANG=lang,
        PROMPT_TOOLKIT_NO_CPR="1",
    )
    for name in ("LC_ALL", "LC_MESSAGES"):
        env.pop(name, None)
    child = pexpect.spawn(
        sys.executable,
        [str(ROOT / "main.py"), *args],
        cwd=str(tmp_path),
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 120),
        preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
    )
    child.expect("You:")
    return child


def type_line(child: pexpect.spawn, line: str) -> None:
    """Type a line once the prompt is ready for it (keys sent while it starts up can be lost)."""
    time.sleep(0.3)
    child.sendline(line)


def until(child: pexpect.spawn, wanted: str, timeout: float = 20) -> str:
    """Read the screen until `wanted` shows (terminal codes removed: they may split it); return it all."""
    seen, give_up_at = "", time.monotonic() + timeout
    while wanted not in ANSI.sub("", seen):
        if time.monotonic() > give_up_at:
            raise AssertionError(f"{wanted!r} never showed; the screen had: {ANSI.sub('', seen)[-800:]!r}")
        with contextlib.suppress(pexpect.TIMEOUT):
            seen += child.read_nonblocking(4096, timeout=0.2)
    return ANSI.sub("", seen)


def waits_for(done: Callable[[], bool], timeout: float = 20) -> None:
    give_up_at = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < give_up_at, "never happened"
        time.sleep(0.05)


@pytest.fixture
def children():
    started: list[pexpect.spawn] = []
    yield started
    for child in started:
        child.close(force=True)


def test_tools_and_exit(fake_llm, tmp_path, children):
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    type_line(child, "/tools")
    shown = until(child, "current_time")
    assert "add_device_model" in shown and "query_device_model" in shown
    type_line(child, "/exit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_turn_with_a_tool_call_shows_the_panel_and_the_streamed_answer(fake_llm, tmp_path, children):
    fake_llm.add(
        streamed(tool_calls(call("add_device_model", {"model": "CPH2223"}, "call_1"))),
        streamed(text("已成功将机型 **CPH2223** 添加到数据库！")),
    )
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    type_line(child, "把机型 CPH2223 添加到数据库")
    shown = until(child, "添加到数据库！")
    assert "🔧 add_device_model" in shown
    assert '{"model": "CPH2223"}' in shown and "✓ ok" in shown
    assert "已成功将机型 CPH2223 添加到数据库！" in shown  # Markdown: bold, without the asterisks
    assert all(r["stream"] is True for r in fake_llm.requests)


def test_escape_sequences_from_the_model_are_not_printed(fake_llm, tmp_path, children):
    fake_llm.add(text("safe \x1b]0;pwned\x07\x1b[2Jtext"))
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    type_line(child, "hi")
    child.expect("text")
    raw = child.before + child.after
    assert "safe text" in ANSI.sub("", raw)
    assert "pwned" not in raw and "\x1b[2J" not in raw


@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["default", "ignored"])
def test_ctrl_c_cancels_a_slow_turn_and_the_session_goes_on(fake_llm, tmp_path, children, sigint):
    """Ctrl-C while the model is thinking cancels the turn, also in a chat started with SIGINT ignored (as
    a shell script's background job is; Python leaves it ignored). The model answers only once the test
    is done waiting for the cancel, so Ctrl-C is pressed while the chat waits, however slow the machine."""
    cancelled = threading.Event()

    def slow(request: dict) -> Reply:
        cancelled.wait(30)
        return Reply(text("late"))

    fake_llm.add(
        tool_calls(call("query_device_model", {"keyword": "CPH"}, "call_q")), slow, text("still here")
    )
    child = spawn(fake_llm, tmp_path, sigint=sigint)
    children.append(child)
    type_line(child, "slow one")
    until(child, "query_device_model")
    waits_for(lambda: len(fake_llm.requests) == 2)  # the chat waits for the model's second answer
    child.sendintr()
    try:
        until(child, "turn cancelled")
    finally:
        cancelled.set()
    type_line(child, "are you there?")
    until(child, "still here")
    last = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "tool", "user"]
    assert last[3]["tool_call_id"] == "call_q"


def test_a_locale_naming_no_language_lets_the_words_follow_the_person(fake_llm, tmp_path, children):
    """LANG=C.UTF-8: English until the person writes; then the language of each message they type."""
    fake_llm.add(
        text("Hi."),
        tool_calls(call("delete_device_model", {"model": "CPH2223"}, "call_l")),
        text("没有删除。"),
        text("Fine."),
    )
    child = spawn(fake_llm, tmp_path, lang="C.UTF-8")
    children.append(child)
    type_line(child, "hello")
    until(child, "You:")
    type_line(child, "删除机型 CPH2223")
    until(child, "允许吗? [y/N]")
    type_line(child, "n")
    until(child, "你:")
    type_line(child, "thanks")
    shown = until(child, "Fine.")
    after = shown[shown.index("Fine.") :]  # the prompt may come in the same read as the answer, or after it
    if ":" not in after:
        after += until(child, ":")  # the next prompt, in whichever language
    assert "You:" in after and "你:" not in after, after


def test_ctrl_c_at_the_prompt_clears_the_line(fake_llm, tmp_path, children):
    fake_llm.add(text("only this"))
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    time.sleep(0.3)
    child.send("half a thought")
    time.sleep(0.3)
    child.sendintr()
    type_line(child, "hello")
    until(child, "only this")
    assert [m["content"] for m in fake_llm.requests[0]["messages"] if m["role"] == "user"] == ["hello"]


def test_a_session_is_resumed_with_a_valid_history(fake_llm, tmp_path, children):
    fake_llm.add(
        tool_calls(call("query_device_model", {"keyword": "CPH"}, "call_r")),
        text("none yet"),
        text("you asked about CPH"),
    )
    first = spawn(fake_llm, tmp_path, "--session", "work")
    children.append(first)
    type_line(first, "any CPH models?")
    until(first, "none yet")
    type_line(first, "/exit")
    first.expect(pexpect.EOF)
    second = spawn(fake_llm, tmp_path, "--session", "work")
    children.append(second)
    type_line(second, "what did I ask?")
    until(second, "you asked about CPH")
    resumed = fake_llm.requests[-1]["messages"]
    assert [m["role"] for m in resumed] == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert resumed[2]["tool_calls"][0]["id"] == resumed[3]["tool_call_id"] == "call_r"


def test_a_tool_name_with_markup_is_shown_as_text(fake_llm, tmp_path, children):
    fake_llm.add(tool_calls(call("x[/bold][link=http://evil]y", {}, "call_m")), text("moving on"))
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    type_line(child, "go")
    shown = until(child, "moving on")
    assert "🔧 x[/bold][link=http://evil]y" in shown and "unknown tool" in shown


def test_each_line_of_an_answer_stays_a_line():
    from rich.console import Console
    from rich.markdown import Markdown

    from app.chat.terminal import lines_kept

    console = Console(width=80, record=True)
    console.print(Markdown(lines_kept("机型 PJX111 已添加到数据库。\nadd_device_model 没有完成。")))
    assert [line.strip() for line in console.export_text().splitlines() if line.strip()] == [
        "机型 PJX111 已添加到数据库。",
        "add_device_model 没有完成。",
    ]


def test_the_hosts_question_and_a_servers_never_interleave(fake_llm, tmp_path, children):
    """docs/security: the host's questions carry [host], a server's its name, and the two never interleave.
    One reply calls a server's tool that asks a question while it runs and a delete the host asks about;
    each question is shown whole and answered before the other shows, and each answer goes where it was
    typed."""
    log = tmp_path / "attack.jsonl"
    form = {"type": "object", "properties": {"unit": {"type": "string"}}}
    server = {
        **helper_server("attack_server"),
        "env": {"ATTACK_PLAN": json.dumps({"elicit": "Which unit?", "form": form}), "ATTACK_LOG": str(log)},
        "trusted": True,
    }
    (tmp_path / "mcp_servers.json").write_text(json.dumps({"mcpServers": {"attack": server}}))
    (tmp_path / "permissions.json").write_text('{"default": ["add_model", "delete_model"]}')
    with BackgroundService(tmp_path / "d.db") as service:
        service.store.add({"model": "CPH2411", "marketName": "OPPO Reno", "createdBy": "t"}, None, "")
    both = [
        call("attack__weather", {"city": "Paris"}, "c1"),
        call("delete_device_model", {"model": "CPH2411"}, "c2"),
    ]
    fake_llm.add(tool_calls(*both), text("Done."))
    child = spawn(fake_llm, tmp_path)
    children.append(child)
    type_line(child, "Weather in Paris, and delete CPH2411")
    questions = [
        r"\[host\] delete_device_model\(.*\? \[y/N\]",
        r"attack: unit \[string\]:",
        r"\[host\] Send .*\? \[y/N\]",
    ]
    order, replies = [], ["y", "metric", "y"]
    for _ in range(3):
        shown = child.expect(questions, timeout=30)
        assert not any(re.search(q, ANSI.sub("", child.before)) for q in questions), child.before
        order.append(shown)
        child.sendline(replies[shown])
        child.expect(re.escape(replies[shown]) + r"[^\n]*\n")  # its line, drawn again with the answer
    until(child, "Done.", timeout=30)
    assert order.index(2) == order.index(1) + 1  # the server's form and its "send?" follow each other
    elicited = [e for e in map(json.loads, log.read_text().splitlines()) if e["tool"] == "elicited"]
    assert [e["arguments"] for e in elicited] == [{"unit": "metric"}]
    with sqlite3.connect(tmp_path / "d.db") as db:
        assert db.execute("SELECT model FROM models").fetchall() == []  # the person's yes went to the host
