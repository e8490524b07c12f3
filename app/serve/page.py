"""The chat page: `GET /` and its files (app/serve/static/, package data) under a Content-Security-Policy
that runs only this origin's scripts and no HTML sink, and what the page reads besides the AG-UI stream —
what the agent can do and the model's notice, for its empty state (`GET /about`), the signed-in person's
conversations (`GET /conversations`, from either face) and one of them as the page shows it
(`GET /conversations/{id}`; another person's is a 404), behind the same Bearer key."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from starlette.concurrency import run_in_threadpool

from agent.function_tool import FunctionTool
from agent.guards import envelope_of, safe
from agent.memory import DURATION_MS
from app.serve.approvals import Approval
from app.serve.conversations import ConversationStore
from app.serve.errors import NotFound
from app.serve.events import CallMade
from app.serve.service import service, signed_in

STATIC = Path(__file__).parent / "static"
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
CSP = "; ".join(
    [
        "default-src 'none'",
        "script-src 'self'",  # no inline script, no eval, no other origin
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",  # a form that JavaScript did not handle sends nothing anywhere
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",  # innerHTML and its kin throw: text only
        "trusted-types 'none'",
    ]
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
TITLE_CHARS = 80
LANGUAGES = ("zh", "en")
CJK = re.compile(r"[\u3400-\u9fff]")
router = APIRouter()


@router.get("/", include_in_schema=False)
async def page() -> FileResponse:
    return _file("index.html")


@router.get("/static/{name}", include_in_schema=False)
async def static(name: str) -> FileResponse:
    return _file(name)


def _file(name: str) -> FileResponse:
    path = STATIC / name
    if "/" in name or path.suffix not in TYPES or not path.is_file():
        raise NotFound(f"no such file: {name[:100]}")
    return FileResponse(path, media_type=TYPES[path.suffix], headers=HEADERS)


@router.get("/about")
async def about(request: Request, user: Annotated[str, Depends(signed_in)]) -> dict[str, Any]:
    """For the page's empty state: a line per tool in each language, and the model's notice (set when
    no LLM is configured and the embedded demo model answers), each in each language."""
    host = service(request).host
    runs = host.model.runs if host.model else lambda tool: True  # the demo model runs no removal
    tools = [tool for tool in host.registry.tools() if tool.name != "search_tools" and runs(tool)]
    notice = host.model.notice if host.model else ""
    return {
        "tools": [{"name": t.name, "summary": {lang: summary(t, lang) for lang in LANGUAGES}} for t in tools],
        "notice": {lang: in_language(notice, lang) for lang in LANGUAGES} if notice else None,
    }


def summary(tool: FunctionTool, lang: str) -> str:
    """What the tool does, for a person: its `summary` in `lang` when it declares one, else the first
    sentence in `lang` of its (model-facing) description, without the examples."""
    declared = getattr(tool, "summary", None)
    if isinstance(declared, dict) and declared.get(lang):
        return safe(declared[lang])
    return first_sentence(tool.description, lang)


def first_sentence(description: str, lang: str) -> str:
    """The description's first sentence in `lang` (a bilingual one has its English after its Chinese),
    without its examples; the other language's when it has none in `lang`."""
    chinese = re.split(r"[。；]|[，,]?\s*例如", description, maxsplit=1)[0] if CJK.match(description) else ""
    english = re.search(
        r"(?:^|(?<=[。”！？.]))\s*([A-Z][^\u3400-\u9fff]*?)(?:,? e\.g\.|\.(?:\s|$)|$)", description
    )
    chosen = chinese if lang == "zh" else (english.group(1) if english else "")
    return safe((chosen or chinese or (english.group(1) if english else description)).strip())


def in_language(notice: str, lang: str) -> str:
    """The lines of a notice written in `lang` (a notice is told in both, a line each), else all of it."""
    lines = [line for line in notice.splitlines() if bool(CJK.search(line)) == (lang == "zh")]
    return safe("\n".join(lines) if lines and len(lines) < len(notice.splitlines()) else notice)


@router.get("/conversations")
async def conversations(request: Request, user: Annotated[str, Depends(signed_in)]) -> dict[str, Any]:
    """The person's conversations, the latest first: AG-UI threads (the page's and any AG-UI client's) and
    those of the OpenAI face (their thread id is their conversation id, so the page can go on with them)."""
    rows = await run_in_threadpool(threads, _store(request), user)
    listed = [
        {
            "id": row["id"],
            "threadId": row["thread_id"],
            "title": _title(row["first"]),
            "updatedAt": row["updated_at"],
            "state": row["state"],
        }
        for row in rows
    ]
    return {"user": user, "conversations": listed}


