"""The served process's log: every record, whichever logger wrote it (uvicorn's, DBOS's, the A2A SDK's, ours),
is one line of at most LIMIT characters, with its control characters, line separators and bidi controls
written as escapes (agent/guards.py's `visible`): words from a request can neither forge a line nor drive
the terminal that shows the log, and a long one is cut in the middle with a visible mark.

`configure()` runs first in the parent and in each worker. It sets the handlers of the root logger (every
library's records reach it), of uvicorn's loggers (their own format, as uvicorn would write them: uvicorn is
then given no logging config of its own) and of DBOS's (which then adds no handler of its own); each
handler's formatter is `OneLine` around the format it had.
"""

from __future__ import annotations

import logging
import logging.config
import pkgutil
from typing import Any

from agent.guards import visible

LIMIT = 2000  # characters in one record's line, the cut mark included
CUT = "…[{n} characters cut]…"
HEAD = 0.75  # of what a cut line keeps, the share from its start (the message); the rest is its end


class OneLine(logging.Formatter):
    """`base`'s text of a record, escaped onto one line (a traceback too) and cut to `limit` characters."""

    def __init__(self, base: logging.Formatter, limit: int = LIMIT) -> None:
        super().__init__()
        self.base, self.limit = base, limit

    def format(self, record: logging.LogRecord) -> str:
        return clipped(visible(self.base.format(record)), self.limit)


def one_line(base: str, limit: int = LIMIT, **options: Any) -> OneLine:
    """A `OneLine` around the formatter class named `base`, made with `options` (for dictConfig's "()")."""
    return OneLine(pkgutil.resolve_name(base)(**options), limit)


def clipped(text: str, limit: int = LIMIT) -> str:
    """`text`, or its start and its end around a mark saying how much was cut: `limit` characters at most."""
    if len(text) <= limit:
        return text
    keep = limit - len(CUT.format(n=len(text)))  # the mark's longest: as many digits as the whole
    head = int(keep * HEAD)
    tail = keep - head
    return text[:head] + CUT.format(n=len(text) - keep) + text[len(text) - tail :]


UVICORN = "uvicorn.logging.DefaultFormatter"
ACCESS = '%(levelprefix)s %(client_addr)s - "%(request_line)s" %(status_code)s'  # uvicorn's
PLAIN = {"use_colors": False}  # a color is an escape sequence too: it would show as one
CONFIG: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "named": {"()": one_line, "base": UVICORN, "fmt": "%(levelprefix)s %(name)s: %(message)s", **PLAIN},
        "uvicorn": {"()": one_line, "base": UVICORN, "fmt": "%(levelprefix)s %(message)s", **PLAIN},
        "access": {"()": one_line, "base": "uvicorn.logging.AccessFormatter", "fmt": ACCESS, **PLAIN},
    },
    "handlers": {
        "root": {"class": "logging.StreamHandler", "formatter": "named", "stream": "ext://sys.stderr"},
        "uvicorn": {"class": "logging.StreamHandler", "formatter": "uvicorn", "stream": "ext://sys.stderr"},
        "access": {"class": "logging.StreamHandler", "formatter": "access", "stream": "ext://sys.stdout"},
    },
    "root": {"handlers": ["root"], "level": "WARNING"},
    "loggers": {
        "uvicorn": {"handlers": ["uvicorn"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"level": "INFO"},
        "uvicorn.access": {"handlers": ["access"], "level": "INFO", "propagate": False},
        "dbos": {"handlers": ["root"], "level": "WARNING", "propagate": False},
    },
}


def configure() -> None:
    """This process's log as above; Python's warnings become records of it too."""
    logging.config.dictConfig(CONFIG)
    logging.captureWarnings(True)
