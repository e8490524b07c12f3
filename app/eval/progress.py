"""The scorecard's progress, on stderr while its cases run: rich's bar on a terminal, plain lines where
stdout or stderr is not one (a pipe, a file, CI's log), never a control character there. A line says how
many cases are done of how many, the part now running, and the time so far; one is written as a case of a
new part begins, as a case begins EVERY seconds or more after the last line, and at the end."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Protocol, TextIO

from agent.config import installed
from agent.guards import safe

if TYPE_CHECKING:  # rich loads only for a terminal
    from rich.progress import Progress

EVERY = 30.0  # seconds between two plain lines within a part


class Tracker(Protocol):
    def begin(self, label: str) -> None:
        """A case of `label` (its part) starts."""

    def done(self) -> None:
        """A case has ended."""


class Lines:
    """Plain progress lines, for pipes and CI."""

    def __init__(self, total: int, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.stream, self.clock = total, stream, clock
        self.count, self.label = 0, ""
        self.started = self.said = clock()

    def begin(self, label: str) -> None:
        if label != self.label or self.clock() - self.said >= EVERY:
            self.label = label
            self._say()

    def done(self) -> None:
        self.count += 1
        if self.count == self.total:
            self._say()

    def _say(self) -> None:
        self.said = self.clock()
        now = "all done" if self.count == self.total else f"now {safe(self.label)}"
        line = f"eval: {self.count}/{self.total} cases done, {now} ({_elapsed(self.said - self.started)})"
        print(line, file=self.stream, flush=True)


class Bar:
    """rich's progress bar: the part now running, the bar, cases done of all, time so far and to go."""

    def __init__(self, total: int, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("eval", total=total)

    def begin(self, label: str) -> None:
        self.progress.update(self.task, description=safe(label))

    def done(self) -> None:
        self.progress.advance(self.task)


@contextmanager
def tracking(total: int, stream: TextIO | None = None) -> Iterator[Tracker]:
    """A Tracker over `total` cases: a bar when stdout and `stream` (stderr) are terminals and rich is
    installed, else lines on `stream`."""
    stream = stream or sys.stderr
    if not (stream.isatty() and sys.stdout.isatty() and installed("rich")):
        yield Lines(total, stream)
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    from rich.progress import Progress as Rich

    with Rich(*columns, TimeRemainingColumn(), console=Console(file=stream)) as progress:
        yield Bar(total, progress)


def _elapsed(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
