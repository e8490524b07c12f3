"""The served agent in front: what all workers share is started once, here — the device service (unless
ADD_MODEL_URL), reached by the tools every worker registers — then the workers (worker.py), on one listening
socket (plumbing's `supervise`: one that dies is replaced). The embedded demo model runs in one worker: its
llama.cpp server is sized for the whole machine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass

from agent import tracing
from agent.config import Settings
from agent.function_tool import FunctionTool
from app.host import check_mcp_servers_for_several
from app.serve import logs
from app.serve.database import open_agent_database
from app.serve.settings import ServeSettings
from plumbing.sockets import listening_socket
from plumbing.supervision import EntryPoint, supervise

ToolsFactory = Callable[[], Sequence[FunctionTool]]  # picklable: a worker process calls it for its tools
SharedParts = Callable[[Settings, ExitStack], ToolsFactory]  # starts what the workers share; their tools
# One worker (worker.py), named, not imported: the parent of several never imports the worker's stack
# (FastAPI, DBOS, the A2A and AG-UI types: seconds of CPU); their fork server imports it, and the model's
# wrapper each worker loads as it builds its host, once for all of them.
WORKER = EntryPoint("app.serve.worker:run_worker")
WORKER_IMPORTS = ["agent.llm_wrapper"]
ONE_WORKER = (  # one line, said when more workers are asked for than the embedded model runs
    "--workers {asked}：内置演示模型只跑一个 worker（它的 llama.cpp 服务器已经用上整台机器的核，"
    "每个 worker 都会再起一个）；要多个 worker，请设置 LLM_BASE_URL。 / --workers {asked}: the embedded "
    "demo model runs one worker (its llama.cpp server already uses every core of the machine, and each "
    "worker would start another); set LLM_BASE_URL for several."
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
    logs.configure()  # first: every record the parent writes is one escaped line (each worker's: worker.py)
    if workers > 1 and not settings.llm_base_url:
        print(ONE_WORKER.format(asked=workers), file=sys.stderr, flush=True)
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
            return WORKER(sock, plan)
        supervise(WORKER, (sock, plan), workers, numbered=True, preload=WORKER_IMPORTS)
    return None
