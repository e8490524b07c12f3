"""DeviceService: the one HTTP client of the device service at ADD_MODEL_URL, for the tools and the MCP
server's resources; DeviceServiceTool, the base of the device-model tools; and `device_service_url`:
ADD_MODEL_URL, or the embedded service started for this run, as its settings (DeviceSettings) say.

Failures are ToolErrors: HTTP 4xx means the request was wrong (not retryable: the model should tell the
user); 5xx, timeouts and connection errors may pass (retryable). Safe requests — GETs, and writes
carrying the host's Idempotency-Key — are retried once, so a lost response never becomes a second write.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from urllib.parse import quote

import requests
from pydantic import Field
from pydantic_settings import BaseSettings

from agent.audit import redact_text, upstream_reason
from agent.config import FROM_ENV, require_extra
from agent.function_tool import FunctionTool
from agent.types import ConfigError, ToolContext, ToolError
from devicedb.schema import PAGE_MOST
from plumbing.http import session_for

MODEL_URIS = "devicedb://models/{model}"  # a device model as an MCP resource


class DeviceService:
    def __init__(
        self,
        url: str,
        session: requests.Session | None = None,
        timeout: float = 10.0,
        token: str | None = None,
        start: Callable[[], object] | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.start = start  # starts the embedded service that answers at `url`, if it waits to be asked
        self.token = token  # the service token its writes need; the person each write is for goes with it
        self.session = session or session_for(url)
        self.timeout = timeout

    def request(
        self, ctx: ToolContext | None, method: str, path: str = "", retries: int = 1, **kwargs: Any
    ) -> requests.Response:
        """The service's answer to a request made for `ctx`'s run (within its deadline), or a ToolError.
        `missing_ok=True` lets a 404 through."""
        self._started()
        for attempt in range(retries + 1):
            try:
                return self._request_once(ctx, method, self.url + path, **kwargs)
            except ToolError as e:
                if not e.retryable or attempt == retries or self._wait(ctx) < 1:
                    raise
        raise AssertionError("unreachable")

    def search(self, q: str = "", limit: int = 20, offset: int = 0) -> dict[str, Any]:
        """One page of the models whose code or market names contain `q`: {"items": [...], "total": n}."""
        return self.request(None, "GET", params={"q": q, "limit": limit, "offset": offset}).json()

    def lookup(self, codes: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The records of these codes (in their stored form), by code; a code not stored is left out. One
        request for up to PAGE_MOST codes (one more for each PAGE_MOST after)."""
        unique = list(dict.fromkeys(codes))
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(unique), PAGE_MOST):
            among = unique[start : start + PAGE_MOST]
            page = self.request(None, "GET", params={"model": among, "limit": PAGE_MOST}).json()
            found.update((record["model"], record) for record in page["items"])
        return found

    def get(self, model: str) -> dict[str, Any] | None:
        resp = self.request(None, "GET", f"/{quote(model, safe='')}", missing_ok=True)
        return None if resp.status_code == 404 else resp.json()

    def _started(self) -> None:
        if self.start is None:
            return
        try:
            self.start()
        except RuntimeError as e:
            raise ToolError(f"the embedded device service did not start ({e})") from None

    def _wait(self, ctx: ToolContext | None) -> float:
        return ctx.seconds_left(self.timeout) if ctx else self.timeout

    def _request_once(
        self, ctx: ToolContext | None, method: str, url: str, missing_ok: bool = False, **kwargs: Any
    ) -> requests.Response:
        wait = self._wait(ctx)
        headers = {**kwargs.pop("headers", {}), **self._credentials(ctx)}
        try:
            resp = self.session.request(method, url, timeout=wait, headers=headers, **kwargs)
        except requests.Timeout:
            raise ToolError(f"the device service did not answer within {wait:.3g}s", retryable=True) from None
        except requests.ConnectionError:
            raise ToolError(
                f"the device service at {redact_text(self.url)} is unreachable", retryable=True
            ) from None
        if resp.status_code >= 500:
            raise ToolError(f"the device service failed (HTTP {resp.status_code})", retryable=True)
        if resp.status_code >= 400 and not (missing_ok and resp.status_code == 404):
            raise ToolError(f"the device service refused (HTTP {resp.status_code}): {_message(resp)}")
        return resp

    def _credentials(self, ctx: ToolContext | None) -> dict[str, str]:
        """The service token, and the person the host vouches for (devicedb/auth.py)."""
        token = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        return {**token, "X-On-Behalf-Of": ctx.user_id} if ctx else token


class DeviceServiceTool(FunctionTool):
    """A tool of the device service: given the service's client, or its URL."""

    def __init__(self, service: DeviceService | str) -> None:
        self.service = service if isinstance(service, DeviceService) else DeviceService(service)


def _message(resp: requests.Response) -> str:
    """The service's short reason (its error body's `error`), cleaned; no other body is passed on."""
    return upstream_reason(resp.text, most=300) or "no reason given"


class DeviceSettings(BaseSettings):
    """Where the device-model tools write: ADD_MODEL_URL, or the embedded service and its database."""

    model_config = FROM_ENV

    add_model_url: str | None = Field(None, validation_alias="ADD_MODEL_URL")
    """Full URL of `POST .../api/models`; unset = the embedded device service."""

    device_token: str | None = Field(None, validation_alias="DEVICE_TOKEN")
    """The service token of the device service at ADD_MODEL_URL, which its writes need (the embedded
    service gets a token of its own)."""

    device_db: Path = Field(Path("data/devices.db"), validation_alias="DEVICE_DB")
    """SQLite file of the embedded device service."""

    database_url: str | None = Field(None, validation_alias="DATABASE_URL")
    """`postgresql://...`: the embedded device service stores in Postgres instead of DEVICE_DB."""


def device_service_url(
    stack: ExitStack, settings: DeviceSettings | None = None, lazy: bool = False
) -> DeviceService:
    """The client of ADD_MODEL_URL (with DEVICE_TOKEN), or of the embedded device service, made here with a
    token of its own and stopped with `stack`. `lazy`: it serves from the first request on (a turn that
    needs no device pays nothing for it); its database and port are checked now either way."""
    settings = settings or DeviceSettings()
    if settings.add_model_url:
        return DeviceService(settings.add_model_url, token=settings.device_token)
    require_extra("with no ADD_MODEL_URL set, the embedded device service", "devices", "fastapi", "uvicorn")
    from devicedb.server import BackgroundService

    try:
        service = BackgroundService(
            settings.database_url or settings.device_db, token=secrets.token_urlsafe(32)
        )
        stack.callback(service.stop)
        if not lazy:
            service.start()
    except Exception as e:  # a file it cannot write, a port it cannot bind
        reason = without_password(str(e))
        raise ConfigError(
            f"the embedded device service did not start ({reason}); check DEVICE_DB or DATABASE_URL, "
            "or set ADD_MODEL_URL"
        ) from None
    return DeviceService(
        f"{service.url}/api/models", token=service.token, start=service.start if lazy else None
    )


def without_password(text: str) -> str:
    return re.sub(r"(://[^/:@\s]*):[^/@\s]*@", r"\1:***@", text)
