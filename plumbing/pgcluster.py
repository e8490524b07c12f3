"""A throwaway PostgreSQL cluster in a temporary directory, for the tests and the benchmark.

It needs the PostgreSQL server binaries (`initdb`, `pg_ctl`) on PATH or in /usr/lib/postgresql/*/bin;
`make postgres` installs them. The server refuses to run as root, so under root the cluster belongs to
the `postgres` user (or `nobody`). It listens on a unix socket inside its directory and on no TCP port;
`stop()` removes it all.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from glob import glob
from pathlib import Path

import psycopg
from psycopg import sql

SUPERUSER = "devicedb"


class PostgresUnavailable(Exception):
    """The PostgreSQL server binaries are missing, or the cluster did not start (its log is quoted)."""


def server_binaries() -> Path:
    """The folder holding initdb and pg_ctl: PATH first, then the newest Debian installation."""
    found = shutil.which("initdb")
    if found:
        return Path(found).resolve().parent
    installed = sorted(glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if not installed:
        raise PostgresUnavailable(
            "PostgreSQL server binaries not found: run `make postgres` (installs postgresql-15)"
        )
    return Path(installed[-1]).parent


class PostgresCluster:
    """`with PostgresCluster() as pg:` a running cluster; `pg.create_database(name)` gives a URL."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.bin = server_binaries()
        self.owner = _unprivileged_owner()
        self.dir = Path(tempfile.mkdtemp(prefix="devicedb-pg-"))
        self.data = self.dir / "data"

    def start(self) -> PostgresCluster:
        if self.owner:
            os.chown(self.dir, self.owner.pw_uid, self.owner.pw_gid)
        self._run(
            "initdb", "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--locale=C", "-N"
        )
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(self._settings())
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.dir / "server.log"), "-w", "-t", "120", "start"
        )
        return self

    def _settings(self) -> str:
        settings = {
            "listen_addresses": "''",
            "unix_socket_directories": f"'{self.dir}'",
            "max_connections": "300",
        }
        if not self.durable:  # a test cluster lives for one run: skip the disk flushes
            settings.update(fsync="off", synchronous_commit="off", full_page_writes="off")
        return "".join(f"\n{key} = {value}" for key, value in settings.items()) + "\n"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.dir}"

    def create_database(self, name: str) -> str:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def drop_database(self, name: str) -> None:
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self.owner:
            runuser = shutil.which("runuser") or "/usr/sbin/runuser"
            command = [runuser, "-u", self.owner.pw_name, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            log = self.dir / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PostgresUnavailable(f"{program} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")

    def __enter__(self) -> PostgresCluster:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _unprivileged_owner() -> pwd.struct_passwd | None:
    """Who runs the server when we are root: `postgres` if the packages made it, else `nobody`."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise PostgresUnavailable("running as root, and neither a `postgres` nor a `nobody` user exists")
