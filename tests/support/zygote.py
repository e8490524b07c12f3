"""The helper MCP servers of tests/support (the attacker's, the ledger, the notes and the misbehaving
server) started as forks of one process that has imported the MCP SDK already: each start costs a fork
instead of a new interpreter importing the SDK (about a second of CPU, some 200 times a run).

`helper_server("attack_server")` is the `command` and `args` of such a server, for a `ServerConfig` or an
mcp.json entry. The MCP client under test still starts a real process on real pipes: the launcher
(`python -S tests/support/zygote_launch.py SOCKET SCRIPT`) hands its stdin, stdout, stderr, environment and
folder to the zygote, which forks a child that runs SCRIPT on them as `__main__`, exactly as `python SCRIPT`
would run it. The launcher passes on the signals it gets, and exits with the child's exit code; when the
launcher dies (kill -9), the zygote kills its child.

Run as a script, this is the zygote: `python tests/support/zygote.py SOCKET`. Each test process starts its
own on first use; `stop()` ends it and its children.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
LAUNCHER = HERE / "zygote_launch.py"
# what the helper servers import: the rest (their own module) is run fresh in each child
PRELOAD = (
    "anyio",
    "mcp",
    "mcp.server",
    "mcp.server.lowlevel.server",
    "mcp.server.mcpserver",
    "mcp.server.runner",
    "mcp.server.stdio",
    "mcp.server.subscriptions",
    "mcp.types",
    "mcp_types",
    "mcp_types.version",
)
_zygote: subprocess.Popen | None = None
_folder = ""


def helper_server(name: str) -> dict[str, object]:
    """`command` and `args` that start tests/support/NAME.py through this test process's zygote."""
    script = HERE / f"{name}.py"
    assert script.is_file(), script
    return {"command": sys.executable, "args": ["-S", str(LAUNCHER), _socket(), str(script)]}


def _socket() -> str:
    global _zygote, _folder
    if _zygote is None or _zygote.poll() is not None:
        _folder = tempfile.mkdtemp(prefix="zygote-")
        path = os.path.join(_folder, "socket")
        with open(os.path.join(_folder, "log"), "wb") as log:
            _zygote = subprocess.Popen(
                [sys.executable, __file__, path], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log
            )
        assert _zygote.stdout is not None
        ready = _zygote.stdout.readline()
        assert ready == b"ready\n", Path(_folder, "log").read_text()
    return os.path.join(_folder, "socket")


def running() -> frozenset[int]:
    """The zygote's pid, if this test process started one and it runs."""
    return frozenset({_zygote.pid}) if _zygote is not None and _zygote.poll() is None else frozenset()


def stop() -> None:
    """End this test process's zygote, if it started one, and every server it forked."""
    global _zygote
    if _zygote is not None:
        _zygote.terminate()
        _zygote.wait(30)
        assert _zygote.stdout is not None
        _zygote.stdout.close()
        shutil.rmtree(_folder, ignore_errors=True)
        _zygote = None


# The zygote itself.


def serve(path: str) -> None:
    for module in PRELOAD:
        importlib.import_module(module)
    assert threading.active_count() == 1, "a fork copies only the thread that forks"
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(64)
    woken, wake = socket.socketpair()
    for end in (woken, wake):
        end.setblocking(False)
    signal.set_wakeup_fd(wake.fileno())  # a child's exit (SIGCHLD), or SIGTERM, wakes the loop
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(woken, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}  # pid -> its launcher's connection
    print("ready", flush=True)
    running = True
    while running and os.getppid() == parent:  # ends on SIGTERM, or when the test process is gone
        for key, _ in selector.select(timeout=1.0):
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid = _fork(conn, [listener, woken, wake, *children.values()], selector)
                children[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
            elif key.fileobj is woken:
                running = not _drain(woken)
                _reap(children, selector)
            elif not key.fileobj.recv(1):  # type: ignore[union-attr]
                _kill(key.data)  # its launcher is gone: so is the server
                selector.unregister(key.fileobj)
    _end(children)


def _fork(conn: socket.socket, others: list[socket.socket], selector: selectors.BaseSelector) -> int:
    message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        selector.close()
        for s in (conn, *others):
            s.close()
        _run(request, fds)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    return pid


def _run(request: dict, fds: list[int]) -> None:
    """In the child: become `python SCRIPT ARGS...` on the launcher's stdio, environment and folder."""
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    script = request["argv"][0]
    sys.argv, sys.path[0] = request["argv"], os.path.dirname(script)
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else int(e.code is not None)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _drain(woken: socket.socket) -> bool:
    """Read the signals that woke the loop; True if one was SIGTERM."""
    got = b""
    try:
        while chunk := woken.recv(256):
            got += chunk
    except BlockingIOError:
        pass
    return signal.SIGTERM in got


def _reap(children: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    """Tell each launcher whose server ended how it ended (its exit code, or minus the signal)."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(KeyError, ValueError):  # not watched once its launcher was gone
                selector.unregister(conn)
            with contextlib.suppress(OSError):
                conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
            conn.close()


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _end(children: dict[int, socket.socket]) -> None:
    for pid in children:
        _kill(pid)
    for pid in children:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


if __name__ == "__main__":
    serve(sys.argv[1])
