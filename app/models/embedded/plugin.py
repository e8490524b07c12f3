"""The embedded model, chosen when no endpoint is configured: the local runtime, and the plug-in of host
policies that makes the 135M demo model do the app's job — each stated here and in the README.

The shipped demo model: the host reads each request and plans the turn (`routing.py`: the tool whose
effect and words fit, values from the person's words only, several codes as several calls); a tool turn
runs the plan's calls; small talk, who it is, what the tools can do, a question beyond the demo, what
it cannot do and the answer after the tools ran are said by the host (`answers.py`), in the person's
language; only a remark gets the model's own words, kept true (`chat_model.py`). Every write,
change and delete it plans is confirmed by the person before it runs. A model
of the person's own (`LOCAL_MODEL`) runs on the same runtime with its own chat template and llama.cpp's
tool calling, under the generic loop; its writes are confirmed too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field, PrivateAttr
from pydantic_settings import BaseSettings

from agent.config import FROM_ENV, Settings
from agent.guards import Limits
from agent.tools import Effect, ToolRegistry
from agent.types import ConfigError
from app.models.choice import ModelChoice, TurnParts, make_llm
from app.models.embedded.answers import SAYS, Answerer, capabilities
from app.models.embedded.chat_model import DemoChatModel
from app.models.embedded.reading import remarks
from app.models.embedded.routing import Router, offered
from app.models.embedded.runtime import LocalModelServer

WRITES: frozenset[Effect] = frozenset({"write"})
SLOW_CPU_SECONDS = 600.0  # a model on a busy CPU is slow, not broken: a turn may take this long
LIMITS = Limits(deadline_seconds=SLOW_CPU_SECONDS)
DEMO_NOTICE = (
    "未配置 LLM：使用内置演示模型 SmolLM2-135M（1.35亿参数）。它读不懂请求，由宿主按你的原话安排工具调用，"
    "写入和删除前都会请你确认；要用真实模型，请设置 LLM_BASE_URL、LLM_API_KEY、LLM_MODEL（见 README）。\n"
    "No LLM configured: using the embedded 135M demo model; the host plans its tool calls from your "
    "own words (see README). Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for a real one."
)


class EmbeddedSettings(BaseSettings):
    model_config = FROM_ENV

    local_model: Path | None = Field(None, validation_alias="LOCAL_MODEL")
    """A GGUF file the embedded runtime runs instead of the shipped demo model (with its own template)."""
    local_model_template: Path | None = Field(None, validation_alias="LOCAL_MODEL_TEMPLATE")
    """A Jinja chat template for a LOCAL_MODEL whose GGUF carries none."""


def embedded_choice(settings: Settings, stack: ExitStack) -> ModelChoice:
    embedded = EmbeddedSettings()
    if embedded.local_model_template and not embedded.local_model:
        raise ConfigError(
            "LOCAL_MODEL_TEMPLATE is the template of the GGUF LOCAL_MODEL names: set LOCAL_MODEL too"
        )
    server = LocalModelServer(embedded.local_model, template=embedded.local_model_template)
    stack.callback(server.close)

    def on(base_url: str) -> BaseChatModel:
        return make_llm(settings, base_url, temperature=0.0, max_tokens=80, timeout=SLOW_CPU_SECONDS)

    if server.shipped:  # the demo: its server starts when a turn first needs the model's own words
        where = f"{server.model_name}, the embedded model (its server starts when a turn needs its words)"
        llm: BaseChatModel = OnDemand(server=server, make=on)
    else:
        llm = on(server.start().base_url)
        where = f"{server.model_name}, the embedded model, at {server.base_url}"
    if not server.shipped:
        notice = f"未配置 LLM：使用 LOCAL_MODEL={server.model_path}。No LLM configured: running LOCAL_MODEL."
        return ModelChoice(
            llm, where, streams_with_tools=True, confirm_effects=WRITES, limits=LIMITS, notice=notice
        )
    return ModelChoice(
        llm,
        where,
        streams_with_tools=False,  # answers are stated whole
        # the host runs no removal (facts.py: not offered) and says so; changes are confirmed first
        confirm_effects=WRITES,
        limits=LIMITS,
        plugin=demo_plugin(llm),
        notice=DEMO_NOTICE,
        runs=offered,
    )


class OnDemand(BaseChatModel):
    """A chat model on the embedded server that starts the server on the first call that needs it, and
    keeps it up for the session: a turn the host plans whole (a tool turn, its own answers) starts none.
    The server boots in a thread of its own: a turn cancelled while it boots leaves it booting for the
    next."""

    server: Any  # a LocalModelServer, not yet started
    make: Callable[[str], BaseChatModel]  # base URL -> the chat model on it
    _booting: threading.Thread | None = PrivateAttr(None)
    _booted: threading.Event = PrivateAttr(default_factory=threading.Event)
    _model: BaseChatModel | None = PrivateAttr(None)
    _error: Exception | None = PrivateAttr(None)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

    @property
    def _llm_type(self) -> str:
        return "embedded-on-demand"

    def model(self) -> BaseChatModel:
        with self._lock:
            if self._booting is None:
                self._booting = threading.Thread(target=self._boot, name="model-server-boot", daemon=True)
                self._booting.start()
        self._booted.wait()  # Ctrl-C cancels the turn here; the boot goes on
        if self._error is not None:
            raise self._error
        assert self._model is not None
        return self._model

    def _boot(self) -> None:
        try:
            self._model = self.make(self.server.start().base_url)
        except Exception as e:  # said to every turn that needs the model
            self._error = e
        finally:
            self._booted.set()

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self.model().invoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def demo_plugin(llm: BaseChatModel) -> Callable[[ToolRegistry], TurnParts]:
    """The demo model's parts over a registry: its chat model (which states the host's answers) and its
    router (which also chooses the tools each request carries)."""

    def parts(registry: ToolRegistry) -> TurnParts:
        router = Router(registry)
        model = DemoChatModel(
            inner=llm,
            router=router,
            answerer=Answerer(router, registry),
            fallback=lambda lang, typed: (
                SAYS["remark"][lang] + ("" if remarks(typed) else "\n" + capabilities(registry, lang))
            ),  # a remark: no list of tools
        )
        return TurnParts(model, router)

    return parts
