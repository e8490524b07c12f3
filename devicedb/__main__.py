"""`python -m devicedb`: the device-model service on its own (OpenAPI docs at /docs).

SQLite by default (`--db FILE`); Postgres when `--database-url` or DATABASE_URL is `postgresql://...`.
Reads are open; writes need the service token: DEVICE_TOKEN, else one made on first use (mode 0600) and kept
in `devicedb.token` in the --db file's folder (data/ by default), on Postgres too; where is said at start.
"""

import argparse
import os
import sqlite3
from pathlib import Path

from devicedb.auth import service_token
from devicedb.workers import serve_forever
from plumbing.postgres import PostgresUnreachable
from plumbing.telemetry import TracingUnavailable


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m devicedb", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--db", default="data/devices.db", help="SQLite file (created if missing); its folder keeps the token"
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="postgresql://user:password@host/dbname; overrides --db (default: $DATABASE_URL)",
    )
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    args = parser.parse_args()
    database = args.database_url or args.db
    try:
        token, where = service_token(database, Path(args.db).parent)
        print(f"devicedb: writes need the service token in {where} (Authorization: Bearer ...)", flush=True)
        serve_forever(database, args.host, args.port, args.workers, token)
    except (PostgresUnreachable, TracingUnavailable, sqlite3.Error, OSError) as e:  # configuration: one line
        parser.exit(1, f"python -m devicedb: {e}\n")


if __name__ == "__main__":
    main()
