"""Service: what a worker of the served agent holds — the host (registry and model), the key and
conversation stores, the turns runner, the limits, and the threads turns run in — and `signed_in`, the
user of a request's API key (Bearer), or a 401."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from app.host import Host
from app.serve.errors import Unauthorized
from app.serve.keys import KeyStore
from app.serve.limits import ServeLimits
from app.serve.turns import Turns


@dataclass
class Service:
    host: Host
    keys: KeyStore
    turns: Turns
    limits: ServeLimits
    threads: ThreadPoolExecutor  # where turns run: the loop, its tools and the model's requests block


def service(request: Request) -> Service:
    return request.app.state.service


async def signed_in(request: Request) -> str:
    """The user whose API key signs the request (`Authorization: Bearer <key>`)."""
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise Unauthorized(
            "no API key: send `Authorization: Bearer <key>` "
            "(make one: .venv/bin/python main.py keys add NAME)"
        )
    user = await run_in_threadpool(service(request).keys.user, key.strip())
    if user is None:
        raise Unauthorized("the API key is unknown or revoked")
    return user