@router.get("/conversations/{conversation_id}")
async def conversation(
    conversation_id: str, request: Request, user: Annotated[str, Depends(signed_in)]
) -> dict[str, Any]:
    """One conversation of the person's: its messages and tool calls, and the approval it waits for."""
    store = _store(request)
    found, pending = (None, None)
    if len(conversation_id) <= 100:  # ids are short; a longer one is nobody's
        found, pending = await run_in_threadpool(owned, store, user, conversation_id)
    if found is None:
        raise NotFound(f"no conversation {conversation_id[:100]!r} of yours", param="conversation_id")
    stored = await run_in_threadpool(store.messages, found["id"])
    return {
        "id": found["id"],
        "threadId": found["thread_id"],
        "state": found["state"],
        "messages": transcript([message for _, message in stored]),
        "pending": ({**pending.public(), "question": pending.question()} if pending else None),
    }


@router.post("/conversations/{conversation_id}/cancel")
async def cancel(
    conversation_id: str, request: Request, user: Annotated[str, Depends(signed_in)]
) -> dict[str, Any]:
    """Stop the turn running in one of the person's conversations before it runs another tool call (a
    client that only goes away does not stop it)."""
    if len(conversation_id) > 100:
        raise NotFound(f"no conversation {conversation_id[:100]!r} of yours", param="conversation_id")
    run_id = await run_in_threadpool(_store(request).cancel, user, conversation_id)
    return {"id": conversation_id, "cancelled": run_id is not None, "runId": run_id}


def _store(request: Request) -> ConversationStore:
    return service(request).turns.store


def threads(store: ConversationStore, user: str, limit: int = 100) -> list[Any]:
    """The user's conversations, the latest first: id, thread id (an OpenAI-face conversation's is its
    id), when updated, state, first message."""
    with store.db.reading() as db:
        return db.execute(
            "SELECT c.id, COALESCE(c.thread_id, c.id) AS thread_id, c.updated_at, c.state, (SELECT "
            "m.message FROM messages m WHERE m.conversation_id = c.id ORDER BY m.seq LIMIT 1) AS first "
            "FROM conversations c WHERE c.user_id = ? ORDER BY c.updated_at DESC LIMIT ?",
            (user, limit),
        ).fetchall()


def owned(store: ConversationStore, user: str, conversation_id: str) -> tuple[Any, Approval | None]:
    """The user's conversation of that id (None: there is none of theirs), and the approval it waits
    for, unless that has expired."""
    with store.db.reading() as db:
        row = db.execute(
            "SELECT id, COALESCE(thread_id, id) AS thread_id, state, pending FROM conversations "
            "WHERE id = ? AND user_id = ?",
            (conversation_id, user),
        ).fetchone()
    pending = Approval.from_json(row["pending"]) if row and row["state"] == "awaiting" else None
    return row, pending if pending and pending.expires_at > store.clock() else None


def _title(first: str | None) -> str:
    message = json.loads(first) if first else {}
    text = message.get("data", {}).get("content") if message.get("type") == "human" else None
    return safe(text)[:TITLE_CHARS] if isinstance(text, str) else ""


def transcript(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The history as the page shows it: the person's words, the answers, and a card per tool call
    holding its result envelope (None: never answered)."""
    shown: list[dict[str, Any]] = []
    cards: dict[str, dict[str, Any]] = {}
    for message in messages:
        if isinstance(message, HumanMessage):
            shown.append({"role": "user", "text": safe(message.text)})
        elif isinstance(message, AIMessage):
            if message.text:
                shown.append({"role": "assistant", "text": safe(message.text)})
            for call in CallMade.all_of(message):
                card: dict[str, Any] = {"role": "tool", "id": call.id, "name": call.name}
                card |= {"arguments": call.arguments, "result": None}  # result: once its tool message comes
                cards[call.id] = card
                shown.append(card)
        elif isinstance(message, ToolMessage) and message.tool_call_id in cards:
            cards[message.tool_call_id]["result"] = _envelope(message.text)
            cards[message.tool_call_id]["durationMs"] = message.response_metadata.get(DURATION_MS)
    return shown


def _envelope(content: str) -> dict[str, Any]:
    try:
        return envelope_of(content)
    except (ValueError, IndexError):  # a tool message that is not our delimited envelope
        return {"ok": False, "error": safe(content)}
