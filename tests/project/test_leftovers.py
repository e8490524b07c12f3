"""The run's own check for processes left behind: a child still running, or an orphan carrying the run's
marker, is found and killed; a process that ended is not reported."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.support.leftovers import MARKER, ProcessWatch, _state

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_child_and_an_orphan_left_running_are_found_and_killed(monkeypatch):
    monkeypatch.setenv(MARKER, os.environ.get(MARKER, ""))  # the run's own marker comes back afterwards
    watch = ProcessWatch()
    watch.start()
    child = subprocess.Popen(SLEEPER)
    # an orphan: its parent exits at once and init adopts it; only its environment ties it to the run
    quiet = "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL"
    spawner = f"import subprocess; print(subprocess.Popen({SLEEPER!r}, {quiet}).pid)"
    orphan = int(subprocess.run([sys.executable, "-c", spawner], capture_output=True, text=True).stdout)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    found = dict(watch.leftovers(grace=0.5))
    assert set(found) == {child.pid, orphan}
    assert "time.sleep(60)" in found[orphan]
    assert child.wait(timeout=5) == -9
    give_up_at = time.monotonic() + 10
    while _state(orphan) not in ("", "Z") and time.monotonic() < give_up_at:  # a kill takes a moment
        time.sleep(0.05)
    assert _state(orphan) in ("", "Z")
