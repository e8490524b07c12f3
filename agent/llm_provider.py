"""The LLM provider: builds the chat model the configuration asks for (the tutorial's llmProvider)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from agent.config import Settings
from agent.llm_wrapper import CustomLLMWrapper


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
        from agent.chatopenai_backend import ChatOpenAIBackend  # imported only when chosen: slow to import

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
