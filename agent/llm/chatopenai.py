"""ChatOpenAIBackend: langchain-openai's ChatOpenAI, with endpoint failures reported as LLMError.

The alternative to the tutorial's hand-written wrapper (`LLM_BACKEND=chatopenai`): the same agent
loop runs on it unchanged. Adapted here: the error type (one clear line for the person), and the
tool calls, which pass through the same normalization as the wrapper's (`agent/llm/tool_calls.py`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import openai
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

from agent.audit import redact_text, upstream_reason
from agent.llm.streaming import as_chunk
from agent.llm.tool_calls import INCOMPLETE, normalize
from agent.types import LLMError, clamp


class ChatOpenAIBackend(ChatOpenAI):
    stream_usage: bool | None = True  # the token budget needs usage in streams too

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        kwargs["timeout"] = self._bounded(kwargs.get("timeout"))
        with self._endpoint_errors():
            return _normalized(super()._generate(*args, **kwargs))

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        kwargs["timeout"] = self._bounded(kwargs.get("timeout"))
        with self._endpoint_errors():
            return _normalized(await super()._agenerate(*args, **kwargs))

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        """ChatOpenAI's stream, within the timeout as a whole; one broken off ends marked incomplete,
        an empty one is asked again plainly."""
        kwargs["timeout"] = self._bounded(kwargs.get("timeout"))
        give_up_at = time.monotonic() + (kwargs["timeout"] or math.inf)
        finished = arrived = False
        for chunk in self._until_broken(super()._stream(*args, **kwargs)):
            if time.monotonic() > give_up_at:
                raise LLMError(f"LLM endpoint {self.openai_api_base} did not finish its answer in time")
            finished = finished or bool((chunk.generation_info or {}).get("finish_reason"))
            arrived = True
            yield chunk
        if not arrived:  # accepted `stream` but sent nothing: ask plainly
            plain = self._generate(*args, **kwargs).generations[0].message
            yield ChatGenerationChunk(message=as_chunk(plain))  # type: ignore[arg-type]
        elif not finished:
            incomplete = {"finish_reason": INCOMPLETE}
            yield ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata=incomplete))

    def _until_broken(self, chunks: Iterator[ChatGenerationChunk]) -> Iterator[ChatGenerationChunk]:
        """The chunks; a connection failing after the first ends the stream, before it is an LLMError."""
        arrived = False
        try:
            with self._endpoint_errors():
                for chunk in chunks:
                    arrived = True
                    yield chunk
        except LLMError:
            if not arrived:
                raise

    def _bounded(self, timeout: float | None) -> float | None:
        """The turn's remaining time, but never more than LLM_TIMEOUT."""
        if isinstance(self.request_timeout, (int, float)):
            return clamp(timeout, self.request_timeout)
        return timeout

    @contextmanager
    def _endpoint_errors(self) -> Iterator[None]:
        url = redact_text(f"{self.openai_api_base}/chat/completions")
        try:
            yield
        except openai.APIStatusError as e:
            reason = upstream_reason(e.response.text)
            raise LLMError(
                f"LLM endpoint {url} answered HTTP {e.status_code}" + (f": {reason}" if reason else "")
            ) from None
        except openai.APITimeoutError:
            raise LLMError(f"LLM endpoint {url} did not answer in time") from None
        except openai.APIConnectionError as e:
            raise LLMError(f"cannot reach LLM endpoint {url}: {e}") from None
        except httpx.TransportError as e:  # the connection failed mid-stream
            raise LLMError(f"LLM endpoint {url} broke off its answer: {type(e).__name__}") from None


def _normalized(result: ChatResult) -> ChatResult:
    for generation in result.generations:
        message = getattr(generation, "message", None)
        if isinstance(message, AIMessage):
            generation.message = normalize(message)  # type: ignore[attr-defined]
    return result
