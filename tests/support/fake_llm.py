"""A real OpenAI-compatible HTTP server on 127.0.0.1 that answers scripted bodies and records requests.

Tests script the exact `/chat/completions` JSON the model "sends" and assert on the exact JSON the
agent sent back. Each script entry is a response body (dict), a `Reply`, or a callable(request) -> Reply.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from agent.agent import TurnObserver


@dataclass
class Reply:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    events: list[dict] | None = None  # sent as server-sent events (a streamed answer) when set
    done: bool = True  # end the stream with `data: [DONE]`


def chunks(body: dict, pieces: int = 3) -> list[dict]:
    """A completion body as stream chunks: the text in a few deltas, each tool call's name and
    arguments in separate deltas, the finish reason and usage last."""
    message, choice = body["choices"][0]["message"], body["choices"][0]
    base = {"id": body["id"], "object": "chat.completion.chunk", "created": 1, "model": body["model"]}
    out, text = [], message.get("content") or ""
    step = max(1, len(text) // pieces)
    for i in range(0, len(text), step):
        out.append({**base, "choices": [{"index": 0, "delta": {"content": text[i : i + step]}}]})
    for index, tc in enumerate(message.get("tool_calls") or []):
        name = tc["function"]["name"]
        head = {"index": index, "id": tc["id"], "type": "function", "function": {"name": name}}
        args = tc["function"]["arguments"]
        out.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [head]}}]})
        for i in range(0, len(args), 7):
            part = {"index": index, "function": {"arguments": args[i : i + 7]}}
            out.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [part]}}]})
    out.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
    out.append({**base, "choices": [], "usage": body["usage"]})
    return out


def streamed(body: dict, **kwargs: Any) -> Reply:
    return Reply(body, events=chunks(body), **kwargs)


def completion(message: dict[str, Any], finish_reason: str = "stop", usage: dict | None = None) -> dict:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "fake-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}
        ],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def text(content: str) -> dict:
    return completion({"content": content})


def call(name: str, arguments: Any, call_id: str) -> dict:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def tool_calls(*calls: dict, content: Any = None) -> dict:
    return completion({"content": content, "tool_calls": list(calls)}, finish_reason="tool_calls")


Script = dict | Reply | Callable[[dict], Reply]


class FakeLLM:
    def __init__(self, script: list[Script] | None = None, default: Script | None = None) -> None:
        self.script: list[Script] = list(script or [])
        self.default = default
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> FakeLLM:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add(self, *entries: Script) -> None:
        self.script.extend(entries)

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(request)
            entry = self.script.pop(0) if self.script else self.default
        if entry is None:
            return Reply({"error": {"message": "fake LLM: script exhausted"}}, status=500)
        if callable(entry):
            entry = entry(request)
        return entry if isinstance(entry, Reply) else Reply(entry)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                fake.headers.append(dict(self.headers))
                reply = fake._next(json.loads(raw))
                time.sleep(reply.delay)
                if reply.events is not None:
                    return self._stream(reply)
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    for key, value in {"Content-Type": "application/json", **reply.headers}.items():
                        self.send_header(key, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def _stream(self, reply: Reply) -> None:
                self.send_response(reply.status)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                lines = [f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in reply.events or []]
                for line in lines + (["data: [DONE]\n\n"] if reply.done else []):
                    self.wfile.write(line.encode())
                    self.wfile.flush()
                    time.sleep(0.01)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


class Pieces(TurnObserver):
    """A turn's observer that streams the answer and keeps its pieces (`watched` False: it does not)."""

    def __init__(self, watched: bool = True) -> None:
        self.streams = watched
        self.pieces: list[str] = []

    def text(self, piece: str) -> None:
        self.pieces.append(piece)
