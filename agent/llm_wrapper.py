"""CustomLLMWrapper: a LangChain chat model that speaks raw HTTP to any OpenAI-compatible endpoint.

Mirrors `agent/llm_wrapper.go` of the tutorial: build the request by hand, POST it, and turn the raw
`tool_calls` of the answer into tool calls (`parse_response`). Every provider quirk is normalized
here, in one place, so the agent loop only ever sees clean LangChain messages.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Sequence
from typing import Any

import requests
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr, ValidationError

from agent.config import is_loopback
from agent.retry import RETRY_STATUSES, retry_delay
from agent.types import ApiFunctionCall, ApiResponse, ApiToolCall, LLMError

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}
_TAGGED_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


# --- LangChain message -> the JSON the endpoint reads ------------------------------------------


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"role": _ROLES.get(message.type, message.type), "content": _text(message)}
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


def _text(message: BaseMessage) -> str:
    if isinstance(message.content, str):
        return message.content
    return "".join(b if isinstance(b, str) else str(b.get("text", "")) for b in message.content)


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
        content, raw_calls = _tagged_calls(content)
    calls, invalid = _split_calls(raw_calls, truncated=choice.finish_reason == "length")
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


def _split_calls(raw_calls: list[ApiToolCall], truncated: bool) -> tuple[list[Any], list[Any]]:
    """Good calls and unusable ones; every call gets a unique id, generated once, here, when missing."""
    calls, invalid, seen = [], [], set()
    for raw in raw_calls:
        call_id = str(raw.id) if raw.id and str(raw.id) not in seen else new_call_id()
        seen.add(call_id)
        name, arguments = _as_name(raw.function.name), raw.function.arguments
        args, error = _parse_arguments(arguments)
        if error and truncated:
            error = "the reply was cut off (finish_reason=length) inside the arguments; the call was not run"
        if error:
            raw_text = arguments if isinstance(arguments, str) else json.dumps(arguments)
            invalid.append(invalid_tool_call(name=name, args=raw_text, id=call_id, error=error))
        else:
            calls.append(tool_call(name=name, args=args, id=call_id))
    return calls, invalid


def new_call_id() -> str:
    return f"call_{uuid.uuid4().hex[:24]}"


def _as_name(name: Any) -> str:
    return name if isinstance(name, str) else json.dumps(name) if name is not None else ""


def _parse_arguments(arguments: Any) -> tuple[dict[str, Any], str]:
    if arguments is None or arguments == "":
        return {}, ""
    if isinstance(arguments, dict):
        return arguments, ""
    try:
        parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    except json.JSONDecodeError as e:
        return {}, f"arguments are not valid JSON: {e}"
    if not isinstance(parsed, dict):
        return {}, f"arguments must be a JSON object, got {type(parsed).__name__}"
    return parsed, ""


def _tagged_calls(content: str) -> tuple[str, list[ApiToolCall]]:
    """Qwen/Hermes templates may write `<tool_call>{"name": ..., "arguments": ...}</tool_call>` as text."""
    calls = []
    for block in _TAGGED_CALL.findall(content):
        try:
            data = json.loads(block)
        except json.JSONDecodeError:
            data = {"name": "", "arguments": block}
        if not isinstance(data, dict):
            data = {"name": "", "arguments": block}
        function = ApiFunctionCall(name=data.get("name"), arguments=data.get("arguments"))
        calls.append(ApiToolCall(function=function))
    return _TAGGED_CALL.sub("", content).strip(), calls


class CustomLLMWrapper(BaseChatModel):
    base_url: str
    api_key: str | None = None
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None
    timeout: float = 60.0
    max_retries: int = 3
    _session: requests.Session = PrivateAttr(default_factory=requests.Session)

    def model_post_init(self, context: Any) -> None:
        self._session.trust_env = not is_loopback(self.base_url)  # no proxy lookups for a local server

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
        timeout = min(kwargs.pop("timeout", None) or self.timeout, self.timeout)
        body: dict[str, Any] = {"messages": [message_to_dict(m) for m in messages], **kwargs}
        if self.model:
            body["model"] = self.model
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if stop:
            body["stop"] = stop
        if not body.get("tools"):
            body.pop("tools", None)
            body.pop("tool_choice", None)
        return ChatResult(generations=[ChatGeneration(message=parse_response(self._post(body, timeout)))])

    def _post(self, body: dict[str, Any], timeout: float) -> dict[str, Any]:
        """POST to /chat/completions; retry 429/503 within `timeout`; raise LLMError with one clear line."""
        url = self.base_url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        give_up_at = time.monotonic() + timeout
        for attempt in range(self.max_retries + 1):
            resp = self._send(url, body, headers, give_up_at)
            if resp.status_code not in RETRY_STATUSES or attempt == self.max_retries:
                break
            wait = retry_delay(attempt, resp.headers)
            if time.monotonic() + wait >= give_up_at:
                break
            time.sleep(wait)
        if resp.status_code >= 400:
            raise LLMError(f"LLM endpoint {url} answered HTTP {resp.status_code}: {resp.text[:200]}")
        try:
            data = resp.json()
        except ValueError:
            raise LLMError(
                f"LLM endpoint {url} answered something that is not JSON: {resp.text[:200]}"
            ) from None
        if not isinstance(data, dict):
            raise LLMError(f"LLM endpoint {url} answered JSON that is not a JSON object: {resp.text[:200]}")
        return data

    def _send(self, url: str, body: dict[str, Any], headers: dict[str, str], give_up_at: float) -> Any:
        left = max(0.1, give_up_at - time.monotonic())
        try:
            return self._session.post(url, json=body, headers=headers, timeout=(min(5.0, left), left))
        except requests.Timeout:
            raise LLMError(f"LLM endpoint {url} did not answer within {left:.3g}s") from None
        except requests.ConnectionError as e:
            raise LLMError(f"cannot reach LLM endpoint {url}: {type(e).__name__}") from None

    parse_response = staticmethod(parse_response)
