"""The served agent for the tests: `python main.py serve` in a child process on a free loopback port, on
the scripted LLM, with its keys made as `python main.py keys add` makes them (in this process: the CLI's
own tests are in test_openai.py); and reads of its database."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import psycopg
import requests
from ag_ui.core import Event, RunAgentInput
from pydantic import TypeAdapter

from app.serve.database import open_agent_database
from app.serve.keys import KeyStore
from app.serve.settings import ServeSettings
from plumbing.processes import stop
from plumbing.sockets import free_port
from tests.conftest import ROOT, clean_env
from tests.support import zygote
from tests.support.devicedb_support import query
from tests.support.fake_llm import FakeLLM


class ServedAgent:
    """`with ServedAgent(fake_llm.url, tmp_path, database, workers=4) as agent:` — `agent.url` is its base
    URL, `agent.key("alice")` a new API key, `agent.pid` its first process. `database`: a SQLite file for its
    keys and conversations (the device service's file beside it), or a postgresql:// URL for both."""

    def __init__(
        self, llm_url: str, cwd: Path, database: str, workers: int = 1, fresh: bool = False, **env: str
    ) -> None:
        self.port, self.cwd, self.database = free_port(), cwd, database
        where = (
            {"DATABASE_URL": database}
            if database.startswith("postgresql://")
            else {"AGENT_DB": database, "DEVICE_DB": str(Path(database).with_name("devices.db"))}
        )
        self.env = clean_env(LLM_BASE_URL=llm_url, AUDIT_LOG=str(cwd / "audit.jsonl"), **where, **env)
        serve = [str(ROOT / "main.py"), "serve", "--workers", str(workers)]
        # forked from the zygote, which imported the served agent's stack once for all the servers of this
        # test process; `fresh`: a new interpreter, as `python main.py serve` is started by hand
        self.command = [sys.executable, *(serve if fresh else zygote.launched(serve))]
        self.fresh = fresh
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 (closed by stop())
        self.process: subprocess.Popen | None = None
        self.llm: FakeLLM | None = None
        self.keys: dict[str, str] = {}

    def key(self, name: str) -> str:
        """A new API key for `name`, stored in the agent's database (the CLI's code, without its process)."""
        where = {k: v for k, v in self.env.items() if k in ("AGENT_DB", "DATABASE_URL")}
        db = open_agent_database(ServeSettings(_env_file=None, **where))
        try:
            return KeyStore(db).add(name)
        finally:
            db.close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0, tries: int = 3) -> ServedAgent:
        for _ in range(tries):
            began = os.fstat(self._log.fileno()).st_size
            command = [*self.command, "--port", str(self.port)]
            self.process = subprocess.Popen(
                command, cwd=self.cwd, env=self.env, stdout=self._log, stderr=self._log
            )
            if self._up(timeout):
                return self
            self._log.seek(began)
            said = self._log.read().decode(errors="replace")[-4000:]
            if self.process.poll() is None or "Address already in use" not in said:
                break
            self.port = free_port()  # another socket took the free port before the server bound it
        self.stop()
        raise RuntimeError(f"`main.py serve` did not start: {said}")

    def _up(self, timeout: float) -> bool:
        assert self.process is not None
        give_up_at = time.monotonic() + timeout
        while not self._answers():
            if self.process.poll() is not None or time.monotonic() > give_up_at:
                return False
            time.sleep(0.1)
        return True

    def _answers(self) -> bool:
        try:
            return requests.get(f"{self.url}/v1/models", timeout=2).status_code == 401
        except requests.ConnectionError:
            return False

    @property
    def pid(self) -> int:
        """The server's first process (the launcher's server when forked from the zygote)."""
        assert self.process is not None
        return self.process.pid if self.fresh else zygote.forked_for(self.process)

    def log(self, tail: int | None = 4000) -> str:
        """What the server wrote (stdout and stderr): its last `tail` bytes, or all of it (None)."""
        self._log.seek(0)
        written = self._log.read()
        return written[-tail if tail else 0 :].decode(errors="replace")

    def query(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Rows of `sql` on the agent's database."""
        return query(self.database, sql, params)

    def query_execute(self, sql: str, params: tuple = ()) -> None:
        """Change the agent's database by hand (one statement, committed)."""
        execute(self.database, sql, params)

    def kill(self) -> None:
        """`kill -9` of the whole server: its first process, then every process it started, at once."""
        assert self.process is not None
        everyone = started_by(self.process.pid)
        for pid in everyone:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        stop(self.process, grace=30)
        self._log.close()

    def __enter__(self) -> ServedAgent:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def started_by(pid: int) -> list[int]:
    """`pid` and every process it started, with the servers the zygote forked for its launchers (the served
    agent's, then the MCP servers that agent started) and theirs."""
    found, roots = [], [pid]
    while roots:
        tree = [p for root in roots for p in (root, *descendants(root))]
        found += tree
        roots = [server for p in tree if (server := zygote.server_of(p))]
    return found


def descendants(pid: int) -> list[int]:
    """The processes `pid` started, and theirs, read from /proc."""
    parents: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                parents[int(proc.name)] = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, wanted = [], {pid}
    while True:
        more = [child for child, parent in parents.items() if parent in wanted and child not in found]
        if not more:
            return found
        found += more
        wanted = set(more)


PERMISSIONS = {
    "default": ["add_model"],
    "users": {"alice": ["add_model", "delete_model"], "dana": ["add_model", "delete_model"], "carol": []},
}
# alice adds and deletes; bob adds; carol may do neither; dana adds and deletes, in turns of her own (the A2A
# promises' tests), so that alice's stay under the turns a person may start a minute
USERS = ("alice", "bob", "carol", "dana")


def served_agent(request: Any, tmp_path_factory: Any) -> Iterator[ServedAgent]:
    """The served agent with 4 workers on a scripted LLM (`agent.llm`), keys in `agent.keys`."""
    tmp = tmp_path_factory.mktemp(f"served-{request.param}")
    (tmp / "permissions.json").write_text(json.dumps(PERMISSIONS))
    database, cluster, name = str(tmp / "agent.db"), None, f"served_{uuid.uuid4().hex[:10]}"
    if request.param == "postgres":
        cluster = request.getfixturevalue("postgres")
        database = cluster.create_database(name)
    env = {"PERMISSIONS_FILE": str(tmp / "permissions.json")}
    with FakeLLM() as llm, ServedAgent(llm.url, tmp, database, workers=4, **env) as agent:
        agent.llm = llm
        agent.keys = {user: agent.key(user) for user in USERS}
        yield agent
    if cluster is not None:
        cluster.drop_database(name)


def execute(database: str, sql: str, params: tuple) -> None:
    if database.startswith("postgresql://"):
        with psycopg.connect(database) as conn:
            conn.execute(sql.replace("?", "%s"), params)
        return
    with closing(sqlite3.connect(database)) as conn, conn:
        conn.execute(sql, params)


def devices(database: str) -> list[tuple]:
    """(model, createdBy) of every row of the device service, whose database is beside the agent's."""
    where = database if database.startswith("postgresql://") else str(Path(database).with_name("devices.db"))
    return query(where, 'SELECT model, "createdBy" FROM models ORDER BY model')


EVENT: TypeAdapter[Any] = TypeAdapter(Event)


def agui_run(agent: ServedAgent, user: str, run: RunAgentInput) -> list[Any]:
    """The AG-UI events of one run, read as the protocol's own types."""
    body = run.model_dump(mode="json", by_alias=True, exclude_none=True)
    headers = {"Authorization": f"Bearer {agent.keys[user]}", "Accept": "text/event-stream"}
    with requests.post(f"{agent.url}/agui", json=body, headers=headers, stream=True, timeout=60) as resp:
        assert resp.status_code == 200, resp.text
        assert resp.headers["content-type"].startswith("text/event-stream")
        lines = [line.decode() for line in resp.iter_lines() if line.startswith(b"data:")]
    return [EVENT.validate_json(line[5:].strip()) for line in lines]
