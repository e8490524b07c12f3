"""`python main.py serve` and `python main.py keys`: the served agent's commands.

`serve [--host H] [--port P] [--workers N]` serves until Ctrl-C; `keys add NAME` makes a key for the user
NAME and prints it once, on the last line; `keys list` and `keys revoke NAME` do what they say.
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.config import Settings
from agent.guards import safe
from agent.types import ConfigError, UsageError
from app.serve.database import open_agent_database
from app.serve.keys import KeyStore
from app.serve.settings import ServeSettings

if TYPE_CHECKING:
    from app.serve.workers import SharedParts


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python main.py", description="The agent over HTTP, and its keys.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "serve",
        help="serve the agent: /v1/chat/completions, /v1/models, /agui, /a2a",
        description="Serve the agent over HTTP: the chat page at /, /v1/chat/completions, /v1/models, "
        "/agui and /a2a. Every request but the page's files needs an API key: make one with "
        "'.venv/bin/python main.py keys add NAME' (in the project's folder).",
    )
    run.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    run.add_argument("--port", type=int, default=8080, help="the port (default 8080)")
    run.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    keys = commands.add_parser("keys", help="API keys: add NAME, list, revoke NAME")
    keys.add_argument("action", choices=["add", "list", "revoke"])
    keys.add_argument("name", nargs="?", help="the key's name: the user it signs in")
    keys.add_argument(
        "--keep-conversations",
        action="store_true",
        help="add: a revoked name's new key continues its conversations (default: they are set aside)",
    )
    return parser.parse_args(argv)


def run_command(argv: list[str], shared: SharedParts) -> int:
    """Run `serve` or `keys`; `shared` starts what the workers share and says which tools they register."""
    args = parse_args(argv)
    try:
        serving = ServeSettings()
        if args.command == "keys":
            return manage_keys(serving, args.action, args.name, args.keep_conversations)
        if args.workers < 1:
            raise UsageError("--workers must be 1 or more")
        from app.serve.workers import serve  # DBOS, FastAPI and uvicorn: not for `keys`

        serve(Settings(), serving, shared, args.host, args.port, args.workers)
        return 0
    except (ConfigError, UsageError) as e:
        print(f"error: {safe(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def manage_keys(serving: ServeSettings, action: str, name: str | None, keep: bool = False) -> int:
    if action != "list" and not name:
        raise UsageError(f"keys {action} needs a NAME: python main.py keys {action} NAME")
    db = open_agent_database(serving)
    try:
        store = KeyStore(db)
        if action == "add":
            assert name is not None
            key = store.add(name, keep_conversations=keep)
            print(f"A new API key for {name} (shown this once; `keys revoke {name}` withdraws it):")
            print(key)
        elif action == "revoke":
            assert name is not None
            store.revoke(name)
            print(f"revoked the key of {name}")
        for info in store.list() if action == "list" else []:
            state = f"revoked {_day(info.revoked_at)}" if info.revoked_at else "active"
            print(f"{info.name}\tcreated {_day(info.created_at)}\t{state}")
    finally:
        db.close()
    return 0


def _day(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")
