"""A real trace store for the tests: Arize Phoenix (from PyPI, in tests/.venv-phoenix: `make phoenix`) on
loopback, with a temporary SQLite database and no telemetry. Spans go in over OTLP/HTTP (`env`, the
standard OTEL_* variables, a project per test) and come back out through Phoenix's own REST API
(`spans`); `screenshot` photographs a trace in its web page with Debian's headless Chromium."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

from plumbing.sockets import free_port

VENV = Path(__file__).resolve().parents[1] / ".venv-phoenix"


class TraceStoreUnavailable(Exception):
    """Phoenix or Chromium is not installed, or Phoenix did not start (its log is quoted)."""


class Phoenix:
    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="phoenix-"))
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120.0) -> Phoenix:
        program = VENV / "bin" / "phoenix"
        if not program.exists():
            raise TraceStoreUnavailable(f"{program} not found: run `make phoenix`")
        log = (self.dir / "phoenix.log").open("w")
        self._proc = subprocess.Popen(
            [str(program), "serve"], env=self._settings(), stdout=log, stderr=log, start_new_session=True
        )
        give_up_at = time.monotonic() + timeout
        while not self._healthy():
            if self._proc.poll() is not None or time.monotonic() > give_up_at:
                self.stop()
                raise TraceStoreUnavailable(f"Phoenix did not start: {self.log()[-2000:]}")
            time.sleep(0.2)
        return self

    def _settings(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "PHOENIX_"))}
        return env | {
            "PHOENIX_WORKING_DIR": str(self.dir),
            "PHOENIX_SQL_DATABASE_URL": f"sqlite:///{self.dir}/phoenix.db",
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(self.port),
            "PHOENIX_GRPC_PORT": "0",  # any free port: its gRPC listener cannot be kept to loopback
            "PHOENIX_TELEMETRY_ENABLED": "false",
            "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
            "PHOENIX_DISABLE_AGENT_ASSISTANT": "true",
            "PHOENIX_ENABLE_MCP_SERVER": "false",
            "PHOENIX_LOG_MIGRATIONS": "false",
        }

    def _healthy(self) -> bool:
        try:
            return requests.get(f"{self.url}/healthz", timeout=1).ok
        except requests.ConnectionError:
            return False

    def log(self) -> str:
        return (self.dir / "phoenix.log").read_text(errors="replace")

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGTERM)
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Phoenix:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def env(self, project: str) -> dict[str, str]:
        """What a program needs to send its spans here, into `project`: the standard OTEL_* variables."""
        return {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.url,
            "OTEL_EXPORTER_OTLP_HEADERS": f"x-project-name={project}",
        }

    def spans(
        self,
        project: str,
        trace_id: str | None,
        at_least: int,
        timeout: float = 30.0,
        having: tuple[str, ...] = (),
    ) -> list[dict[str, Any]]:
        """The spans of one trace (None: of the project), read back through Phoenix's REST API once
        `at_least` of them are in, and one named each of `having` (Phoenix stores a trace's spans batch by
        batch as they arrive)."""
        give_up_at = time.monotonic() + timeout
        while True:
            resp = requests.get(
                f"{self.url}/v1/projects/{project}/spans",
                params={"limit": 1000} | ({"trace_id": trace_id} if trace_id else {}),
                timeout=5,
            )
            found = resp.json()["data"] if resp.ok else []
            names = {span["name"] for span in found}
            if len(found) >= at_least and names.issuperset(having):
                return found
            if time.monotonic() > give_up_at:
                raise AssertionError(
                    f"{len(found)} spans of trace {trace_id} in {project}, missing {set(having) - names}: "
                    f"{resp.text[:300]}"
                )
            time.sleep(0.1)

    def screenshot(self, trace_id: str, path: Path, budget_ms: int = 10_000) -> None:
        """Phoenix's page of one trace, as Chromium draws it (no host but loopback can be resolved)."""
        chromium = shutil.which("chromium")
        if chromium is None:
            raise TraceStoreUnavailable("chromium not found: run `make chromium`")
        profile = tempfile.mkdtemp(prefix="chromium-")
        command = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        command += ["--no-first-run", "--disable-background-networking", "--disable-component-update"]
        command += ["--disable-sync", "--disable-extensions", "--hide-scrollbars", "--window-size=1400,1000"]
        command += ["--force-prefers-reduced-motion"]  # else the trace's panel is caught sliding in
        command += ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", f"--user-data-dir={profile}"]
        command += [f"--virtual-time-budget={budget_ms}", f"--screenshot={path}"]
        browser = subprocess.Popen(
            [*command, f"{self.url}/redirects/traces/{trace_id}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            browser.wait(timeout=120)
        finally:
            if browser.poll() is None:
                os.killpg(browser.pid, signal.SIGKILL)
                browser.wait()
            shutil.rmtree(profile, ignore_errors=True)
