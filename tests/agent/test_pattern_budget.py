"""The pattern guard under load: the budget for checking one call's patterns counts the checking thread's
own CPU time, so a machine kept busy by other threads and processes never refuses a valid value, and a
pattern written to backtrack is still refused."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Iterator

import pytest

from agent.guards import ArgumentsValidator, first_error

CODE = {"type": "string", "pattern": r"^(?=[^0-9]*[0-9])[A-Za-z0-9]+(?:[- ][A-Za-z0-9]+)*$"}
VALIDATOR = ArgumentsValidator(
    {"type": "object", "properties": {"model": CODE, "codes": {"type": "array", "items": CODE}}}
)


def _spin(until: float) -> None:
    while time.monotonic() < until:
        pass


@pytest.fixture
def busy_machine() -> Iterator[None]:
    """8 threads of this process and 4 processes, each spinning, on a machine with 2 cores."""
    until = time.monotonic() + 60
    threads = [threading.Thread(target=_spin, args=(until,), daemon=True) for _ in range(8)]
    processes = [multiprocessing.get_context("spawn").Process(target=_spin, args=(until,)) for _ in range(4)]
    for worker in [*threads, *processes]:
        worker.start()
    try:
        yield
    finally:
        for process in processes:
            process.kill()
            process.join()


def test_no_valid_call_is_refused_when_the_machine_is_busy(busy_machine):
    calls = [
        {"model": f"CPH{2000 + i}", "codes": [f"SM-S{9000 + i}", f"PJD{100 + i}"] * 5} for i in range(300)
    ]
    refused = [error.message for args in calls if (error := first_error(VALIDATOR, args)) is not None]
    assert refused == []


def test_a_pattern_written_to_backtrack_is_still_refused_when_the_machine_is_busy(busy_machine):
    evil = ArgumentsValidator(
        {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a|aa)+$"}}}
    )
    started = time.monotonic()
    error = first_error(evil, {"s": "a" * 60 + "b"})
    assert error is not None and "in time" in error.message
    assert time.monotonic() - started < 30  # unguarded, it runs for hours
