"""ChatOpenAIBackend: langchain-openai's ChatOpenAI, with endpoint failures reported as LLMError.

The alternative to the tutorial's hand-written wrapper (`LLM_BACKEND=chatopenai`): the same agent
loop runs on it unchanged. Only the error type is adapted, so the person sees one clear line.
"""

from __future__ import annotations

from typing import Any

import openai
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from agent.types import LLMError


class ChatOpenAIBackend(ChatOpenAI):
    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        url = f"{self.openai_api_base}/chat/completions"
        try:
            return super()._generate(*args, **kwargs)
        except openai.APIStatusError as e:
            raise LLMError(f"LLM endpoint {url} answered HTTP {e.status_code}: {str(e)[:200]}") from None
        except openai.APITimeoutError:
            raise LLMError(f"LLM endpoint {url} did not answer in time") from None
        except openai.APIConnectionError as e:
            raise LLMError(f"cannot reach LLM endpoint {url}: {e}") from None
