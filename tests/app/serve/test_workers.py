"""The parent of several workers (app/serve/workers.py) names their function (worker.py) without importing
it: the parent never loads the worker's stack, which the workers' fork server imports once for all."""

from __future__ import annotations

import pickle
import subprocess
import sys

from app.serve.workers import WORKER
from plumbing.supervision import EntryPoint
from tests.conftest import ROOT

STACK = ("fastapi", "uvicorn", "dbos", "a2a", "ag_ui", "app.serve.worker")


def test_the_parent_imports_none_of_the_workers_stack():
    code = f"import sys, main, app.serve.workers; print([m for m in {STACK!r} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"


def test_the_worker_is_named_as_the_fork_server_finds_it():
    assert pickle.loads(pickle.dumps(WORKER)) == WORKER == EntryPoint("app.serve.worker:run_worker")
    assert WORKER.module == "app.serve.worker"
    assert EntryPoint("os.path:join").module == "os.path"
