"""ASGI helpers: a request body read ahead of the app, handed on to it (`replay`)."""

from __future__ import annotations

from typing import Any


def replay(body: bytes, receive: Any) -> Any:
    """A `receive` that hands the already-read body over once, then waits on the real connection."""
    sent = False

    async def once_then_receive() -> dict:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return once_then_receive
