"""DeviceServiceTool: the base of the device-model tools — HTTP to ADD_MODEL_URL, failures as ToolErrors;
and `device_service_url`: ADD_MODEL_URL, or the embedded service started for this run.

HTTP 4xx means the request was wrong (not retryable: the model should tell the user); 5xx, timeouts
and connection errors may pass (retryable). Safe requests — GETs, and writes carrying the host's
Idempotency-Key — are retried once here, so a lost response never turns into a second write.
"""

from __future__ import annotations

import re
from contextlib import ExitStack
from typing import Any

import requests

from agent.config import Settings
from agent.llm.transport import session_for
from agent.tools import FunctionTool
from agent.types import ConfigError, ToolContext, ToolError


class DeviceServiceTool(FunctionTool):
    def __init__(self, url: str, session: requests.Session | None = None, timeout: float = 10.0) -> None:
        self.url = url
        self.session = session or session_for(url)
        self.timeout = timeout

    def request(self, ctx: ToolContext, method: str, path: str = "", retries: int = 1, **kwargs: Any) -> str:
        for attempt in range(retries + 1):
            try:
                return self._request_once(ctx, method, self.url + path, **kwargs)
            except ToolError as e:
                if not e.retryable or attempt == retries or ctx.seconds_left(self.timeout) < 1:
                    raise
        raise AssertionError("unreachable")

    def _request_once(self, ctx: ToolContext, method: str, url: str, **kwargs: Any) -> str:
        wait = ctx.seconds_left(self.timeout)
        try:
            resp = self.session.request(method, url, timeout=wait, **kwargs)
        except requests.Timeout:
            raise ToolError(f"the device service did not answer within {wait:.3g}s", retryable=True) from None
        except requests.ConnectionError:
            raise ToolError(f"the device service at {self.url} is unreachable", retryable=True) from None
        if resp.status_code >= 500:
            raise ToolError(f"the device service failed (HTTP {resp.status_code})", retryable=True)
        if resp.status_code >= 400:
            raise ToolError(f"the device service refused (HTTP {resp.status_code}): {_message(resp)}")
        return resp.text


def _message(resp: requests.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return resp.text[:300]
    return str(body.get("error") or body.get("detail") or body) if isinstance(body, dict) else str(body)


def device_service_url(settings: Settings, stack: ExitStack) -> str:
    """ADD_MODEL_URL, or the embedded device service's, started here and stopped with `stack`."""
    from devicedb.server import models_url  # FastAPI and uvicorn load only here

    try:
        return models_url(settings.add_model_url, settings.device_db, stack, settings.database_url)
    except Exception as e:  # a file it cannot write, a port it cannot bind
        reason = _without_password(str(e))
        raise ConfigError(
            f"the embedded device service did not start ({reason}); check DEVICE_DB or DATABASE_URL, "
            "or set ADD_MODEL_URL"
        ) from None


def _without_password(text: str) -> str:
    return re.sub(r"(://[^/:@\s]*):[^/@\s]*@", r"\1:***@", text)
