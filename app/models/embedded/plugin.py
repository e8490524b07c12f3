"""The embedded model, chosen when no endpoint is configured: the local runtime, and the plug-in of host
policies that makes the 135M demo model do the app's job — each stated here and in the README.

The shipped demo model: the host reads each request and plans the turn (`routing.py`: the tool whose
effect and words fit, values from the person's words only, several codes as several calls); a tool turn
runs the plan's calls; small talk, who it is, what the tools can do, a question beyond the demo, what
it cannot do and the answer after the tools ran are said by the host (`answers.py`), in the person's
language; only a remark gets the model's own words, kept true (`chat_model.py`). It never removes
anything; it may change a market name (a destructive tool); every write and change is confirmed. A model
of the person's own (`LOCAL_MODEL`) runs on the same runtime with its own chat template and llama.cpp's
tool calling, under the generic loop; its writes are confirmed too.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from pydantic import Field
from pydantic_settings import BaseSettings

from agent.config import FROM_ENV, Settings
from agent.guards import Limits
from agent.tools import Effect, ToolRegistry
from app.models.choice import ModelChoice, TurnParts, make_llm
from app.models.embedded.answers import SAYS, Answerer, capabilities
from app.models.embedded.chat_model import DemoChatModel
from app.models.embedded.routing import Router, offered
from app.models.embedded.runtime import LocalModelServer

WRITES: frozenset[Effect] = frozenset({"write"})
SLOW_CPU_SECONDS = 600.0  # a model on a busy CPU is slow, not broken: a turn may take this long
LIMITS = Limits(deadline_seconds=SLOW_CPU_SECONDS)
DEMO_NOTICE = (
    "未配置 LLM：使用内置演示模型 SmolLM2-135M（1.35亿参数）。它读不懂请求，由宿主按你的原话安排工具调用，"
    "写入前会请你确认，不能删除；要用真实模型，请设置 LLM_BASE_URL、LLM_API_KEY、LLM_MODEL（见 README）。\n"
    "No LLM configured: using the embedded 135M demo model; the host plans its tool calls from your "
    "own words (see README). Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for a real one."
)


class EmbeddedSettings(BaseSettings):
    model_config = FROM_ENV

    local_model: Path | None = Field(None, validation_alias="LOCAL_MODEL")
    """A GGUF file the embedded runtime runs instead of the shipped demo model (with its own template)."""


def embedded_choice(settings: Settings, stack: ExitStack) -> ModelChoice:
    server = stack.enter_context(LocalModelServer(EmbeddedSettings().local_model))
    llm = make_llm(settings, server.base_url, temperature=0.0, max_tokens=80, timeout=SLOW_CPU_SECONDS)
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


def demo_plugin(llm: BaseChatModel) -> Callable[[ToolRegistry], TurnParts]:
    """The demo model's parts over a registry: its chat model (which states the host's answers) and its
    router (which also chooses the tools each request carries)."""

    def parts(registry: ToolRegistry) -> TurnParts:
        router = Router(registry)
        model = DemoChatModel(
            inner=llm,
            router=router,
            answerer=Answerer(router, registry),
            fallback=lambda lang: SAYS["remark"][lang] + "\n" + capabilities(registry, lang),
        )
        return TurnParts(model, router)

    return parts
