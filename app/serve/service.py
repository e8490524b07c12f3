"""Service: what a worker of the served agent holds — the host (registry and model), the key and
conversation stores, the turns runner, the limits, and the threads turns run in — and `signed_in`, the
user of a request's API key (Bearer), or a 401; `signed_for_turn`, the same for a request that starts a
turn, whose admission checks the key again."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from fastapi import Request
from starlette.concurrency import run_in_threadpool

from app.host import Host
from app.serve.errors import Unauthorized
from app.serve.keys import KeyStore, key_hash
from app.serve.limits import ServeLimits
from app.serve.turns import Turns


@dataclass
class Service:
    host: Host
    keys: KeyStore
    turns: Turns
    limits: ServeLimits
    threads: ThreadPoolExecutor  # where turns run: the loop, its tools and the model's requests block
    seen: dict[str, str] = field(default_factory=dict)  # key hash -> user, of the keys that signed turns


@dataclass(frozen=True)
class Signed:
    """Who signs a request that starts a turn, and the hash of the key they sign it with."""

    user: str
    key_hash: str


SEEN_MOST = 10_000  # keys a worker remembers for its turns' requests (more: it forgets them all)


def service(request: Request) -> Service:
    return request.app.state.service


async def signed_in(request: Request) -> str:
    """The user whose API key signs the request (`Authorization: Bearer <key>`)."""
    user = await run_in_threadpool(service(request).keys.user, _key(request))
    if user is None:
        raise Unauthorized("the API key is unknown or revoked")
    return user


async def signed_for_turn(request: Request) -> Signed:
    """`signed_in` for a request that starts a turn, without a thread of its own for a key this worker has
    seen sign one: the turn's admission looks the key up again, in its own transaction, and refuses one
    revoked since (ConversationStore.begin)."""
    hashed, seen = key_hash(_key(request)), service(request).seen
    user = seen.get(hashed)
    if user is None:
        user = await signed_in(request)
        if len(seen) >= SEEN_MOST:
            seen.clear()
        seen[hashed] = user
    return Signed(user, hashed)


def _key(request: Request) -> str:
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise Unauthorized(
            "no API key: send `Authorization: Bearer <key>` "
            "(make one: .venv/bin/python main.py keys add NAME)"
        )
    return key.strip()
