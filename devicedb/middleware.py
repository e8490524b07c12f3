"""What happens to a request before a route sees it: HEAD answered as GET, and the body gate.

The body gate refuses, with the service's own {error, field, rule} answer and before anything is parsed
twice, a body over the size limit (413) and a JSON body that is not UTF-8 or that Python's parser cannot
hold: malformed, nested too deeply, or with an integer of more than 4300 digits (400).
"""

from __future__ import annotations

import json
from typing import Any

from devicedb.responses import rejection
from plumbing.asgi import replay


class HeadAsGet:
    """ASGI middleware: a HEAD request runs as GET; uvicorn sends the headers and leaves out the body."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "HEAD":
            scope = {**scope, "method": "GET"}
        await self.app(scope, receive, send)


class BodyGate:
    """ASGI middleware: refuse request bodies over `max_bytes` (declared or streamed) and unreadable JSON."""

    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        declared = headers.get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > self.max_bytes:
            return await self._refuse(413, f"larger than {self.max_bytes} bytes", scope, receive, send)
        body, more = bytearray(), True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                return await self._refuse(413, f"larger than {self.max_bytes} bytes", scope, receive, send)
        problem = json_problem(bytes(body)) if body and _is_json(headers.get(b"content-type")) else None
        if problem:
            return await self._refuse(400, problem, scope, receive, send)
        return await self.app(scope, replay(bytes(body), receive), send)

    async def _refuse(self, status: int, rule: str, scope: dict, receive: Any, send: Any) -> None:
        await rejection(status, "body", rule)(scope, receive, send)


def json_problem(body: bytes) -> str | None:
    """Why `body` is not a JSON document the service can read, or None when it is one."""
    try:
        json.loads(body.decode("utf-8"))
    except UnicodeDecodeError as e:
        return f"not UTF-8: byte {e.start} is {body[e.start : e.start + 1]!r}"
    except json.JSONDecodeError as e:
        return f"malformed JSON: {e}"
    except RecursionError:
        return "malformed JSON: nested too deeply"
    except ValueError as e:  # int() refuses more than sys.get_int_max_str_digits() digits
        return f"malformed JSON: {str(e).split(';')[0]}"
    return None


def _is_json(content_type: bytes | None) -> bool:
    """Whether FastAPI will read the body as JSON: no content type, or application/json or */*+json."""
    if not content_type:
        return True
    media = content_type.split(b";")[0].strip().lower()
    return media == b"application/json" or (media.startswith(b"application/") and media.endswith(b"+json"))
