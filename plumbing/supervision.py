"""`supervise`: worker processes kept running (one that dies is replaced), and SIGTERM as a clean exit —
for the device service's workers and the served agent's."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import pkgutil
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.process import BaseProcess

from plumbing.processes import stop

QUICK_DEATH = 10.0  # seconds: a worker that dies sooner after its start counts as failing to start


@dataclass(frozen=True)
class EntryPoint:
    """A function named `module:function`, imported where it is called: a parent hands it to `supervise`
    without importing the worker's module itself (the fork server imports it, once, for every worker)."""

    name: str

    @property
    def module(self) -> str:
        return self.name.split(":")[0]

    def __call__(self, *args: object) -> None:
        pkgutil.resolve_name(self.name)(*args)


def supervise(
    target: Callable[..., None] | EntryPoint,
    args: tuple,
    workers: int,
    numbered: bool = False,
    preload: Sequence[str] = (),
) -> None:
    """Run `workers` processes of `target(*args)` until SIGTERM or Ctrl-C. One that dies (killed, crashed)
    is replaced; when they keep dying as they start, give up. `numbered`: each is given its slot too,
    `target(*args, slot)`, and its replacement the same slot.

    The workers are forked from a fork server that has imported `target`'s module, and the modules named
    in `preload` (those a worker imports as it starts), once, before any thread ran: a worker starts without
    importing them again (each import of the served agent costs seconds of CPU), and it is as fresh as a
    spawned process."""
    context = multiprocessing.get_context("forkserver")
    module = target.module if isinstance(target, EntryPoint) else target.__module__
    context.set_forkserver_preload([module, *preload])
    started: dict[BaseProcess, tuple[float, int]] = {}

    def start(slot: int) -> None:
        process = context.Process(target=target, args=(*args, slot) if numbered else args)
        process.start()
        started[process] = (time.monotonic(), slot)

    exit_on_sigterm()
    try:
        for slot in range(workers):
            start(slot)
        quick_deaths = 0
        while started:
            multiprocessing.connection.wait([process.sentinel for process in started])
            for dead in [process for process in started if not process.is_alive()]:
                began, slot = started.pop(dead)
                lived = time.monotonic() - began
                if dead.exitcode == 0:
                    continue  # it shut down (Ctrl-C reached it too)
                quick_deaths = quick_deaths + 1 if lived < QUICK_DEATH else 0
                if quick_deaths > workers:
                    raise RuntimeError("the workers keep dying as they start; their output says why")
                start(slot)
    except KeyboardInterrupt:  # Ctrl-C reached the workers too: they are shutting down
        pass
    finally:
        for process in started:
            stop(process)


def exit_on_sigterm() -> None:
    """SIGTERM exits this process as Ctrl-C's end does: `finally` blocks, exit stacks and atexit run (the
    workers are stopped, the last spans exported). uvicorn, once shut down, raises the signal again."""
    signal.signal(signal.SIGTERM, _exit)


def _exit(*_: object) -> None:
    raise SystemExit(0)
