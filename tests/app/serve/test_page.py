"""The chat page of `main.py serve`, driven in Debian's headless Chromium through Playwright (which is
pointed at that browser and never downloads one): sign in, the tutorial prompt's tool card and answer, a
delete's approval (Refuse keeps the row, Approve removes it), model and tool output holding HTML that
shows as text and runs nothing, two conversations, errors as a line, the keyboard alone, both languages,
the empty state (what the agent can do, examples, the demo model's notice), the OpenAI face's conversations.
`PAGE_SCREENSHOTS=dir` keeps the pictures (`make page-screenshots` refreshes the docs')."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from collections.abc import Iterator

import pytest
import requests
from playwright.sync_api import Browser, Page, expect

from app.serve.errors import NotFound
from app.serve.page import _file as page_file
from devicedb.server import BackgroundService
from tests.conftest import ROOT
from tests.support.chromium import launched
from tests.support.fake_llm import FakeLLM, Reply, call, streamed, text, tool_calls
from tests.support.serve_support import ServedAgent, devices

ADD, QUERY, DELETE = "add_device_model", "query_device_model", "delete_device_model"
PERMISSIONS = {"default": ["add_model"], "users": {"alice": ["add_model", "delete_model"]}}
PHONE, DESKTOP = {"width": 390, "height": 844}, {"width": 1280, "height": 800}
HTML = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
WAIT = 30_000  # ms: a loaded machine is slow, never wrong
expect.set_options(timeout=WAIT)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    yield from launched()


class Site:
    """The served agent for the page tests: a scripted LLM, the device service on its own SQLite file
    (rows can be put in directly), alice may delete."""

    def __init__(self, agent: ServedAgent, llm: FakeLLM, service: BackgroundService) -> None:
        self.agent, self.llm, self.service = agent, llm, service
        self.url, self.database = agent.url, agent.database  # the device service's file is beside it
        self.keys = {user: agent.key(user) for user in ("alice", "bob")}

    def add_row(self, code: str, market_name: str = "Test phone") -> None:
        answer = requests.post(
            f"{self.service.url}/api/models", json={"model": code, "marketName": market_name}, timeout=10
        )
        assert answer.status_code in (200, 201), answer.text

    def codes(self) -> list[str]:
        return [row[0] for row in devices(self.database)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp("page")
    (tmp / "permissions.json").write_text(json.dumps(PERMISSIONS))
    with (
        FakeLLM() as llm,
        BackgroundService(tmp / "devices.db") as service,
        ServedAgent(
            llm.url,
            tmp,
            str(tmp / "agent.db"),
            ADD_MODEL_URL=f"{service.url}/api/models",
            PERMISSIONS_FILE=str(tmp / "permissions.json"),
            LLM_STREAM="1",
        ) as agent,
    ):
        yield Site(agent, llm, service)


@pytest.fixture
def fresh(site: Site) -> Site:
    """The site once no turn of an earlier test runs (one that goes on after its page closed would take this
    test's scripted replies), with no reply left in the script."""
    give_up_at = time.monotonic() + 60
    while site.agent.query("SELECT id FROM conversations WHERE state = 'running'"):
        assert time.monotonic() < give_up_at, "a turn of an earlier test is still running"
        time.sleep(0.1)
    site.llm.script.clear()
    return site


WATCH = """document.addEventListener("securitypolicyviolation",
  (e) => (window.refused ||= []).push(e.violatedDirective))"""


def open_page(browser: Browser, url: str, locale: str = "en-US", viewport: dict | None = None) -> Page:
    """A new browser context on the page; `close(page)` checks that nothing went wrong in it."""
    context = browser.new_context(locale=locale, viewport=viewport or DESKTOP)
    context.add_init_script(WATCH)  # what the Content-Security-Policy refused, if anything
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda error: page.errors.append(str(error)))  # type: ignore[attr-defined]
    page.goto(url)
    return page


def close(page: Page) -> None:
    """No script error and no policy violation in the page, then the context goes."""
    refused, errors = page.evaluate("window.refused || []"), page.errors  # type: ignore[attr-defined]
    page.context.close()
    assert (refused, errors) == ([], [])


def sign_in(page: Page, key: str) -> None:
    page.locator("#key").fill(key)
    page.locator("#key").press("Enter")
    expect(page.locator("#chat")).to_be_visible()


