"""The served agent in front: what all workers share is started once, here — the device service (unless
ADD_MODEL_URL), reached by the tools every worker registers — then the workers, on one listening socket
(plumbing's `supervise`: one that dies is replaced).

Each worker builds its own host through `build_host` (the registry, the model, MCP servers), opens its
own connections to the database, and runs turns as durable workflows (durable.py) as an executor of its
own (executors.py): the worker that replaces a dead one, or the server restarted, finishes the turns the
dead one left. Any worker serves any conversation. The embedded demo model runs in one worker: its llama.cpp
server is sized for the whole machine.
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from agent import tracing
from agent.config import Settings
from agent.function_tool import FunctionTool
from app.host import Front, build_host, check_mcp_servers_for_several
from app.serve import approvals, durable
from app.serve.app import create_app
from app.serve.conversations import ConversationStore
from app.serve.database import open_agent_database
from app.serve.hardening import allowed_hosts, uvicorn_options
from app.serve.keys import KeyStore
from app.serve.limits import ServeLimits
from app.serve.service import Service
from app.serve.settings import ServeSettings
from app.serve.turns import Turns
from plumbing.sockets import listening_socket
from plumbing.supervision import exit_on_sigterm, supervise

THREADS = 64  # turns one worker runs at once (each waits on the model and the tools most of the time)
ToolsFactory = Callable[[], Sequence[FunctionTool]]  # picklable: a worker process calls it for its tools
SharedParts = Callable[[Settings, ExitStack], ToolsFactory]  # starts what the workers share; their tools
# what each worker imports as it builds its host (the model's wrapper loads with the first model made): the
# fork server imports it once for all of them
WORKER_IMPORTS = ["agent.llm_wrapper"]
ONE_WORKER = (
    "内置演示模型只在一个 worker 中运行；要多个 worker，请设置 LLM_BASE_URL。"
    "The embedded demo model runs in one worker; set LLM_BASE_URL for several."
)


@dataclass(frozen=True)
class Plan:
    """What a worker is given: the core's settings, the served agent's, and the tools it registers."""

    settings: Settings
    serving: ServeSettings
    tools: ToolsFactory


def serve(
    settings: Settings,
    serving: ServeSettings,
    shared: SharedParts,
    host: str,
    port: int,
    workers: int = 1,
) -> None:
    """Serve until SIGTERM or Ctrl-C. Starts the shared parts, then the workers."""
    if workers > 1 and not settings.llm_base_url:
        print(ONE_WORKER, file=sys.stderr, flush=True)
        workers = 1
    check_mcp_servers_for_several()  # each says whom it acts for, or serving stops here
    with ExitStack() as stack:
        tracing.start(stack)  # when OTEL_EXPORTER_OTLP_ENDPOINT is set; before any database or service
        db = open_agent_database(serving)  # migrated once, here; a bad database is reported before workers
        stack.callback(db.close)
        plan = Plan(settings, serving, shared(settings, stack))
        sock = listening_socket(host, port)
        print(f"serving the agent on http://{host}:{port} ({workers} worker(s))", file=sys.stderr, flush=True)
        if workers == 1:
            return run_worker(sock, plan)
        supervise(run_worker, (sock, plan), workers, numbered=True, preload=WORKER_IMPORTS)
    return None


def run_worker(sock: socket.socket, plan: Plan, slot: int = 0) -> None:
    """Worker `slot`: uvicorn serving the app on the shared socket."""
    exit_on_sigterm()  # what the worker started stops, and its last spans leave
    with ExitStack() as stack:
        serving = plan.serving
        app = allowed_hosts(worker_app(plan, stack, slot), serving.serve_allowed_hosts)
        options = uvicorn_options(serving.serve_max_connections)
        config = uvicorn.Config(app, log_level="info", timeout_graceful_shutdown=10, **options)
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
    limits = ServeLimits.of(serving, host.model.limits.deadline_seconds)
    turns = Turns(host, ConversationStore(db), limits)
    if serving.serve_durable:  # and the turns this slot, or a dead worker anywhere, left go on
        durable.run_turns(serving, turns, db, slot, stack)
    # stopping, the turns under way end first, while this worker still says it is alive
    threads = stack.enter_context(ThreadPoolExecutor(THREADS, thread_name_prefix="turn"))
    app = create_app(Service(host, KeyStore(db), turns, limits, threads))
    tracing.serve(app)
    return app
