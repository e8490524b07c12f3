"""`whole()`: a step of the terminal's screen that Ctrl-C waits for. KeyboardInterrupt comes between any two
steps of Python code; raised inside rich's spinner as it starts (running, but not yet hooked into the
console), stopping the spinner failed with IndexError and the chat ended with a traceback instead of
cancelling the turn. A Ctrl-C pressed during such a step is taken once the step is done.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def whole() -> Iterator[None]:
    """Run the block whole: a Ctrl-C (SIGINT) that comes meanwhile is raised again once it is done, for the
    handler that was there (the default one raises KeyboardInterrupt). Only the main thread handles signals
    (elsewhere the block simply runs), and a handler set outside Python is left alone."""
    previous = signal.getsignal(signal.SIGINT)
    if previous is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    signal.signal(signal.SIGINT, lambda number, frame: pressed.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            signal.raise_signal(signal.SIGINT)