def say(page: Page, words: str) -> None:
    """Send `words` as a person does: once Send is enabled again (the last run has ended)."""
    expect(page.locator("#send")).to_be_enabled()
    page.locator("#message").fill(words)
    page.locator("#message").press("Enter")


def answers(page: Page):
    return page.locator(".entry.answer")


def test_sign_in_and_the_tutorial_prompt_give_a_tool_card_and_the_answer(browser, fresh):
    fresh.llm.add(
        streamed(tool_calls(call(ADD, {"model": "CPH2223"}, "call_add"))),
        streamed(text("已把 **CPH2223** 添加到数据库。")),
    )
    page = open_page(browser, fresh.url, "zh-CN")
    expect(page.locator("#signin h2")).to_have_text("登录")
    sign_in(page, fresh.keys["bob"])
    expect(page.locator("#who")).to_have_text("bob")
    assert page.evaluate("sessionStorage.getItem('agent-key')") == fresh.keys["bob"]
    assert fresh.keys["bob"] not in page.url

    say(page, "帮我把机型 CPH2223 添加到数据库")
    card = page.locator(".entry.tool")
    expect(card.locator(".tool-name")).to_have_text(f"🔧 {ADD}")
    expect(card.locator(".tool-status")).to_have_text("✓ 成功")
    expect(card.locator(".tool-args")).to_contain_text('"model": "CPH2223"')
    expect(card.locator(".tool-result")).to_contain_text("CPH2223")
    expect(card.locator(".tool-time")).to_have_text(re.compile(r"^\d+ ms$"))
    expect(answers(page).last.locator("strong")).to_have_text("CPH2223")
    expect(answers(page).last).to_contain_text("已把 CPH2223 添加到数据库。")
    assert "CPH2223" in fresh.codes()
    close(page)


def test_the_chat_shows_only_once_a_message_can_be_sent(browser, fresh):
    """Signing in, the chat appears only when the page can send (the agent's capabilities, GET /about,
    have come and a conversation is open): a message typed the moment it shows is answered, never a 400."""
    fresh.llm.add(streamed(text("Hello there.")))
    page = open_page(browser, fresh.url)
    held = []
    page.route("**/about", lambda route: held.append(route))
    page.locator("#key").fill(fresh.keys["bob"])
    page.locator("#key").press("Enter")
    while not held:
        page.wait_for_timeout(20)
    page.wait_for_timeout(300)  # the sign-in's other answers have come meanwhile
    assert not page.locator("#chat").is_visible()
    held[0].continue_()
    expect(page.locator("#chat")).to_be_visible()
    page.locator("#message").fill("hello")
    page.locator("#message").press("Enter")
    expect(answers(page).last).to_contain_text("Hello there.")
    expect(page.locator("#status")).to_be_hidden()
    close(page)


def test_a_wrong_key_is_a_line_in_the_page(browser, fresh):
    page = open_page(browser, fresh.url)
    page.locator("#key").fill("sk-agent-not-a-key")
    page.locator("#key").press("Enter")
    expect(page.locator("#status")).to_contain_text("not accepted")
    expect(page.locator("#signin")).to_be_visible()
    close(page)


def ask_delete(page: Page, site: Site, code: str, call_id: str, after: str) -> None:
    site.llm.add(streamed(tool_calls(call(DELETE, {"model": code}, call_id))), streamed(text(after)))
    say(page, f"delete model {code}")
    approval = page.locator(".approval")
    expect(approval).to_be_visible()
    expect(approval.locator(".approval-call")).to_have_text(f'{DELETE}({{"model":"{code}"}})')
    expect(page.locator(".tool-status").last).to_have_text("awaiting approval")


def test_a_delete_runs_only_after_approve_and_refuse_keeps_the_row(browser, fresh):
    fresh.add_row("RMX3085")
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["alice"])

    ask_delete(page, fresh, "RMX3085", "call_del_1", "I did not delete RMX3085.")
    assert "RMX3085" in fresh.codes()  # nothing runs before Approve
    page.locator(".approval .refuse").click()
    expect(answers(page).last).to_have_text("AgentI did not delete RMX3085.")
    expect(page.locator(".decision")).to_have_text("You refused this call.")
    assert "RMX3085" in fresh.codes()

    ask_delete(page, fresh, "RMX3085", "call_del_2", "Deleted RMX3085.")
    page.locator(".approval .approve").click()
    expect(answers(page).last).to_contain_text("Deleted RMX3085.")
    expect(page.locator(".entry.tool").last.locator(".tool-status")).to_have_text("✓ ok")
    assert "RMX3085" not in fresh.codes()
    close(page)


