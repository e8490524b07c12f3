"""Shared fixtures: the loopback fake LLM, the device service on a temporary SQLite file, the databases
the device-service tests run on (SQLite and a throwaway Postgres), our MCP server over HTTP, a trace store
(Phoenix), a guard that fails any test trying to reach a host that is not loopback, and one that fails
the run when a process a test started outlives the tests."""

from __future__ import annotations

import ipaddress
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
import requests

from devicedb.server import BackgroundService
from plumbing.pgcluster import PostgresCluster
from plumbing.processes import stop
from plumbing.sockets import free_port
from tests.support import zygote
from tests.support.fake_llm import FakeLLM
from tests.support.leftovers import ProcessWatch
from tests.support.trace_store import Phoenix

ROOT = Path(__file__).resolve().parent.parent
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"
_real_connect = socket.socket.connect


def _loopback_only(self: socket.socket, address: object) -> object:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        host = address[0] if isinstance(address, tuple) else str(address)
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = host == "localhost"
        if not loopback:
            raise RuntimeError(f"test tried to reach non-loopback host {host!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _loopback_only)


WATCH = ProcessWatch()


def pytest_sessionstart(session: pytest.Session) -> None:
    WATCH.start()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a process that a test started is still running once every test is done (the
    tests' zygote is the run's, and stops here; a server it forked is a test's)."""
    left = WATCH.leftovers(spare=zygote.running())
    zygote.stop()
    if left:
        lines = "\n".join(f"  {pid}: {command}" for pid, command in left)
        print(f"\nprocesses started by the tests outlived them (now killed):\n{lines}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# What a test needs beyond this venv, as a marker, from the fixtures it uses (or a file's `pytestmark`):
# `pytest -m "not postgres"` runs without PostgreSQL, and so on; `make test-core` runs without any.
NEEDS = {"postgres": "postgres", "trace_store": "phoenix", "browser": "chromium", "demo_site": "local_model"}


# The folders whose tests start servers and wait on them run first: under pytest-xdist the quick tests then
# fill the gaps, instead of one slow test ending the run alone (the order within a folder is kept).
SLOW_FIRST = ("tests/app/serve/", "tests/security/", "tests/project/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: not item.nodeid.startswith(SLOW_FIRST))
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        params = getattr(item, "callspec", None)
        if params is not None and "postgres" in map(str, params.params.values()):
            used.add("postgres")  # the `database` and `served` fixtures' Postgres side
        for fixture, marker in NEEDS.items():
            if fixture in used:
                item.add_marker(marker)


STARTED: list[subprocess.Popen] = []


@pytest.fixture(autouse=True)
def stop_started_processes():
    """Whatever `start_http_server` started in a test ends with that test."""
    yield
    while STARTED:
        stop(STARTED.pop(), grace=5)


def start_http_server(tmp_path: Path, env: dict):
    """Our MCP server (`python -m app.mcp_server --http PORT`), as a trusted server for the chat."""
    from app.mcp.client import ServerConfig

    port = free_port()
    log = (tmp_path / "http-server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "app.mcp_server", "--http", str(port)],
        cwd=ROOT,
        env=clean_env(**env),
        stdout=log,
        stderr=log,
    )
    STARTED.append(process)
    give_up_at = time.monotonic() + 60  # its start imports the SDK: seconds on a loaded machine
    while True:
        try:
            requests.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
            break
        except requests.ConnectionError:
            if process.poll() is not None or time.monotonic() > give_up_at:
                raise AssertionError(
                    f"it did not start: {(tmp_path / 'http-server.log').read_text()}"
                ) from None
            time.sleep(0.05)
    return ServerConfig(name="ours", url=f"http://127.0.0.1:{port}/mcp", trusted=True, timeout=20)


@pytest.fixture
def fake_llm():
    with FakeLLM() as fake:
        yield fake


@pytest.fixture
def device_service(tmp_path: Path):
    with BackgroundService(tmp_path / "devices.db") as service:
        yield service


@pytest.fixture(scope="session")
def postgres():
    """One PostgreSQL cluster in a temporary directory for the whole run, started on first use."""
    with PostgresCluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def trace_store():
    """One Arize Phoenix for the whole run, started on first use (it takes 10-25 s), stopped at the end."""
    with Phoenix() as phoenix:
        yield phoenix


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path):
    """A new, empty database for the device service: a SQLite file, then a Postgres database."""
    if request.param == "sqlite":
        yield str(tmp_path / "devices.db")
        return
    cluster = request.getfixturevalue("postgres")
    name = f"test_{uuid.uuid4().hex[:12]}"
    yield cluster.create_database(name)
    cluster.drop_database(name)


@pytest.fixture(scope="session", params=["sqlite", "postgres"])
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """The served agent (`main.py serve --workers 4`) on a scripted LLM, for the whole run: on SQLite,
    then on Postgres; users alice, bob and carol have keys (tests/support/serve_support.py)."""
    from tests.support.serve_support import served_agent

    yield from served_agent(request, tmp_path_factory)


@pytest.fixture
def service(database):
    """The device service in this process, on `database` (a test file may override it)."""
    with BackgroundService(database) as service:
        yield service


@pytest.fixture
def api(service):
    """The service's `.../api/models` URL."""
    return f"{service.url}/api/models"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for a `main.py` subprocess: no LLM or service settings from the outside."""
    drop = (
        "LLM_",
        "OPENAI_",
        "ADD_MODEL_URL",
        "DEVICE_DB",
        "DATABASE_URL",
        "LOCAL_MODEL",
        "AUDIT_LOG",
        "MCP_CONFIG",
        "AGENT_USER",
        "AGENT_DB",
        "SERVE_",
        "TURN_SECONDS",
        "PERMISSIONS_FILE",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    return {**env, "PYTHONIOENCODING": "utf-8", **extra}


def run_main(*args: str, env: dict[str, str], cwd: Path, stdin: str | None = None, timeout: float = 60):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
