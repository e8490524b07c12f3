"""ChatOpenAIBackend: langchain-openai's ChatOpenAI, with endpoint failures reported as LLMError.

The alternative to the tutorial's hand-written wrapper (`LLM_BACKEND=chatopenai`): the same agent
loop runs on it unchanged. Only the error type is adapted, so the person sees one clear line.
"""

from __future__ import annotations

from typing import Any

import openai
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from agent.llm_wrapper import new_call_id
from agent.types import LLMError


class ChatOpenAIBackend(ChatOpenAI):
    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        url = f"{self.openai_api_base}/chat/completions"
        if isinstance(self.request_timeout, (int, float)) and "timeout" in kwargs:
            kwargs["timeout"] = min(kwargs["timeout"], self.request_timeout)  # LLM_TIMEOUT still applies
        try:
            return _with_call_ids(super()._generate(*args, **kwargs))
        except openai.APIStatusError as e:
            raise LLMError(f"LLM endpoint {url} answered HTTP {e.status_code}: {str(e)[:200]}") from None
        except openai.APITimeoutError:
            raise LLMError(f"LLM endpoint {url} did not answer in time") from None
        except openai.APIConnectionError as e:
            raise LLMError(f"cannot reach LLM endpoint {url}: {e}") from None


def _with_call_ids(result: ChatResult) -> ChatResult:
    """Give every tool call a unique id, as the wrapper does: some servers send none, or the same twice."""
    for generation in result.generations:
        message = getattr(generation, "message", None)
        if isinstance(message, AIMessage):
            seen: set[str] = set()
            for call in [*message.tool_calls, *message.invalid_tool_calls]:
                if not call["id"] or call["id"] in seen:
                    call["id"] = new_call_id()
                seen.add(call["id"] or "")
    return result