def test_a_new_message_voids_the_open_question_and_a_stored_one_can_be_answered(browser, fresh):
    """Another message while an approval waits: the call is not run (the server cancels it), and its
    question goes. A conversation left waiting, opened again, asks again; Approve runs the call."""
    fresh.add_row("RMX2111")
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["alice"])
    ask_delete(page, fresh, "RMX2111", "call_void", "unused")
    fresh.llm.script.clear()
    fresh.llm.add(streamed(text("Something else, then.")))
    say(page, "never mind")
    expect(answers(page).last).to_contain_text("Something else, then.")
    expect(page.locator(".approval")).to_have_count(0)
    expect(page.locator(".entry.tool").last.locator(".tool-status")).to_have_text("not run")
    assert "RMX2111" in fresh.codes()

    page.locator("#new").click()
    ask_delete(page, fresh, "RMX2111", "call_later", "Deleted RMX2111.")
    page.locator("#new").click()  # leave it waiting
    page.locator("#threads .thread", has_text="delete model RMX2111").first.click()
    expect(page.locator(".approval .approval-call")).to_have_text(f'{DELETE}({{"model":"RMX2111"}})')
    page.locator(".approval .approve").click()
    expect(answers(page).last).to_contain_text("Deleted RMX2111.")
    assert "RMX2111" not in fresh.codes()
    close(page)


def test_html_from_the_model_or_a_tool_shows_as_text_and_runs_nothing(browser, fresh):
    fresh.add_row("PGT110", HTML[:100])
    fresh.llm.add(
        streamed(tool_calls(call(QUERY, {"keyword": "PGT110"}, "call_q"))),
        streamed(text(f"Found it: {HTML}\n\n- `{HTML}`\n- [link](javascript:window.pwned=3)")),
    )
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["bob"])
    say(page, "Is PGT110 in the database?")
    expect(page.locator(".entry.tool .tool-result")).to_contain_text(
        '"<img src=x onerror=\\"window.pwned=1\\"><script>'
    )
    expect(answers(page).last).to_contain_text("<script>window.pwned=2</script>")
    assert page.evaluate("window.pwned") is None  # no handler, no script ran
    assert page.locator("#log img, #log script, #log a, #log iframe").count() == 0
    csp = requests.get(fresh.url, timeout=10).headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert "require-trusted-types-for 'script'" in csp
    tried = (
        "() => { try { document.createElement('p').innerHTML = '<b>x</b>'; return 'set' }"
        " catch (e) { return e.name } }"
    )
    assert page.evaluate(tried) == "TypeError"  # Trusted Types required: innerHTML throws
    page.wait_for_function("(window.refused || []).includes('require-trusted-types-for')")
    page.evaluate("window.refused = []")  # that refusal was this test's own
    close(page)


def test_a_second_conversation_then_back_to_the_first(browser, fresh):
    fresh.llm.add(streamed(text("First answer.")), streamed(text("Second answer.")))
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["bob"])
    say(page, "the first conversation")
    expect(answers(page).last).to_contain_text("First answer.")
    page.locator("#new").click()
    expect(page.locator("#log .entry")).to_have_count(0)
    say(page, "the second conversation")
    expect(answers(page).last).to_contain_text("Second answer.")

    threads = page.locator("#threads .thread")
    expect(threads.first).to_contain_text("the second conversation")  # the latest first
    page.locator("#threads .thread", has_text="the first conversation").click()
    expect(page.locator("#log .entry.person")).to_have_text(["Youthe first conversation"])
    expect(answers(page)).to_have_text(["AgentFirst answer."])
    expect(page.locator("#threads .thread[aria-current=true]")).to_contain_text("the first conversation")

    fresh.llm.add(streamed(text("Still the first.")))
    say(page, "and more")  # continues the first conversation
    expect(answers(page).last).to_contain_text("Still the first.")
    assert fresh.llm.requests[-1]["messages"][1]["content"] == "the first conversation"
    close(page)


