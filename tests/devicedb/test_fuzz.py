"""Schemathesis (4.x CLI) against the running service's /openapi.json, on SQLite and on Postgres.

Every check, every phase (examples, coverage, fuzzing, stateful through the declared links), a fixed seed
and a bounded number of examples per operation, so a run takes seconds and fails the same way twice.
"""

from __future__ import annotations

import subprocess
import sys

from devicedb.server import BackgroundService

MAX_EXAMPLES = 100
SEED = 20260


def test_schemathesis_finds_no_failure(database, tmp_path):
    """On a service whose writes need its token (the schema says so); schemathesis holds it."""
    with BackgroundService(database, token="fuzz-token") as service:
        run = subprocess.run(
            [
                *(sys.executable, "-m", "schemathesis.cli", "run", f"{service.url}/openapi.json"),
                *("--header", "Authorization: Bearer fuzz-token"),
                *("--checks", "all", "--phases", "examples,coverage,fuzzing,stateful"),
                *("--max-examples", str(MAX_EXAMPLES), "--seed", str(SEED), "--request-timeout", "30"),
                *("--generation-database", "none", "--no-color"),
            ],
            cwd=tmp_path,  # its .schemathesis/ (and any .hypothesis/) land here, not in the checkout
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=900,
        )
    lines = run.stdout.strip().splitlines() or [run.stderr]
    summary = lines[-1]
    print(*[line.strip() for line in lines if " generated, " in line], summary)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert "No issues found" in summary
    assert "Stateful" in run.stdout and "passed" in run.stdout
