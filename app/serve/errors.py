"""What the HTTP server answers when it does not answer with a turn: its client's mistakes (by status) and
the agent's own failures, each in OpenAI's error shape `{"error": {"message", "type", "code"}}`.

Text from a model, a tool or an endpoint passes through `safe` and loses its URLs, credentials, addresses
and user names before it reaches a client; a bug is logged here and answered as an internal error, never
as a traceback.
"""

from __future__ import annotations

import logging
import re

from fastapi.responses import JSONResponse

from agent.audit import redact_identity, redact_text
from agent.guards import safe
from agent.types import AgentError, ConfigError, DeadlineError, LimitError, LLMError, McpUnavailable
from plumbing.sql import DatabaseUnavailable

log = logging.getLogger("app.serve")
_URL = re.compile(r"https?://\S+")


class RequestError(AgentError):
    """The client's request cannot be served as it is; `status` and `code` say how (OpenAI's shape)."""

    status, type, code = 400, "invalid_request_error", "invalid_request"
    retry_after: int | None = None
    param: str | None = None

    def __init__(self, message: str, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.code = code or self.code
        self.param = param


class Unauthorized(RequestError):
    """No API key, or one that is unknown or revoked."""

    status, code = 401, "invalid_api_key"


class NotFound(RequestError):
    """No such conversation for this user (another user's is not theirs to see), or no such path."""

    status, code = 404, "not_found"


class Busy(RequestError):
    """A turn is already running in this conversation."""

    status, code, retry_after = 409, "conversation_busy", 1


class Stopped(RequestError):
    """The run a client follows again stopped before it answered: it failed, or nobody runs it now."""

    status, code = 409, "turn_stopped"


class LeaseLost(Stopped):
    """Another worker took the turn up (this one's server seemed dead to it): this one stopped."""

    code = "turn_taken_over"
    told = -1  # the last message its client was told of, where one that follows the turn goes on


class KeyRevoked(Unauthorized):
    """The key of the person whose turn this is was revoked while it ran, or before it was recovered."""

    code = "key_revoked"


class Cancelled(RequestError):
    """The client asked the turn to stop, and it stopped."""

    status, code = 409, "turn_cancelled"


class TooLarge(RequestError):
    """The request body is over the size limit."""

    status, code = 413, "request_too_large"


class TooSlow(RequestError):
    """The request body did not arrive in time."""

    status, code = 408, "request_timeout"


class TooManyRequests(RequestError):
    """The user is over a limit: turns per minute, or turns at once."""

    status, type, code = 429, "rate_limit_error", "rate_limited"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


class AfterCalls(Exception):
    """A turn that made tool calls failed with `error`: answered with `x-should-retry: false`, so that a
    client's automatic retries (the official SDKs' on 408, 409, 429 and 5xx) do not run it, and its writes,
    again."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


def error_body(message: str, type: str, code: str, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type, "code": code, "param": param}}


def answer(error: BaseException) -> JSONResponse:
    """The HTTP answer to an error raised while serving a request."""
    if isinstance(error, AfterCalls):
        response = answer(error.error)
        response.headers["x-should-retry"] = "false"
        return response
    status, type, code, message = describe(error)
    headers = {"Retry-After": str(retry_after(error))} if retry_after(error) else {}
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return JSONResponse(error_body(message, type, code, getattr(error, "param", None)), status, headers)


def describe(error: BaseException) -> tuple[int, str, str, str]:
    """(status, type, code, message) of an error, by whose fault it is."""
    if isinstance(error, RequestError):
        return error.status, error.type, error.code, for_client(str(error))
    if isinstance(error, DatabaseUnavailable):
        return 503, "server_error", "database_unavailable", f"the database is unavailable ({error}); retry"
    if isinstance(error, DeadlineError):
        return 504, "server_error", "deadline_exceeded", for_client(str(error))
    if isinstance(error, LLMError | McpUnavailable):
        return 502, "server_error", "upstream_error", for_client(str(error))
    if isinstance(error, LimitError):
        return 500, "server_error", "turn_limit", for_client(str(error))
    if isinstance(error, AgentError) and not isinstance(error, ConfigError):
        return 502, "server_error", "model_error", for_client(str(error))
    log.error("internal error", exc_info=error)
    return 500, "server_error", "internal_error", "internal error; the server's log has the details"


def retry_after(error: BaseException) -> int | None:
    if isinstance(error, DatabaseUnavailable):
        return 5
    return getattr(error, "retry_after", None)


def for_client(text: str) -> str:
    """Text an endpoint, a model or a tool wrote, as a client may read it: no URLs of the services
    behind the agent, no credentials, no IP addresses or user names, no terminal escapes."""
    return safe(redact_identity(redact_text(_URL.sub("<endpoint>", text))))[:1000]
