"""The process an MCP client starts for a helper server of tests/support/zygote.py:
`python -S zygote_launch.py SOCKET SCRIPT [ARGS...]`. It hands its stdin, stdout, stderr, environment and
folder to the zygote listening on SOCKET, which forks the server onto them; then it passes on the signals
it gets to the server, and exits as the server exits. The standard library only, and no site: it starts in
a few milliseconds."""

import contextlib
import json
import os
import signal
import socket
import sys

path, argv = sys.argv[1], sys.argv[2:]
server = 0  # the server's pid, once the zygote forked it
early: list[int] = []  # signals that came before: passed on as soon as it is known


def forward(number: int, _: object) -> None:
    if not server:
        early.append(number)
        return
    with contextlib.suppress(ProcessLookupError):  # it ended as the signal came
        os.kill(server, number)


for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, forward)
zygote = socket.socket(socket.AF_UNIX)
zygote.connect(path)
request = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd()}
socket.send_fds(zygote, [json.dumps(request).encode()], [0, 1, 2])
nothing = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):  # the server holds them now: its pipes close when it ends, not when we do
    os.dup2(nothing, fd)
answers = zygote.makefile("r")
forked = answers.readline().strip()
if not forked:  # the zygote could not read us
    sys.exit(1)
server = int(forked)
for number in early:
    os.kill(server, number)
ended = answers.readline().strip()
if not ended:  # no answer: the zygote itself ended (and its servers with it)
    sys.exit(1)
code = int(ended)
if code < 0:  # the server was killed by a signal: so is the launcher, as if it were the server
    with contextlib.suppress(OSError, ValueError):  # SIGKILL and SIGSTOP have no handler to reset
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code if code >= 0 else 128 - code)
