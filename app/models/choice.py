"""ModelChoice: a chat model and the host policies that go with it; `make_llm`: the chat model for an
OpenAI-compatible endpoint, by LLM_BACKEND — the tutorial's hand-written wrapper, or ChatOpenAI.

A model choice may bring a plug-in (`TurnParts`): its own chat model over the registry's tools, its
own choice of the tools each request carries (a chat model of its own may state an answer itself).
The loop knows only these generic seams; the embedded demo model is the plug-in that uses them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import SecretStr

from agent.config import Settings
from agent.guards import DEFAULT_LIMITS, Limits
from agent.tool_selection import Selector, ToolSelector
from agent.tools import Effect, FunctionTool, ToolRegistry

if TYPE_CHECKING:  # LangChain's chat-model stack loads with the first model made (a host without one,
    from langchain_core.language_models import BaseChatModel  # the MCP server's, never loads it)

ALL_EFFECTS: frozenset[Effect] = frozenset({"read", "write", "destructive"})
# a reply that asks the person a question before anything can be done (its additional_kwargs[ASKS] is
# True): `main.py -m` prints it and exits 2, a pipe goes on to its next line
ASKS = "asks"


@dataclass(frozen=True)
class TurnParts:
    """What drives a ChatAgent's turns over a registry: the chat model and the selector."""

    llm: BaseChatModel
    selector: Selector


@dataclass(frozen=True)
class ModelChoice:
    """A chat model and the host policies that go with it (a weak model gets more of them)."""

    llm: BaseChatModel
    description: str  # what /model shows
    streams_with_tools: bool  # can it stream its answer while tools are offered?
    tool_effects: frozenset[Effect] = ALL_EFFECTS  # the kinds of tool it is offered (least privilege)
    confirm_effects: frozenset[Effect] = frozenset()  # confirmed by the person, beyond destructive tools
    selector: ToolSelector = field(default_factory=ToolSelector)  # which tools each request carries
    limits: Limits = DEFAULT_LIMITS  # rounds, calls, deadline and tokens of one turn
    plugin: Callable[[ToolRegistry], TurnParts] | None = None  # a model's own policies over the registry
    notice: str = ""  # told to the person at start-up
    runs: Callable[[FunctionTool], bool] = lambda tool: True  # the registered tools it runs (said to people)

    def parts_for(self, registry: ToolRegistry) -> TurnParts:
        """The chat model and selector that drive the loop over `registry`'s tools."""
        return self.plugin(registry) if self.plugin else TurnParts(self.llm, self.selector)


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
    from agent.llm_wrapper import CustomLLMWrapper

    return CustomLLMWrapper(
        base_url=base_url,
        api_key=key,
        model=settings.llm_model,
        timeout=timeout,
        temperature=temperature,
        max_tokens=max_tokens,
    )
