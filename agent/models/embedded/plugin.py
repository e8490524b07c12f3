"""The embedded model, chosen when no endpoint is configured: the local runtime, and the host policies
that make a small model useful, each one stated here and in the README.

The shipped 135M demo model gets all of them: each request carries only the one tool the selector
ranks first for the user's words; its reply is decoded under a grammar (`grammar.py`), so a call is
always a valid call of that tool with grounded values taken from the user's words; one tool
round per turn, answered by the host with each tool's own statement of what it did; nothing
destructive is offered and every write is confirmed by the person. A model of the user's own
(`LOCAL_MODEL`) runs on the same runtime with its own chat template and llama.cpp's tool calling;
its writes are confirmed too.
"""

from __future__ import annotations

from contextlib import ExitStack

from agent.config import Settings
from agent.guards import Limits
from agent.models.choice import ModelChoice, make_llm
from agent.models.embedded.grammar import GrammarChatModel
from agent.models.embedded.runtime import LocalModelServer
from agent.tool_selection import ToolSelector
from agent.tools import Effect

WRITES: frozenset[Effect] = frozenset({"write"})
SLOW_CPU_SECONDS = 600.0  # a model on a busy CPU is slow, not broken: a turn may take this long
LIMITS = Limits(deadline_seconds=SLOW_CPU_SECONDS)
DEMO_NOTICE = (
    "未配置 LLM：使用内置演示模型 SmolLM2-135M（1.35 亿参数）。它每次只拿到最相关的一个工具，回复受语法约束，"
    "写入前会请你确认；要用真实模型，请设置 LLM_BASE_URL、LLM_API_KEY、LLM_MODEL（见 README）。\n"
    "No LLM configured: using the embedded 135M demo model, with host policies that keep it useful "
    "(see README). Set LLM_BASE_URL, LLM_API_KEY and LLM_MODEL for a real one."
)


def embedded_choice(settings: Settings, stack: ExitStack) -> ModelChoice:
    server = stack.enter_context(LocalModelServer(settings.local_model))
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
        streams_with_tools=False,  # a decision is read whole
        tool_effects=frozenset({"read", "write"}),
        confirm_effects=WRITES,
        selector=ToolSelector(
            max_tools=0, top_k=3, offer_search=False
        ),  # ranked; the model gets the first it can call
        state_outcomes=True,
        limits=LIMITS,
        constrain=lambda registry: GrammarChatModel(inner=llm, registry=registry),
        notice=DEMO_NOTICE,
    )
