"""The process an MCP client starts for a helper server of tests/support/zygote.py:
`python -S zygote_launch.py SOCKET SCRIPT [ARGS...]`. It hands its stdin, stdout, stderr, environment and
folder to the zygote listening on SOCKET, which forks the server onto them; then it passes on the signals
it gets to the server, and exits as the server exits. The standard library only, and no site: it starts in
a few milliseconds."""

import json
import os
import signal
import socket
import sys

path, argv = sys.argv[1], sys.argv[2:]
server = 0  # the server's pid, once the zygote forked it
early: list[int] = []  # signals that came before: passed on as soon as it is known


def forward(number: int, _: object) -> None:
    if server:
        os.kill(server, number)
    else:
        early.append(number)


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
server = int(answers.readline())
for number in early:
    os.kill(server, number)
ended = answers.readline().strip()
code = int(ended) if ended else 1  # no answer: the zygote itself ended
sys.exit(code if code >= 0 else 128 - code)