def test_the_keyboard_alone_signs_in_sends_and_approves(browser, fresh):
    fresh.add_row("V2166A")
    page = open_page(browser, fresh.url)
    expect(page.locator("#key")).to_be_focused()
    page.keyboard.type(fresh.keys["alice"])
    page.keyboard.press("Enter")
    expect(page.locator("#message")).to_be_focused()
    fresh.llm.add(
        streamed(tool_calls(call(DELETE, {"model": "V2166A"}, "call_kb"))), streamed(text("Deleted V2166A."))
    )
    page.keyboard.type("delete model V2166A")
    page.keyboard.press("Enter")
    expect(page.locator(".approval")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator(".approval .approve")).to_be_focused()
    page.keyboard.press("Enter")
    expect(answers(page).last).to_contain_text("Deleted V2166A.")
    assert "V2166A" not in fresh.codes()
    close(page)


def test_the_language_follows_the_browser_and_the_switch(browser, fresh):
    page = open_page(browser, fresh.url, "zh-CN")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#signin button[type=submit]")).to_have_text("登录")
    page.locator("#lang").click()
    expect(page.locator("#signin button[type=submit]")).to_have_text("Sign in")
    page.reload()  # the choice is kept
    expect(page.locator("#signin button[type=submit]")).to_have_text("Sign in")
    close(page)


def test_a_model_that_fails_is_a_line_in_the_page(browser, fresh):
    # the script is empty: the model's endpoint answers 500 to every request, retries included
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["bob"])
    say(page, "hello")
    expect(page.locator("#status")).to_contain_text("This turn failed")
    expect(page.locator("#log .entry.person")).to_have_text(["Youhello"])
    close(page)


def test_a_stream_cut_off_before_its_run_ended_is_a_line_in_the_page(browser, fresh):
    """The run's stream ends after its first event (a proxy dropped it, say) while the server stays up."""
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["bob"])
    started = 'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n\n'
    page.route(
        "**/agui", lambda route: route.fulfill(status=200, content_type="text/event-stream", body=started)
    )
    say(page, "hello")
    expect(page.locator("#status")).to_have_text("The connection broke off; the answer is incomplete.")
    expect(page.locator("#log .entry.person")).to_have_text(["Youhello"])
    expect(page.locator("#send")).to_be_enabled()  # and the page goes on
    close(page)


def test_conversations_are_their_owners_only(fresh):
    """What the page reads besides the AG-UI stream, over plain HTTP: a key is needed, and another
    person's conversation is not found."""
    fresh.llm.add(streamed(text("Hi bob.")))
    bob, alice = ({"Authorization": f"Bearer {fresh.keys[u]}"} for u in ("bob", "alice"))
    run = {"threadId": "t-own", "runId": "r1", "state": {}, "tools": [], "context": [], "forwardedProps": {}}
    run["messages"] = [{"id": "m1", "role": "user", "content": "hello from bob"}]
    assert requests.post(f"{fresh.url}/agui", json=run, headers=bob, timeout=60).ok
    listed = requests.get(f"{fresh.url}/conversations", headers=bob, timeout=10).json()["conversations"]
    [mine] = [c for c in listed if c["threadId"] == "t-own"]
    assert mine["title"] == "hello from bob"
    shown = requests.get(f"{fresh.url}/conversations/{mine['id']}", headers=bob, timeout=10).json()
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    get = lambda path, **kw: requests.get(f"{fresh.url}{path}", timeout=10, **kw)  # noqa: E731
    assert get(f"/conversations/{mine['id']}", headers=alice).status_code == 404
    assert get(f"/conversations/{'c' * 101}", headers=bob).status_code == 404
    assert get("/conversations").status_code == 401
    assert get("/static/app.js").headers["X-Content-Type-Options"] == "nosniff"
    assert get("/docs").status_code == get("/redoc").status_code == 404  # their pages load a CDN's scripts


def test_only_the_pages_own_files_are_served():
    assert str(page_file("app.js").path).endswith("app.js")
    for name in ("../static/index.html", "../page.py", "page.py", "missing.js"):
        with pytest.raises(NotFound):
            page_file(name)


