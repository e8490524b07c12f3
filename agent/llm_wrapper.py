"""CustomLLMWrapper: a LangChain chat model that speaks raw HTTP to any OpenAI-compatible endpoint.

Mirrors `agent/llm_wrapper.go` of the tutorial: build the request by hand, POST it, and turn the raw
`tool_calls` of the answer into tool calls (`parse_response`). The calls pass through the one
normalization every backend shares (`agent/llm/tool_calls.py`), so the loop sees clean messages.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import requests
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr, ValidationError

from agent.llm.streaming import INCOMPLETE, StreamAssembler, sse_events
from agent.llm.tool_calls import split_calls, tagged_calls
from agent.llm.transport import json_body, post, session_for
from agent.types import ApiResponse, LLMError, clamp

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}

# --- LangChain message -> the JSON the endpoint reads ------------------------------------------


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": _ROLES.get(message.type, message.type), "content": message.text}
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        # content stays "" rather than null: llama.cpp's server rejects null assistant content
        out["tool_calls"] = [
            _call_to_dict(c["id"], c["name"], json.dumps(c["args"], ensure_ascii=False))
            for c in message.tool_calls
        ]
        out["tool_calls"] += [
            _call_to_dict(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls
        ]
    return out


def _call_to_dict(call_id: str | None, name: str | None, arguments: str | None) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name or "", "arguments": arguments or ""}}


# --- the raw JSON answer -> AIMessage (a pure function: no I/O, never raises on model output) ----


def parse_response(body: dict[str, Any]) -> AIMessage:
    try:
        response = ApiResponse.model_validate(body)
    except ValidationError as e:
        raise LLMError(f"LLM endpoint sent an unreadable answer: {e.errors()[0]['msg']}") from None
    if not response.choices:
        raise LLMError(f"LLM endpoint answered without choices: {json.dumps(body, ensure_ascii=False)[:200]}")
    choice = response.choices[0]
    content = choice.message.content or ""
    raw_calls = list(choice.message.tool_calls or [])
    if not raw_calls and "<tool_call>" in content:
        content, raw_calls = tagged_calls(content)
    calls, invalid = split_calls(raw_calls, cut_off=choice.finish_reason in ("length", INCOMPLETE))
    message = AIMessage(
        content=content,
        tool_calls=calls,
        invalid_tool_calls=invalid,
        response_metadata={"finish_reason": choice.finish_reason, "model_name": response.model},
    )
    if response.usage:
        u = response.usage
        message.usage_metadata = {
            "input_tokens": u.prompt_tokens,
            "output_tokens": u.completion_tokens,
            "total_tokens": u.total_tokens or u.prompt_tokens + u.completion_tokens,
        }
    return message


class CustomLLMWrapper(BaseChatModel):
    base_url: str
    api_key: str | None = None
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float = 60.0
    max_retries: int = 3
    _session: requests.Session = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self._session = session_for(self.base_url)

    @property
    def _llm_type(self) -> str:
        return "custom-openai-compatible"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        if tool_choice:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        timeout = clamp(kwargs.pop("timeout", None), self.timeout)
        resp = post(
            self._session,
            self._url(),
            self._body(messages, stop, kwargs),
            self._headers(),
            timeout,
            self.max_retries,
        )
        return ChatResult(generations=[ChatGeneration(message=parse_response(json_body(resp)))])

    def stream_chat(
        self, messages: list[BaseMessage], on_text: Callable[[str], None], **kwargs: Any
    ) -> AIMessage:
        """Like invoke, with `stream: true`: `on_text` gets the answer's text as it arrives."""
        timeout = clamp(kwargs.pop("timeout", None), self.timeout)
        give_up_at = time.monotonic() + timeout
        body = {
            **self._body(messages, None, kwargs),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        resp = post(self._session, self._url(), body, self._headers(), timeout, self.max_retries, stream=True)
        if not resp.headers.get("content-type", "").startswith("text/event-stream"):
            return parse_response(json_body(resp))  # a server that ignores `stream`
        assembler = self._read_stream(resp, on_text, give_up_at)
        if (
            assembler.events == 0
        ):  # accepted `stream` but sent nothing (llama-cpp-python with tools): ask plainly
            plain = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            left = max(0.1, give_up_at - time.monotonic())
            return parse_response(
                json_body(post(self._session, self._url(), plain, self._headers(), left, 0))
            )
        return parse_response(assembler.body())

    def _read_stream(self, resp: Any, on_text: Callable[[str], None], give_up_at: float) -> StreamAssembler:
        assembler = StreamAssembler()
        try:
            # byte lines, decoded one by one: str.splitlines would also split on U+2028 inside the JSON
            for event in sse_events(line.decode("utf-8", "replace") for line in resp.iter_lines()):
                text = assembler.add(event)
                if text:
                    on_text(text)
                if time.monotonic() > give_up_at:
                    raise LLMError(f"LLM endpoint {self._url()} did not finish its answer in time")
        except requests.RequestException as e:  # cut off mid-stream: what arrived is marked incomplete
            assembler.finish_reason = None
            if not assembler.events:
                raise LLMError(
                    f"LLM endpoint {self._url()} broke off its answer: {type(e).__name__}"
                ) from None
        finally:
            resp.close()
        return assembler

    def _url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _body(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        optional = {
            "model": self.model or None,
            "temperature": self.temperature,  # 0 is a value, so compare with None below
            "max_tokens": self.max_tokens,
            "stop": stop or None,
        }
        body = {
            "messages": [message_to_dict(m) for m in messages],
            **{k: v for k, v in optional.items() if v is not None},
        }
        body.update(kwargs)
        if not body.get("tools"):
            body.pop("tools", None)
            body.pop("tool_choice", None)
        return body

    parse_response: ClassVar[Callable[[dict[str, Any]], AIMessage]] = staticmethod(parse_response)
