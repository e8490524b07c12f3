"""`stop`: how every child process of this project ends — the device service's workers, the embedded
model's server, the servers tests start: asked to terminate, given time, then killed."""

from __future__ import annotations

import subprocess
from multiprocessing.process import BaseProcess


def stop(process: subprocess.Popen | BaseProcess | None, grace: float = 10.0) -> None:
    """Terminate `process` if it still runs, wait up to `grace` seconds, then kill it and reap it."""
    if process is None or not _alive(process):
        return
    process.terminate()
    if _wait(process, grace):
        return
    process.kill()
    _wait(process, None)


def _alive(process: subprocess.Popen | BaseProcess) -> bool:
    return process.poll() is None if isinstance(process, subprocess.Popen) else process.is_alive()


def _wait(process: subprocess.Popen | BaseProcess, timeout: float | None) -> bool:
    """Whether it ended within `timeout` seconds (None: as long as it takes)."""
    if isinstance(process, subprocess.Popen):
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    process.join(timeout)
    return not process.is_alive()