def test_rate_limits_and_a_server_gone_are_lines_in_the_page(browser, tmp_path):
    """Its own served agent, allowing 2 turns a minute, stopped at the end."""
    with (
        FakeLLM(default=text("Fine.")) as llm,
        ServedAgent(llm.url, tmp_path, str(tmp_path / "agent.db"), SERVE_REQUESTS_PER_MINUTE="2") as agent,
    ):
        page = open_page(browser, agent.url)
        sign_in(page, agent.key("dave"))
        for n in (1, 2):
            say(page, f"message {n}")
            expect(answers(page)).to_have_count(n)
        say(page, "message 3")
        expect(page.locator("#status")).to_have_text(re.compile(r"Too many requests; try again in \d+ s\."))
    say(page, "message 4")  # the server is gone
    expect(page.locator("#status")).to_contain_text("Cannot reach the server")
    expect(page.locator("#log .entry.person")).to_have_count(4)  # the page is all there
    close(page)


def test_a_turn_past_its_deadline_is_a_line_in_the_page(browser, tmp_path):
    """Its own served agent, whose turns may take 2 s (TURN_SECONDS); the model takes 10."""
    with (
        FakeLLM(default=Reply(text("Too late."), delay=10)) as llm,
        ServedAgent(llm.url, tmp_path, str(tmp_path / "agent.db"), TURN_SECONDS="2") as agent,
    ):
        page = open_page(browser, agent.url)
        sign_in(page, agent.key("erin"))
        say(page, "take your time")
        expect(page.locator("#status")).to_contain_text("This turn ran past its deadline and was stopped")
        expect(page.locator("#log .entry.person")).to_have_text(["Youtake your time"])
        expect(page.locator("#send")).to_be_enabled()  # and the page goes on
        close(page)


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_screenshots(browser, fresh, tmp_path, locale, width):
    """The docs' pictures: a turn with a tool card and an approval waiting, at both widths."""
    fresh.add_row("PDEM10")
    zh = locale == "zh-CN"
    fresh.llm.add(
        streamed(tool_calls(call(ADD, {"model": "CPH2237"}, "call_s1"))),
        streamed(text("已添加 **CPH2237**。" if zh else "Added **CPH2237**.")),
        streamed(tool_calls(call(DELETE, {"model": "PDEM10"}, "call_s2"))),
        streamed(text("OK, kept.")),  # after the refusal
    )
    page = open_page(browser, fresh.url, locale, PHONE if width == "phone" else DESKTOP)
    sign_in(page, fresh.keys["alice"])
    say(page, "把机型 CPH2237 添加到数据库" if zh else "Add model CPH2237 to the database")
    expect(answers(page).last).to_contain_text("CPH2237")
    say(page, "删除机型 PDEM10" if zh else "Delete model PDEM10")
    expect(page.locator(".approval")).to_be_visible()
    width_of = page.evaluate("document.documentElement.scrollWidth")
    assert width_of <= (PHONE if width == "phone" else DESKTOP)["width"]  # no sideways scrolling
    path = tmp_path / f"page-{locale[:2]}-{width}.png"
    page.screenshot(path=path)
    if os.environ.get("PAGE_SCREENSHOTS"):
        shutil.copyfile(path, ROOT / os.environ["PAGE_SCREENSHOTS"] / path.name)
    page.locator(".approval .refuse").click()  # leave the row, and the conversation answered
    expect(answers(page).last).to_contain_text("OK, kept.")  # the turn ends here, not in the next test
    close(page)


def test_the_empty_state_says_what_the_agent_can_do_and_an_example_is_sent(browser, fresh):
    fresh.llm.add(
        streamed(tool_calls(call(QUERY, {"keyword": "CPH2223"}, "call_e1"))), streamed(text("Not there."))
    )
    headers = {"Authorization": f"Bearer {fresh.keys['bob']}"}
    about = requests.get(f"{fresh.url}/about", headers=headers, timeout=10).json()
    assert {tool["name"] for tool in about["tools"]} >= {ADD, QUERY, DELETE, "current_time", "calculator"}
    assert about["notice"] is None  # a configured model, not the demo's
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["bob"])
    welcome = page.locator(".welcome")
    expect(welcome.locator(".capabilities li")).to_have_count(len(about["tools"]))
    expect(welcome.locator(".capabilities")).to_contain_text("list the models in the database")  # its summary
    expect(welcome.locator(".demo-notice")).to_have_count(0)
    expect(welcome.locator(".example")).to_have_count(3)
    welcome.locator(".example").nth(1).click()
    expect(page.locator("#log .entry.person")).to_have_text(["YouIs CPH2223 in the database?"])
    expect(answers(page).last).to_have_text("AgentNot there.")
    expect(page.locator(".welcome")).to_have_count(0)
    asked = [m["content"] for m in fresh.llm.requests[-1]["messages"] if m["role"] == "user"]
    assert asked == ["Is CPH2223 in the database?"]
    close(page)


