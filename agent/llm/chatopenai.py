"""ChatOpenAIBackend: langchain-openai's ChatOpenAI, with endpoint failures reported as LLMError.

The alternative to the tutorial's hand-written wrapper (`LLM_BACKEND=chatopenai`): the same agent
loop runs on it unchanged. Adapted here: the error type (one clear line for the person), and the
tool calls, which pass through the same normalization as the wrapper's (`agent/llm/tool_calls.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import openai
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_openai import ChatOpenAI

from agent.llm.tool_calls import normalize
from agent.types import LLMError, clamp


class ChatOpenAIBackend(ChatOpenAI):
    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        kwargs["timeout"] = self._bounded(kwargs.get("timeout"))
        with self._endpoint_errors():
            result = super()._generate(*args, **kwargs)
        for generation in result.generations:
            message = getattr(generation, "message", None)
            if isinstance(message, AIMessage):
                generation.message = normalize(message)  # type: ignore[attr-defined]
        return result

    def stream_chat(
        self,
        messages: list[BaseMessage],
        on_text: Callable[[str], None],
        tools: Any = None,
        tool_choice: str | None = None,
        timeout: float | None = None,
    ) -> AIMessage:
        """Like invoke, streamed: `on_text` gets the answer's text as it arrives."""
        llm = self.bind_tools(tools, tool_choice=tool_choice) if tools else self
        merged: Any = None
        try:
            with self._endpoint_errors():
                for chunk in llm.stream(messages, timeout=self._bounded(timeout), stream_usage=True):
                    if chunk.text:
                        on_text(chunk.text)
                    merged = chunk if merged is None else merged + chunk
        except (ValueError, LLMError) as e:  # the stream broke off: keep what arrived, run none of its calls
            if merged is None:
                raise LLMError(f"LLM endpoint {self.openai_api_base} broke off its answer: {e}") from None
            merged.response_metadata.pop("finish_reason", None)
        message = AIMessage(
            content=merged.content,
            tool_calls=merged.tool_calls,
            invalid_tool_calls=merged.invalid_tool_calls,
            usage_metadata=merged.usage_metadata,
            response_metadata=merged.response_metadata,
        )
        # partial arguments must not be guessed into a call
        return normalize(message, cut_off=message.response_metadata.get("finish_reason") in (None, "length"))

    def _bounded(self, timeout: float | None) -> float | None:
        """The turn's remaining time, but never more than LLM_TIMEOUT."""
        if isinstance(self.request_timeout, (int, float)):
            return clamp(timeout, self.request_timeout)
        return timeout

    @contextmanager
    def _endpoint_errors(self) -> Iterator[None]:
        url = f"{self.openai_api_base}/chat/completions"
        try:
            yield
        except openai.APIStatusError as e:
            raise LLMError(f"LLM endpoint {url} answered HTTP {e.status_code}: {str(e)[:200]}") from None
        except openai.APITimeoutError:
            raise LLMError(f"LLM endpoint {url} did not answer in time") from None
        except openai.APIConnectionError as e:
            raise LLMError(f"cannot reach LLM endpoint {url}: {e}") from None
