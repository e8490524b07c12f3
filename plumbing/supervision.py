"""`supervise`: worker processes kept running (one that dies is replaced), and SIGTERM as a clean exit —
for the device service's workers and the served agent's."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess

from plumbing.processes import stop

QUICK_DEATH = 10.0  # seconds: a worker that dies sooner after its start counts as failing to start


def supervise(
    target: Callable[..., None], args: tuple, workers: int, on_death: Callable[[int], None] | None = None
) -> None:
    """Run `workers` spawned processes of `target(*args)` until SIGTERM or Ctrl-C. One that dies (killed,
    crashed) is replaced, after `on_death(its pid)`; when they keep dying as they start, give up."""
    spawn = multiprocessing.get_context("spawn")
    started: dict[BaseProcess, float] = {}
    exit_on_sigterm()
    try:
        for _ in range(workers):
            _start(spawn.Process(target=target, args=args), started)
        quick_deaths = 0
        while started:
            multiprocessing.connection.wait([process.sentinel for process in started])
            for dead in [process for process in started if not process.is_alive()]:
                lived = time.monotonic() - started.pop(dead)
                if on_death:
                    on_death(dead.pid or 0)
                if dead.exitcode == 0:
                    continue  # it shut down (Ctrl-C reached it too)
                quick_deaths = quick_deaths + 1 if lived < QUICK_DEATH else 0
                if quick_deaths > workers:
                    raise RuntimeError("the workers keep dying as they start; their output says why")
                _start(spawn.Process(target=target, args=args), started)
    except KeyboardInterrupt:  # Ctrl-C reached the workers too: they are shutting down
        pass
    finally:
        for process in started:
            stop(process)


def _start(process: BaseProcess, started: dict[BaseProcess, float]) -> None:
    process.start()
    started[process] = time.monotonic()


def exit_on_sigterm() -> None:
    """SIGTERM exits this process as Ctrl-C's end does: `finally` blocks, exit stacks and atexit run (the
    workers are stopped, the last spans exported). uvicorn, once shut down, raises the signal again."""
    signal.signal(signal.SIGTERM, _exit)


def _exit(*_: object) -> None:
    raise SystemExit(0)
