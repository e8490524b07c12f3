"""The provider factory (the tutorial's `llmProvider.GetLLM()`): the chat model the settings ask for,
and what the rest of the program must know about it, so nothing else asks which model it is."""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from agent.config import Settings
from agent.llm_wrapper import CustomLLMWrapper
from agent.tools import Effect
from agent.types import ConfigError

ALL_EFFECTS: frozenset[Effect] = frozenset({"read", "write", "destructive"})


@dataclass(frozen=True)
class ModelChoice:
    llm: BaseChatModel
    description: str  # what /model shows
    streams_with_tools: bool  # can it stream its answer while tools are offered?
    tool_effects: frozenset[Effect] = ALL_EFFECTS  # the kinds of tool it is offered (least privilege)
    notice: str = ""  # told to the person at start-up


def choose_model(settings: Settings, stack: ExitStack) -> ModelChoice:
    """The configured endpoint, or the embedded local model, started here and stopped with `stack`."""
    if settings.llm_api_key and not settings.llm_base_url:
        raise ConfigError(
            "LLM_API_KEY is set but LLM_BASE_URL is not: set it, e.g. https://api.deepseek.com/v1"
        )
    if settings.llm_base_url:
        llm = make_llm(settings, settings.llm_base_url)
        name = settings.llm_model or getattr(llm, "model_name", "") or "(server default)"
        where = f"{name} at {settings.llm_base_url} [{settings.llm_backend}]"
        return ModelChoice(llm, where, streams_with_tools=True)
    return _embedded(settings, stack)


def _embedded(settings: Settings, stack: ExitStack) -> ModelChoice:
    from agent.llm.local_model import LocalModelServer  # its runtime loads only when it is used

    server = stack.enter_context(LocalModelServer())
    llm = make_llm(settings, server.base_url, temperature=server.temperature, max_tokens=server.max_tokens)
    return ModelChoice(
        llm,
        f"{server.model_name}, the embedded demo model, at {server.base_url}",
        streams_with_tools=server.streams_with_tools,
        tool_effects=server.tool_effects,
        notice=server.notice,
    )


def make_llm(
    settings: Settings,
    base_url: str,
    api_key: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> BaseChatModel:
    """`wrapper` = the tutorial's hand-written client; `chatopenai` = langchain-openai's ChatOpenAI."""
    key = api_key or settings.llm_api_key
    if settings.llm_backend == "chatopenai":
        from agent.llm.chatopenai import ChatOpenAIBackend  # imported only when chosen: slow to import

        return ChatOpenAIBackend(
            base_url=base_url,
            api_key=SecretStr(key or "not-needed"),
            model=settings.llm_model or "default",
            timeout=settings.llm_timeout,
            max_retries=2,
            temperature=temperature,
        )
    return CustomLLMWrapper(
        base_url=base_url,
        api_key=key,
        model=settings.llm_model,
        timeout=settings.llm_timeout,
        temperature=temperature,
        max_tokens=max_tokens,
    )
