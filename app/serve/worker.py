"""One worker of the served agent: uvicorn serving the app on the socket the parent (workers.py) listens on.

Each worker builds its own host through `build_host` (the registry, the model, MCP servers), opens its
own connections to the database, and runs turns as durable workflows (durable.py) under leases of its own
(leases.py): the worker that replaces a dead one, or the server restarted, finishes the turns the dead one
left. Any worker serves any conversation.
"""

from __future__ import annotations

import logging
import socket
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import uvicorn
from fastapi import FastAPI

from agent import tracing
from app.host import Front, build_host
from app.serve import approvals, durable, logs
from app.serve.app import create_app
from app.serve.conversations import ConversationStore
from app.serve.database import open_agent_database
from app.serve.hardening import allowed_hosts, uvicorn_options
from app.serve.keys import KeyStore
from app.serve.leases import owner, term
from app.serve.limits import ServeLimits
from app.serve.service import Service
from app.serve.turns import Turns
from app.serve.workers import Plan
from plumbing.supervision import exit_on_sigterm

THREADS = 64  # turns one worker runs at once (each waits on the model and the tools most of the time)


def run_worker(sock: socket.socket, plan: Plan, slot: int = 0) -> None:
    """Worker `slot`: uvicorn serving the app on the shared socket."""
    logs.configure()  # first: every record it writes is one escaped line
    exit_on_sigterm()  # what the worker started stops, and its last spans leave
    with ExitStack() as stack:
        serving = plan.serving
        app = allowed_hosts(worker_app(plan, stack, slot), serving.serve_allowed_hosts)
        options = uvicorn_options(serving.serve_max_connections)
        config = uvicorn.Config(
            app, log_config=None, log_level="info", timeout_graceful_shutdown=10, **options
        )  # its loggers' handlers are logs.py's
        uvicorn.Server(config).run(sockets=[sock])


def worker_app(plan: Plan, stack: ExitStack, slot: int = 0) -> FastAPI:
    """The app of worker `slot`; what it started stops with `stack`."""
    settings, serving = plan.settings, plan.serving
    tracing.start(stack)  # a spawned worker exports its own spans
    report = logging.getLogger("app.serve").warning
    front = Front(confirm=approvals.confirm, report=report, several_people=True)
    host = build_host(settings, stack, plan.tools(), front)
    assert host.model is not None
    if host.model.notice:
        print(host.model.notice, file=sys.stderr, flush=True)
    db = open_agent_database(serving)
    stack.callback(db.close)
    limits = ServeLimits.of(serving, host.model.limits.deadline_seconds, term(db, serving.serve_peer_seconds))
    turns = Turns(host, ConversationStore(db), limits, owner(serving.serve_name, slot))
    stack.callback(turns.held.start())  # the leases of the turns under way here, renewed
    if serving.serve_durable:  # and the turns whose runner died, here or anywhere, go on
        durable.run_turns(serving, turns, db, stack, THREADS)
    # stopping, the turns under way end first, while this worker still renews their leases
    threads = stack.enter_context(ThreadPoolExecutor(THREADS, thread_name_prefix="turn"))
    app = create_app(Service(host, KeyStore(db), turns, limits, threads))
    tracing.serve(app)
    return app
