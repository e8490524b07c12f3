"""The helper MCP servers of tests/support (the attacker's, the ledger, the notes and the misbehaving
server) and the served agent (`main.py serve`, tests/support/serve_support.py) started as forks of one
process that has imported the MCP SDK and the served agent's stack already: each start costs a fork instead
of a new interpreter importing them (a second of CPU for a helper, two for the served agent, some 300 times a
run). The README's own `python main.py serve` (tests/app/serve/test_readme.py) and every other command the
tests run start a new interpreter.

`helper_server("attack_server")` is the `command` and `args` of such a server, for a `ServerConfig` or an
mcp.json entry; `launched(argv)` the arguments of `python` for any script. What starts it still starts a real
process on real pipes: the launcher (`python -S tests/support/zygote_launch.py SOCKET SCRIPT ARGS...`) hands
its stdin, stdout, stderr, environment and folder to the zygote, which forks a child that runs SCRIPT on
them as `__main__`, as `python SCRIPT ARGS...` would run it. The launcher passes on the signals it gets, and
ends as the child ends; when the launcher dies (kill -9), the zygote kills its child, and `server_of(pid)`
(`forked_for(launcher)`, waiting for it) names the child of a launcher, for a test that signals the server
itself (SIGSTOP, kill -9).

Run as a script, this is the zygote: `python tests/support/zygote.py SOCKET`. Each test process starts its
own on first use; `stop()` ends it and its children.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import importlib
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
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
    # the served agent: its command line, its workers' stack, the model's wrapper, and main.py itself
    "app.serve.cli",
    "app.serve.worker",
    "agent.llm_wrapper",
    "main",
)
_zygote: subprocess.Popen | None = None
_folder = ""  # this test process's, made with its zygote: the socket, the log, a file per server


def helper_server(name: str) -> dict[str, object]:
    """`command` and `args` that start tests/support/NAME.py through this test process's zygote."""
    script = HERE / f"{name}.py"
    assert script.is_file(), script
    return {"command": sys.executable, "args": launched([str(script)])}


def launched(argv: list[str]) -> list[str]:
    """The arguments of `python` that run `python SCRIPT ARGS...` (argv) forked by the zygote."""
    _start()
    return ["-S", str(LAUNCHER), socket_path(), *argv]


def socket_path() -> str:
    """Where this test process's zygote listens: the same path for the whole run, across restarts."""
    global _folder
    if not _folder:
        _folder = tempfile.mkdtemp(prefix="zygote-")
    return os.path.join(_folder, "socket")


def _start() -> None:
    global _zygote
    if _zygote is not None and _zygote.poll() is None:
        return
    path = socket_path()
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a zygote that died: its successor listens on the same path
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # as the tests start main.py (conftest's clean_env)
    with open(os.path.join(_folder, "log"), "ab") as log:
        _zygote = subprocess.Popen(
            [sys.executable, __file__, path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=log,
            env=env,
        )
    assert _zygote.stdout is not None
    ready = _zygote.stdout.readline()
    assert ready == b"ready\n", Path(_folder, "log").read_text()


def server_of(launcher: int) -> int | None:
    """The pid of the server that the launcher `launcher` started, while it runs."""
    try:
        return int(Path(_folder, "servers", str(launcher)).read_text()) if _folder else None
    except (FileNotFoundError, ValueError):
        return None


def forked_for(launcher: subprocess.Popen, timeout: float = 30) -> int:
    """The pid of the server forked for `launcher`, once the zygote has forked it."""
    give_up_at = time.monotonic() + timeout
    while (pid := server_of(launcher.pid)) is None:
        assert launcher.poll() is None, f"the launcher ended ({launcher.returncode}) before its server"
        assert time.monotonic() < give_up_at, "no server was forked"
        time.sleep(0.02)
    return pid


def running() -> frozenset[int]:
    """The zygote's pid, if this test process started one and it runs."""
    return frozenset({_zygote.pid}) if _zygote is not None and _zygote.poll() is None else frozenset()


def stop() -> None:
    """End this test process's zygote, if it started one, and every server it forked."""
    global _zygote
    if _zygote is not None:
        _zygote.terminate()
        try:
            _zygote.wait(30)
        except subprocess.TimeoutExpired:
            _zygote.kill()  # its servers die with it (each asked the kernel to)
            _zygote.wait()
        assert _zygote.stdout is not None
        _zygote.stdout.close()
        _zygote = None
    if _folder:
        shutil.rmtree(_folder, ignore_errors=True)


# The zygote itself.

FORWARDED = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}  # what a launcher passes on to its server


