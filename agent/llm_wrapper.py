"""CustomLLMWrapper: a LangChain chat model that speaks raw HTTP to any OpenAI-compatible endpoint.

Mirrors `agent/llm_wrapper.go` of the tutorial: build the request by hand (`agent/llm/request.py`),
POST it, and turn the raw `tool_calls` of the answer into tool calls (`parse_response`). Streamed
answers arrive as chunks (`agent/llm/streaming.py`); async calls run on httpx (`agent/llm/transport.py`).
The calls pass through the one normalization every backend shares (`agent/llm/tool_calls.py`).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any, ClassVar, Literal

import requests
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, ValidationError

from agent.llm.request import chat_body, message_to_dict, tool_choice
from agent.llm.streaming import (
    StreamAssembler,
    aread_stream,
    as_chunk,
    read_stream,
    usage_metadata,
)
from agent.llm.tool_calls import CUT_OFF_REASONS, calls_in
from agent.llm.transport import Post, apost, async_client, json_body, post
from agent.types import ApiResponse, LLMError, clamp
from plumbing.http import session_for

__all__ = ["CustomLLMWrapper", "message_to_dict", "parse_response"]

# --- the raw JSON answer -> AIMessage (a pure function: no I/O, never raises on model output) ----


def parse_response(body: dict[str, Any]) -> AIMessage:
    try:
        response = ApiResponse.model_validate(body)
    except ValidationError as e:
        raise LLMError(f"LLM endpoint sent an unreadable answer: {e.errors()[0]['msg']}") from None
    if not response.choices:
        raise LLMError(f"LLM endpoint answered without choices: {json.dumps(body, ensure_ascii=False)[:200]}")
    choice = response.choices[0]
    cut_off = choice.finish_reason in CUT_OFF_REASONS
    content, calls, invalid = calls_in(
        choice.message.content or "", list(choice.message.tool_calls or []), cut_off
    )
    return AIMessage(
        content=content,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        response_metadata={"finish_reason": choice.finish_reason, "model_name": response.model},
        usage_metadata=usage_metadata(response.usage.model_dump() if response.usage else None),
    )


class CustomLLMWrapper(BaseChatModel):
    base_url: str
    api_key: str | None = Field(default=None, repr=False)
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    stop: list[str] | None = None
    streaming: bool = False  # invoke() streams too (LangChain reads this field)
    timeout: float = 60.0
    max_retries: int = 3
    _session: requests.Session = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self._session = session_for(self.base_url)

    @property
    def _llm_type(self) -> str:
        return "custom-openai-compatible"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model, "base_url": self.base_url}

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        strict: bool | None = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, AIMessage]:
        formatted = [convert_to_openai_tool(t, strict=strict) for t in tools]
        choice = _tool_choice(tool_choice, [t["function"]["name"] for t in formatted if "function" in t])
        extra = {"tool_choice": choice, "parallel_tool_calls": parallel_tool_calls}
        return self.bind(tools=formatted, **{k: v for k, v in extra.items() if v is not None}, **kwargs)

    def with_structured_output(
        self,
        schema: Any = None,
        *,
        method: Literal["function_calling", "json_mode", "json_schema"] = "function_calling",
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable[Any, Any]:
        """Answers parsed into `schema`: by a forced tool call, by JSON mode, or by a JSON-Schema format."""
        from agent.llm.structured import structured  # its parsers load only when it is used

        return structured(self, schema, method, include_raw, strict, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        resp = post(self._session, self._request(messages, stop, kwargs))
        return ChatResult(generations=[ChatGeneration(message=parse_response(json_body(resp)))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        async with async_client(self.base_url) as client:
            resp = await apost(client, self._request(messages, stop, kwargs))
        return ChatResult(generations=[ChatGeneration(message=parse_response(json_body(resp)))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        request = self._request(messages, stop, kwargs, stream=True)
        resp = post(self._session, request)
        if not _is_event_stream(resp.headers):  # a server that ignores `stream`
            yield _whole(json_body(resp))
            return
        assembler = StreamAssembler()
        yield from read_stream(resp, assembler, request.url, request.give_up_at)
        if assembler.events:
            yield _generation(assembler.last())
        else:  # accepted `stream` but sent nothing: ask plainly
            yield _whole(json_body(post(self._session, _plain(request))))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        request, assembler = self._request(messages, stop, kwargs, stream=True), StreamAssembler()
        async with async_client(self.base_url) as client:
            resp = await apost(client, request)
            if not _is_event_stream(resp.headers):
                await resp.aread()
                yield _whole(json_body(resp))
                return
            async for chunk in aread_stream(resp, assembler, request.url, request.give_up_at):
                yield chunk
            if not assembler.events:
                yield _whole(json_body(await apost(client, _plain(request))))
                return
        yield _generation(assembler.last())

    def _request(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict[str, Any],
        stream: bool = False,
    ) -> Post:
        """The POST for these messages: the model's settings, this call's parameters, its timeout."""
        timeout = clamp(kwargs.pop("timeout", None), self.timeout)
        settings = {
            "model": self.model or None,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        params = {**settings, "stop": stop or self.stop}
        if stream:
            kwargs = {**kwargs, "stream": True, "stream_options": {"include_usage": True}}
        url = self.base_url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return Post(url, chat_body(messages, params, kwargs), headers, timeout, self.max_retries, stream)

    parse_response: ClassVar[Callable[[dict[str, Any]], AIMessage]] = staticmethod(parse_response)


_tool_choice = tool_choice  # bind_tools' parameter of the same name hides the function there


def _is_event_stream(headers: Any) -> bool:
    return str(headers.get("content-type", "")).startswith("text/event-stream")


def _generation(chunk: Any) -> ChatGenerationChunk:
    return ChatGenerationChunk(message=chunk)


def _plain(request: Post) -> Post:
    """The request again without `stream`, for the time left and no retries: the server accepted the
    stream but sent nothing (llama-cpp-python's server does so when tools are offered)."""
    body = {k: v for k, v in request.body.items() if k not in ("stream", "stream_options")}
    return Post(request.url, body, request.headers, request.left())


def _whole(body: dict[str, Any]) -> ChatGenerationChunk:
    """A whole (not streamed) answer as the stream's one chunk."""
    return _generation(as_chunk(parse_response(body)))
