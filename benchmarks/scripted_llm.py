"""The benchmark's model: a loopback OpenAI-compatible server that answers at once, the same for everyone.

A conversation is `ROUNDS` replies that each call the no-op tool, then a text answer; the server
counts the tool results after the last user message to know where it is. Model "parallel" asks for
five calls of `sleep200` in one reply instead. Keep-alive HTTP/1.1, so no client pays a new connection.
A request with `"stream": true` gets the same reply as server-sent events, in one body.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ROUNDS = 3


def assistant(calls: list[dict[str, Any]], words: str) -> dict[str, Any]:
    """The assistant's message: the tool `calls`, or `words` when it calls none."""
    message: dict[str, Any] = {"role": "assistant", "content": None if calls else words}
    if calls:
        message["tool_calls"] = calls
    return message


def completion(message: dict[str, Any], id: str, **more: Any) -> dict[str, Any]:
    """A `chat.completion` answering with `message` (its one choice), with any `more` fields."""
    return {"id": id, "object": "chat.completion", **more, "choices": [{"index": 0, "message": message}]}


def reply(request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    done = sum(1 for m in messages[last_user:] if m["role"] == "tool")
    if request.get("model") == "parallel":
        calls = [_call("sleep200", f"call_p{i}") for i in range(5)] if done == 0 else []
    else:
        calls = [_call("noop", f"call_{done}")] if done < ROUNDS else []
    message = assistant(calls, "done")
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "bench",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }


def _call(name: str, call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def handler_for(answer: Callable[[dict[str, Any]], dict[str, Any]]) -> type[BaseHTTPRequestHandler]:
    """An HTTP handler that answers each POSTed chat request with `answer(request)`."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # else delayed ACKs add 40 ms

        def do_POST(self) -> None:
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = answer(request)
            streamed = bool(request.get("stream"))
            body = (events(reply) if streamed else json.dumps(reply, ensure_ascii=False)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if streamed else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


def events(reply: dict[str, Any]) -> str:
    """A reply as the server-sent events of a stream: the message in one delta, then its finish, usage."""
    choice = reply["choices"][0]
    message = {k: v for k, v in choice["message"].items() if v is not None}
    message["tool_calls"] = [{**c, "index": i} for i, c in enumerate(message.get("tool_calls", []))] or None
    head = {k: reply[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    chunks = [
        {**head, "choices": [{"index": 0, "delta": message, "finish_reason": None}]},
        {**head, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]},
        {**head, "choices": [], "usage": reply["usage"]},
    ]
    return "".join(f"data: {json.dumps(c, ensure_ascii=False)}\n\n" for c in chunks) + "data: [DONE]\n\n"


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # connections not yet accepted: socketserver's 5 refuses a burst of turns


def start(answer: Callable[[dict[str, Any]], dict[str, Any]] = reply) -> tuple[ThreadingHTTPServer, str]:
    server = Server(("127.0.0.1", 0), handler_for(answer))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


if __name__ == "__main__":  # `python -m benchmarks.scripted_llm`: the model in a process of its own
    served, address = start()
    print(address, flush=True)
    threading.Event().wait()
