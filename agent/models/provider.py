"""The provider factory (the tutorial's `llmProvider.GetLLM()`): the chat model the settings ask for,
and what the rest of the program must know about it, so nothing else asks which model it is."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from agent.config import Settings
from agent.guards import DEFAULT_LIMITS, Limits
from agent.llm_wrapper import CustomLLMWrapper
from agent.tool_selection import ToolSelector
from agent.tools import Effect, ToolRegistry
from agent.types import ConfigError

ALL_EFFECTS: frozenset[Effect] = frozenset({"read", "write", "destructive"})


@dataclass(frozen=True)
class ModelChoice:
    """A chat model and the host policies that go with it (a weak model gets more of them)."""

    llm: BaseChatModel
    description: str  # what /model shows
    streams_with_tools: bool  # can it stream its answer while tools are offered?
    tool_effects: frozenset[Effect] = ALL_EFFECTS  # the kinds of tool it is offered (least privilege)
    confirm_effects: frozenset[Effect] = frozenset()  # confirmed by the person, beyond destructive tools
    selector: ToolSelector = field(default_factory=ToolSelector)  # which tools each request carries
    state_outcomes: bool = False  # one tool round, then the host states each tool's outcome
    limits: Limits = DEFAULT_LIMITS  # rounds, calls, deadline and tokens of one turn
    constrain: Callable[[ToolRegistry], BaseChatModel] | None = None  # wraps `llm` with the registry's facts
    notice: str = ""  # told to the person at start-up

    def model_for(self, registry: ToolRegistry) -> BaseChatModel:
        """The chat model that drives the loop over `registry`'s tools."""
        return self.constrain(registry) if self.constrain else self.llm


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
    from agent.llm.embedded import embedded_choice  # its runtime loads only when it is used

    return embedded_choice(settings, stack)


def make_llm(
    settings: Settings,
    base_url: str,
    api_key: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    timeout: float | None = None,
) -> BaseChatModel:
    """`wrapper` = the tutorial's hand-written client; `chatopenai` = langchain-openai's ChatOpenAI."""
    key, timeout = api_key or settings.llm_api_key, timeout or settings.llm_timeout
    if settings.llm_backend == "chatopenai":
        from agent.llm.chatopenai import ChatOpenAIBackend  # imported only when chosen: slow to import

        return ChatOpenAIBackend(
            base_url=base_url,
            api_key=SecretStr(key or "not-needed"),
            model=settings.llm_model or "default",
            timeout=timeout,
            max_retries=2,
            temperature=temperature,
        )
    return CustomLLMWrapper(
        base_url=base_url,
        api_key=key,
        model=settings.llm_model,
        timeout=timeout,
        temperature=temperature,
        max_tokens=max_tokens,
    )
