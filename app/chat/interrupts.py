"""How Ctrl-C reaches a turn on the terminal: `take_ctrl_c()` makes it the person's, and `whole()` marks a
step it waits for. Python raises KeyboardInterrupt between any two steps of its code, and some steps must
not be cut in half: rich's spinner cut off as it started (running, not yet hooked into the console) failed
to stop with IndexError and the chat ended with a traceback; a module cut off as it was imported stayed
half-made, and every later turn that used it failed (AttributeError: partially initialized module).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

AGAIN_SECONDS = 0.05  # how soon a Ctrl-C that came during an import is pressed again
IMPORT_SYSTEM = frozenset({"<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>"})


def take_ctrl_c() -> None:
    """Ctrl-C is the person's at this terminal: it cancels a turn (KeyboardInterrupt), also when the chat was
    started with SIGINT ignored, as a shell script's background job is (Python leaves an ignored SIGINT
    ignored: at the prompt prompt_toolkit reads Ctrl-C as a key, but a turn ran to its end); one that comes
    while a module is imported is taken once the import is done."""
    signal.signal(signal.SIGINT, _interrupt)


def _interrupt(number: int, frame: FrameType | None) -> None:
    if _importing(frame):  # pressed again shortly, until the import is done
        again = threading.Timer(AGAIN_SECONDS, signal.pthread_kill, (threading.get_ident(), number))
        again.daemon = True
        again.start()
        return
    raise KeyboardInterrupt


def _importing(frame: FrameType | None) -> bool:
    while frame is not None:
        if frame.f_code.co_filename in IMPORT_SYSTEM:
            return True
        frame = frame.f_back
    return False


@contextmanager
def whole() -> Iterator[None]:
    """Run the block whole: a Ctrl-C (SIGINT) that comes meanwhile is raised again once it is done, for the
    handler that was there. Only the main thread handles signals (elsewhere the block simply runs), and a
    handler set outside Python is left alone."""
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
