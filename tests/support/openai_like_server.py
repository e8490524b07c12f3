"""A loopback OpenAI-compatible server that checks every request as the API does (`openai_like_rules`)
and answers deterministically: tool calls whose arguments come from the prompt, JSON for
`response_format`, stop sequences and max_tokens applied, usage in streams only when asked for."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.openai_like_rules import problem

QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"")
PROPER_NOUNS = re.compile(r"(?<=\s)[A-Z][\w]*(?:,? [A-Z][\w]*)*")


class OpenAILikeServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.rejected: list[tuple[dict[str, Any], str]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> OpenAILikeServer:
        threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


# --- what the "model" answers ------------------------------------------------------------------


def completion(body: dict[str, Any], call_id: str) -> dict[str, Any]:
    """The chat.completion this server answers `body` with."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    tool = _tool_to_call(body)
    if tool:
        arguments = json.dumps(
            _value(tool.get("parameters", {}), _Prompt(_last_user_text(body))), ensure_ascii=False
        )
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": tool["name"], "arguments": arguments}}
        ]
        finish, said = "tool_calls", arguments
    else:
        message["content"], finish = _text(body)
        said = message["content"]
    usage = _usage(body, said)
    choice = {"index": 0, "message": message, "finish_reason": finish, "logprobs": None}
    return {"id": f"chatcmpl-{call_id}", "object": "chat.completion", "created": 1700000000,
            "model": body["model"], "choices": [choice], "usage": usage}  # fmt: skip


def _tool_to_call(body: dict[str, Any]) -> dict[str, Any] | None:
    tools = [t["function"] for t in body.get("tools", [])]
    choice = body.get("tool_choice", "auto")
    if not tools or choice == "none":
        return None
    if isinstance(choice, dict):
        return next(t for t in tools if t["name"] == choice["function"]["name"])
    if body["messages"][-1]["role"] == "tool" and choice == "auto":
        return None  # results are in: answer
    prompt = _last_user_text(body).lower()
    mentioned = [t for t in tools if _mentions(prompt, t["name"])]
    if choice == "required":
        return (mentioned or tools)[0]
    return mentioned[0] if mentioned and body["messages"][-1]["role"] == "user" else None


def _mentions(prompt: str, name: str) -> bool:
    words = [w for w in re.split(r"[_\-]", name.lower()) if len(w) >= 4 and w not in ("tool", "function")]
    return name.lower() in prompt or any(w in prompt for w in words)


def _text(body: dict[str, Any]) -> tuple[str, str]:
    """The answer's text and finish reason: JSON when asked for, cut at a stop sequence or at max_tokens."""
    prompt, form = _last_user_text(body), body.get("response_format") or {}
    if form.get("type") == "json_schema":
        return json.dumps(
            _value(form["json_schema"].get("schema", {}), _Prompt(prompt)), ensure_ascii=False
        ), "stop"
    if form.get("type") == "json_object":
        keys = [a or b for a, b in QUOTED.findall(prompt)] or ["answer"]
        return json.dumps({k: f"{k} for: {prompt}" for k in keys}, ensure_ascii=False), "stop"
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    text = (
        f"The tools said: {' | '.join(map(str, results))}"
        if results
        else f"You said: {prompt} How can I help you?"
    )
    stop = body.get("stop") or []
    for s in [stop] if isinstance(stop, str) else stop:
        if s and s in text:
            text = text[: text.index(s)]
    words = text.split(" ")
    limit = body.get("max_tokens") or body.get("max_completion_tokens") or len(words)
    return " ".join(words[:limit]), "length" if len(words) > limit else "stop"


def _last_user_text(body: dict[str, Any]) -> str:
    content = next((m["content"] for m in reversed(body["messages"]) if m["role"] == "user"), "")
    return content if isinstance(content, str) else " ".join(p["text"] for p in content)


def _usage(body: dict[str, Any], said: str) -> dict[str, int]:
    prompt = sum(len(str(m.get("content") or "").split()) + 3 for m in body["messages"])
    completion_tokens = max(1, len(said.split()))
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt + completion_tokens,
    }


class _Prompt:
    """Values taken from the prompt in order: its numbers, its quoted text, else its proper nouns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.numbers = [int(n) for n in re.findall(r"-?\d+", text)]
        self.strings = [a or b for a, b in QUOTED.findall(text)] or PROPER_NOUNS.findall(text)

    def number(self) -> int:
        return self.numbers.pop(0) if self.numbers else 0

    def string(self, name: str) -> str:
        return self.strings.pop(0) if self.strings else f"{name} for: {self.text}"


def _value(schema: dict[str, Any], prompt: _Prompt, name: str = "value", defs: dict | None = None) -> Any:
    """A value of `schema` made from the prompt (every property filled)."""
    defs = {**(defs or {}), **schema.get("$defs", {})}
    if "$ref" in schema:
        return _value(defs[schema["$ref"].split("/")[-1]], prompt, name, defs)
    options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
    if options:
        return _value(options[0], prompt, name, defs)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if kind == "object":
        return {k: _value(s, prompt, k, defs) for k, s in schema.get("properties", {}).items()}
    makers = {"integer": prompt.number, "number": prompt.number, "boolean": lambda: True, "array": list}
    return makers[kind]() if kind in makers else prompt.string(name)


# --- HTTP: JSON or server-sent events ------------------------------------------------------------


def events(answer: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    """The answer as stream chunks: role, text in word pieces, each call's head then its arguments."""
    base = {k: answer[k] for k in ("id", "created", "model")} | {"object": "chat.completion.chunk"}
    extra = {"usage": None} if include_usage else {}
    message, choice = answer["choices"][0]["message"], answer["choices"][0]
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in re.findall(r"\S*\s*", message["content"] or "") if piece]
    for i, call in enumerate(message.get("tool_calls") or []):
        head = {
            "index": i,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        args = call["function"]["arguments"]
        deltas.append({"tool_calls": [head]})
        deltas += [
            {"tool_calls": [{"index": i, "function": {"arguments": args[j : j + 9]}}]}
            for j in range(0, len(args), 9)
        ]
    out = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}], **extra} for d in deltas]
    out.append(
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}], **extra}
    )
    if include_usage:
        out.append({**base, "choices": [], "usage": answer["usage"]})
    return out


def _handler(server: OpenAILikeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                body = None
            if not str(self.headers.get("Authorization", "")).startswith("Bearer "):
                return self._error(401, "", "You didn't provide an API key.", "invalid_api_key")
            found = (
                problem(body)
                if self.path.endswith("/chat/completions")
                else ("", f"Unknown path {self.path}")
            )
            if found:
                server.rejected.append((body, found[1]))
                return self._error(400, *found)
            server.requests.append(body)
            answer = completion(body, f"call_{len(server.requests)}")
            if body.get("stream"):
                return self._events(
                    events(answer, body.get("stream_options", {}).get("include_usage", False))
                )
            return self._send(200, answer)

        def _error(self, status: int, param: str, message: str, code: str | None = None) -> None:
            error = {
                "message": message,
                "type": "invalid_request_error",
                "param": param or None,
                "code": code,
            }
            self._send(status, {"error": error})

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _events(self, chunks: list[dict[str, Any]]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for chunk in chunks:
                self.wfile.write(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, *args: Any) -> None:
            pass

    return Handler
