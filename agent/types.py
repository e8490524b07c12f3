"""Wire types of the chat-completions API, the tool-result envelope, the host's ToolContext, and errors.

Mirrors `agent/types.go` of the tutorial (apiResponse, apiToolCall), with what the engineering
article adds: a structured result every tool returns, and facts the host injects into every call.
"""

from __future__ import annotations

import getpass
import json
import time
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

# --- wire types: what an OpenAI-compatible /chat/completions endpoint answers -----------------


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow")


class ApiFunctionCall(_Lenient):
    name: Any = None  # a string by the spec; anything else is the model's mistake, kept for the error
    arguments: Any = None  # a JSON string by the spec; some providers send an object, "" or null


class ApiToolCall(_Lenient):
    id: Any = None
    type: str | None = "function"
    index: int | None = None
    function: ApiFunctionCall = ApiFunctionCall()


class ApiMessage(_Lenient):
    role: str | None = "assistant"
    content: str | None = None
    tool_calls: list[ApiToolCall] | None = None


class ApiChoice(_Lenient):
    index: int = 0
    message: ApiMessage = ApiMessage()
    finish_reason: str | None = None


class ApiUsage(_Lenient):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0


class ApiResponse(_Lenient):
    id: str | None = None
    model: str | None = None
    choices: list[ApiChoice] = []
    usage: ApiUsage | None = None


# --- the tool-result envelope: what the model reads in every role:"tool" message --------------


def ok(data: Any) -> str:
    return json.dumps({"ok": True, "data": data}, ensure_ascii=False)


def fail(error: str, retryable: bool) -> str:
    return json.dumps({"ok": False, "error": error, "retryable": retryable}, ensure_ascii=False)


# --- what the host knows and the model never writes -------------------------------------------


class ToolChannel(Protocol):
    """What a running tool may tell, or ask, whoever it runs for, when its host has a way to reach them
    (the MCP server does: log messages, progress notifications, elicitation). Called from the tool's
    thread."""

    def log(self, level: str, data: Any) -> None:
        """A log message; `level` is one of syslog's: debug, info, notice, warning, error, ..."""

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        """How far the work is; `done` must grow from one report to the next."""

    def ask(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """Ask the person to fill in a form (a flat JSON Schema): ("accept", answers), ("decline", None)
        or ("cancel", None). Raises ToolError when nobody can be asked."""


class NoChannel:
    """The channel of a host with no way to reach anyone: messages and progress go nowhere."""

    def log(self, level: str, data: Any) -> None:
        pass

    def progress(self, done: float, total: float | None = None, message: str | None = None) -> None:
        pass

    def ask(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        raise ToolError("this tool needs to ask the person, and this host has no way to ask")


@dataclass(frozen=True)
class ToolContext:
    user_id: str
    permissions: frozenset[str] = field(default_factory=frozenset)
    run_id: str = ""
    call_id: str = ""
    idempotency_key: str = ""
    deadline: float | None = None  # time.monotonic() value after which the run must stop
    user_text: tuple[str, ...] | None = None  # what the person typed so far; None: unknown (an MCP client)
    # untrusted text the model had read when it decided this call (tool output, text a command appended,
    # definitions from untrusted servers); empty: it decided from the person's words; None: unknown
    untrusted: tuple[str, ...] | None = ()
    channel: ToolChannel = field(default_factory=NoChannel, compare=False, repr=False)

    def for_call(self, call_id: str) -> ToolContext:
        key = f"{self.run_id}:{call_id}" if self.run_id and call_id else ""
        return replace(self, call_id=call_id, idempotency_key=key)

    def seconds_left(self, cap: float = 30.0) -> float:
        """Seconds until the deadline, but never more than `cap`: what one wait may take."""
        return clamp(None if self.deadline is None else self.deadline - time.monotonic(), cap)


def clamp(asked: float | None, cap: float) -> float:
    """The one rule for every wait: what the caller asked for (the turn's time left), at most `cap`."""
    return cap if asked is None else max(0.0, min(asked, cap))


def os_user() -> str:
    """The signed-in user of this machine, the host's default identity."""
    try:
        return getpass.getuser()
    except Exception:  # no login name and no passwd entry (some containers)
        return "user"


# --- errors, by whose fault: one base per audience, subclasses that are just a docstring --------


class AgentError(Exception):
    """Base of the errors that reach the person running the agent, as one line."""


class ConfigError(AgentError):
    """The configuration is wrong, or a local service could not start; the message says what to do."""


class LLMError(AgentError):
    """The LLM endpoint failed (HTTP error, unreachable, unreadable answer)."""


class ModelBehaviourError(AgentError):
    """The model answered in a way the loop cannot use (neither text nor tool calls)."""


class LimitError(AgentError):
    """A per-turn limit of the host stopped the turn."""


class MaxRoundsError(LimitError):
    """The model kept calling tools for more rounds than allowed."""


class DeadlineError(LimitError):
    """The turn ran past its wall-clock deadline."""


class TokenBudgetError(LimitError):
    """The turn used more tokens than its budget."""


class AwaitingApproval(AgentError):
    """A call needs the person's approval and they cannot be asked while the turn runs (over HTTP they
    are asked in the answer): a Confirm raises it, and the turn stops with the call unanswered until
    `ChatAgent.resume()`. `arguments`: the exact ones the person is asked about; `call_id` and `run_id`
    (filled in by the registry): the call's and its turn's."""

    decision = "awaiting_approval"  # the audit's

    def __init__(
        self, name: str, arguments: dict[str, Any], said: str = "waits for the person's approval"
    ) -> None:
        super().__init__(f"{name} {said}")
        self.name, self.arguments = name, arguments
        self.call_id = self.run_id = ""


class UsageError(AgentError):
    """The person used a command or an option wrongly; the message says how to use it."""


class McpUnavailable(AgentError):
    """An MCP server did not answer in time, or its connection broke."""


class NeedsAuthorization(McpUnavailable):
    """An MCP server asked for authorization (OAuth) and nobody is there to sign in."""


class ToolError(Exception):
    """Raised by a tool for a failure the model should read; `retryable` says if trying again may help."""

    def __init__(self, message: str, retryable: bool = False):
        super().__init__(message)
        self.retryable = retryable