def serve(path: str) -> None:
    path_as_started = list(sys.path)
    sys.path.insert(0, str(ROOT))  # where `python main.py` finds the project
    for module in PRELOAD:
        importlib.import_module(module)
    sys.path[:] = path_as_started  # each child puts its script's folder first, as python does
    assert threading.active_count() == 1, "a fork copies only the thread that forks"
    servers = os.path.join(os.path.dirname(path), "servers")  # a file per server: its launcher's pid, its own
    os.makedirs(servers, exist_ok=True)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the tests; SIGTERM ends the zygote
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen(64)
    woken, wake = socket.socketpair()
    for end in (woken, wake):
        end.setblocking(False)
    signal.set_wakeup_fd(wake.fileno())  # a child's exit (SIGCHLD), or SIGTERM, wakes the loop
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: None)
    zygote = Zygote(listener, woken, wake, servers)
    print("ready", flush=True)
    try:
        zygote.run(parent=os.getppid())
    finally:
        zygote.end()


class Zygote:
    """The loop: a launcher's request is forked, a server's end is told to its launcher, and a launcher's end
    ends its server."""

    def __init__(self, listener: socket.socket, woken: socket.socket, wake: socket.socket, servers: str):
        self.listener, self.woken, self.wake, self.servers = listener, woken, wake, servers
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ)
        self.selector.register(woken, selectors.EVENT_READ)
        self.children: dict[int, tuple[socket.socket, int]] = {}  # pid -> its launcher: connection, pid

    def run(self, parent: int) -> None:
        """Until SIGTERM, or the test process is gone."""
        while os.getppid() == parent:
            for key, _ in self.selector.select(timeout=1.0):
                if key.fileobj is self.listener:
                    self.fork(self.listener.accept()[0])
                elif key.fileobj is self.woken:
                    if self.drain():
                        return
                    self.reap()
                elif key.fileobj.fileno() != -1 and not _received(key.fileobj):  # type: ignore[union-attr]
                    _kill(key.data)  # its launcher is gone: so is the server
                    self.selector.unregister(key.fileobj)

    def fork(self, conn: socket.socket) -> None:
        try:
            message, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
            request = json.loads(message)
            launcher, _, _ = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        except (OSError, ValueError):  # a launcher that died as it asked
            conn.close()
            return
        signal.pthread_sigmask(signal.SIG_BLOCK, FORWARDED)  # none is lost before the child's handlers
        zygote = os.getpid()
        pid = os.fork()
        if pid == 0:
            self.selector.close()
            for s in (conn, self.listener, self.woken, self.wake, *(c for c, _ in self.children.values())):
                s.close()
            _run(request, fds, zygote)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        for fd in fds:
            os.close(fd)
        self.children[pid] = (conn, launcher)
        Path(self.servers, str(launcher)).write_text(str(pid))
        self.selector.register(conn, selectors.EVENT_READ, pid)
        try:
            conn.sendall(f"{pid}\n".encode())
        except OSError:
            _kill(pid)  # its launcher is gone already

    def drain(self) -> bool:
        """Read the signals that woke the loop; True if one was SIGTERM."""
        got = b""
        with contextlib.suppress(BlockingIOError):
            while chunk := self.woken.recv(256):
                got += chunk
        return signal.SIGTERM in got

    def reap(self) -> None:
        """Tell each launcher whose server ended how it ended (its exit code, or minus the signal)."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn, launcher = self.children.pop(pid, (None, 0))
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(self.servers, str(launcher)))
            if conn is not None:
                with contextlib.suppress(KeyError, ValueError):  # not watched once its launcher was gone
                    self.selector.unregister(conn)
                with contextlib.suppress(OSError):
                    conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
                conn.close()

    def end(self) -> None:
        for pid in self.children:
            _kill(pid)
        for pid in self.children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _received(conn: socket.socket) -> bool:
    """Whether the launcher is still there (it never writes again: a read is its end)."""
    try:
        return bool(conn.recv(1))
    except OSError:
        return False


def _run(request: dict, fds: list[int], zygote: int) -> None:
    """In the child: become `python SCRIPT ARGS...` on the launcher's stdio, environment and folder, and
    end as that process would (its non-daemon threads joined, its exit handlers run)."""
    code = 1
    try:
        PR_SET_PDEATHSIG = 1  # the zygote killed (kill -9): its servers die with it
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != zygote:  # it died before we asked
            os._exit(1)
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, FORWARDED)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        script = request["argv"][0]
        sys.argv, sys.path[0] = request["argv"], os.path.dirname(script)
        code = 0
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else int(e.code is not None)
        if e.code is not None and not isinstance(e.code, int):
            print(e.code, file=sys.stderr)  # as python prints sys.exit("message")
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter does as it exits
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    serve(sys.argv[1])
