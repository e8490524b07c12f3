"""The served agent for the tests: `python main.py serve` in a child process on a free loopback port, on
the scripted LLM, with its keys made by `python main.py keys add`; and reads of its database."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from devicedb.processes import stop
from devicedb.server import free_port
from tests.conftest import ROOT, clean_env, run_main
from tests.devicedb_support import query


class ServedAgent:
    """`with ServedAgent(fake_llm.url, tmp_path, database, workers=4) as agent:` — `agent.url` is its base
    URL, `agent.key("alice")` a new API key. `database`: a SQLite file for its keys and conversations (the
    device service's file beside it), or a postgresql:// URL for both."""

    def __init__(self, llm_url: str, cwd: Path, database: str, workers: int = 1, **env: str) -> None:
        self.port, self.cwd, self.database = free_port(), cwd, database
        self.url = f"http://127.0.0.1:{self.port}"
        where = (
            {"DATABASE_URL": database}
            if database.startswith("postgresql://")
            else {"AGENT_DB": database, "DEVICE_DB": str(Path(database).with_name("devices.db"))}
        )
        self.env = clean_env(LLM_BASE_URL=llm_url, AUDIT_LOG=str(cwd / "audit.jsonl"), **where, **env)
        self.command = [sys.executable, str(ROOT / "main.py"), "serve", "--port", str(self.port)]
        self.command += ["--workers", str(workers)]
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self.process: subprocess.Popen | None = None

    def key(self, name: str) -> str:
        done = run_main("keys", "add", name, env=self.env, cwd=self.cwd)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[-1]

    def start(self, timeout: float = 120.0) -> ServedAgent:
        self.process = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, stdout=self._log, stderr=self._log)
        give_up_at = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > give_up_at:
                said = self.log()
                self.stop()
                raise RuntimeError(f"`main.py serve` did not start: {said}")
            time.sleep(0.1)
        return self

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/v1/models", timeout=2).status_code == 401
        except requests.ConnectionError:
            return False

    def log(self) -> str:
        self._log.seek(0)
        return self._log.read()[-4000:].decode(errors="replace")

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows of `sql` on the agent's database."""
        return query(self.database, sql, params)

    def stop(self) -> None:
        stop(self.process, grace=30)
        self._log.close()

    def __enter__(self) -> ServedAgent:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