def test_a_conversation_of_the_openai_face_is_listed_and_goes_on_in_the_page(browser, fresh):
    fresh.llm.add(streamed(text("Hello from the API.")), streamed(text("Still the same conversation.")))
    headers = {"Authorization": f"Bearer {fresh.keys['alice']}"}
    body = {"messages": [{"role": "user", "content": "hello through the OpenAI face"}]}
    started = requests.post(f"{fresh.url}/v1/chat/completions", json=body, headers=headers, timeout=60)
    conversation = started.json()["conversation_id"]
    page = open_page(browser, fresh.url)
    sign_in(page, fresh.keys["alice"])
    listed = page.locator(".thread", has_text="hello through the OpenAI face")
    expect(listed).to_have_count(1)
    listed.click()
    expect(answers(page)).to_have_text(["AgentHello from the API."])
    say(page, "and now from the page")
    expect(answers(page).last).to_have_text("AgentStill the same conversation.")
    expect(page.locator(".thread", has_text="hello through the OpenAI face")).to_have_count(1)
    shown = requests.get(f"{fresh.url}/conversations/{conversation}", headers=headers, timeout=10).json()
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant", "user", "assistant"]
    close(page)


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServedAgent]:
    """The served agent as a newcomer starts it: no LLM configured, so the embedded demo model answers."""
    tmp = tmp_path_factory.mktemp("demo-page")
    with ServedAgent("", tmp, str(tmp / "agent.db")) as agent:
        yield agent


@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
def test_screenshots_of_the_empty_state_with_the_demo_models_notice(browser, demo_site, tmp_path, locale):
    """The README's pictures of the empty state: what the agent can do, examples, the demo's notice."""
    zh = locale == "zh-CN"
    page = open_page(browser, demo_site.url, locale)
    sign_in(page, demo_site.key(f"newcomer-{locale[:2]}"))
    notice = page.locator(".welcome .demo-notice")
    expect(notice).to_contain_text("演示模型 SmolLM2-135M" if zh else "embedded 135M demo model")
    expect(notice).not_to_contain_text("No LLM configured" if zh else "演示模型")  # one language at a time
    expect(page.locator(".welcome .example").first).to_have_text(
        "把机型 CPH2223 添加到数据库" if zh else "Add the model CPH2223 to the database"
    )
    expect(page.locator(".welcome .capabilities")).to_contain_text("添加" if zh else "add a device model")
    expect(page.locator(".welcome .capabilities")).to_contain_text("删除" if zh else "delete")  # confirmed
    path = tmp_path / f"page-empty-{locale[:2]}.png"
    page.screenshot(path=path)
    if os.environ.get("PAGE_SCREENSHOTS"):
        shutil.copyfile(path, ROOT / os.environ["PAGE_SCREENSHOTS"] / path.name)
    page.locator("#lang").click()  # the welcome follows the switch
    expect(notice).to_contain_text("embedded 135M demo model" if zh else "演示模型 SmolLM2-135M")
    close(page)


def test_the_page_needs_nothing_from_another_origin():
    """No CDN: every file the page loads is its own (fetch, import, src, href and url() name no other
    origin), and no script is inline."""
    elsewhere = re.compile(r"""(src|href|import|from|fetch\(|url\()\s*=?\s*["'(]?\s*(https?:)?//""")
    for path in (ROOT / "app" / "serve" / "static").iterdir():
        assert not elsewhere.search(path.read_text()), path.name
    html = (ROOT / "app" / "serve" / "static" / "index.html").read_text()
    assert all("src=" in tag for tag in re.findall(r"<script[^>]*>", html))
