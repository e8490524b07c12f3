"""Why an MCP server failed, in one line the person can act on: it did not start, wants authorization,
refused the credentials it was given, or stopped answering."""

from __future__ import annotations

from collections.abc import Iterator

from agent.types import NeedsAuthorization


def start_failure(error: BaseException, refused: int | None) -> str:
    """Why a server did not start, in one line; a server that wants authorization says so."""
    for inner in leaves(error):
        if isinstance(inner, NeedsAuthorization):
            return (
                "needs authorization (OAuth): run `python main.py` in a terminal once to sign in; "
                "the tokens are then kept in data/mcp-tokens.json"
            )
    if refused:
        return f'refused the credentials of its "headers" (HTTP {refused})'
    return f"did not start: {reason(error)}"


def leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaves(inner)
        return
    yield error
    if error.__cause__ is not None:
        yield from leaves(error.__cause__)


def reason(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup) and error.exceptions:
        return reason(error.exceptions[0])
    if isinstance(error, TimeoutError):
        return "timed out"
    return f"{type(error).__name__}: {error}"[:200]
