"""The request rules of OpenAI's /chat/completions, checked the way the API checks them: `problem(body)`
is None for a valid request, else (param, message) for its HTTP 400 answer."""

from __future__ import annotations

import re
from typing import Any

KNOWN = {
    "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "response_format", "stream",
    "stream_options", "temperature", "top_p", "n", "stop", "max_tokens", "max_completion_tokens",
    "presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "seed", "user",
    "service_tier", "store", "metadata", "modalities", "reasoning_effort", "prompt_cache_key",
}  # fmt: skip
MESSAGE_KEYS = {
    "system": {"content", "name"},
    "developer": {"content", "name"},
    "user": {"content", "name"},
    "assistant": {"content", "name", "tool_calls", "refusal"},
    "tool": {"content", "tool_call_id"},
}
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
RANGES = {"temperature": (0, 2), "top_p": (0, 1), "presence_penalty": (-2, 2), "frequency_penalty": (-2, 2)}

Problem = tuple[str, str] | None


def problem(body: Any) -> Problem:
    if not isinstance(body, dict):
        return "", "We could not parse the JSON body of your request."
    unknown = sorted(set(body) - KNOWN)
    if unknown:
        return unknown[0], f"Unrecognized request argument supplied: {unknown[0]}"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model", "you must provide a model parameter"
    checks = (_messages, _tools, _tool_choice, _response_format, _streaming, _numbers)
    return next((p for p in (check(body) for check in checks) if p), None)


def _messages(body: dict[str, Any]) -> Problem:
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages", "[] is too short - 'messages'"
    for i, message in enumerate(messages):
        found = _message(message, f"messages[{i}]")
        if found:
            return found
    return _answered_calls(messages)


def _message(message: Any, where: str) -> Problem:
    role = message.get("role") if isinstance(message, dict) else None
    if role not in MESSAGE_KEYS:
        return f"{where}.role", f"Invalid value: {role!r}. Supported values are: {', '.join(MESSAGE_KEYS)}."
    extra = sorted(set(message) - MESSAGE_KEYS[role] - {"role"})
    if extra:
        return f"{where}.{extra[0]}", f"Additional properties are not allowed ('{extra[0]}' was unexpected)"
    content = message.get("content")
    if content is None and not (role == "assistant" and message.get("tool_calls")):
        return f"{where}.content", f"Invalid value for '{where}.content': expected a string, got null."
    if content is not None and not _content_ok(content):
        return f"{where}.content", f"Invalid type for '{where}.content': expected a string or array of parts."
    if "name" in message and not isinstance(message["name"], str):
        return f"{where}.name", f"Invalid type for '{where}.name': expected a string."
    if role == "tool" and not isinstance(message.get("tool_call_id"), str):
        return f"{where}.tool_call_id", f"Missing required parameter: '{where}.tool_call_id'."
    return _call_shapes(message.get("tool_calls"), where) if "tool_calls" in message else None


def _content_ok(content: Any) -> bool:
    if isinstance(content, str):
        return True
    parts = content if isinstance(content, list) else None
    return bool(parts) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in parts
    )


def _call_shapes(calls: Any, where: str) -> Problem:
    if not isinstance(calls, list) or not calls:
        return f"{where}.tool_calls", f"Invalid '{where}.tool_calls': empty array."
    for j, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        ok = (
            isinstance(call, dict)
            and isinstance(call.get("id"), str)
            and call.get("type") == "function"
            and isinstance(fn, dict)
            and isinstance(fn.get("name"), str)
            and isinstance(fn.get("arguments"), str)
        )
        if not ok:
            return (
                f"{where}.tool_calls[{j}]",
                f"Invalid '{where}.tool_calls[{j}]': needs id, type and function.",
            )
    return None


def _answered_calls(messages: list[dict[str, Any]]) -> Problem:
    """Every assistant tool call is answered by the tool messages right after it, and only those."""
    waiting: list[str] = []
    for i, message in enumerate(messages):
        if message["role"] == "tool":
            if message["tool_call_id"] not in waiting:
                return f"messages[{i}].role", (
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
                    "message with 'tool_calls'."
                )
            waiting.remove(message["tool_call_id"])
            continue
        if waiting:
            return "messages", (
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                "'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(waiting)
            )
        waiting = [c["id"] for c in message.get("tool_calls") or []]
    if waiting:
        return "messages", f"tool_call_ids without response messages: {', '.join(waiting)}"
    return None


def _tools(body: dict[str, Any]) -> Problem:
    if "tools" not in body:
        return None
    tools = body["tools"]
    if not isinstance(tools, list) or not tools:
        return "tools", "Invalid 'tools': empty array. Expected an array with minimum length 1."
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(tool, dict) or set(tool) != {"type", "function"} or tool["type"] != "function":
            return f"tools[{i}]", f"Invalid 'tools[{i}]': expected {{'type': 'function', 'function': ...}}."
        extra = (
            sorted(set(fn) - {"name", "description", "parameters", "strict"}) if isinstance(fn, dict) else []
        )
        if not isinstance(fn, dict) or extra:
            return f"tools[{i}].function", f"Unknown parameter: 'tools[{i}].function.{(extra or ['?'])[0]}'."
        if not NAME.match(str(fn.get("name", ""))):
            return (
                f"tools[{i}].function.name",
                f"Invalid 'tools[{i}].function.name': string does not match pattern.",
            )
        if fn.get("strict"):
            found = strict_schema_problem(fn.get("parameters", {}), f"function '{fn['name']}'")
            if found:
                return f"tools[{i}].function.parameters", found
    return None


def strict_schema_problem(schema: Any, what: str, context: str = "()") -> str | None:
    """OpenAI's rule for strict schemas: every object closed (additionalProperties false), all required."""
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return (
                f"Invalid schema for {what}: In context={context}, 'additionalProperties' is required to be "
                "supplied and to be false."
            )
        missing = sorted(set(schema.get("properties", {})) - set(schema.get("required", [])))
        if missing:
            return (
                f"Invalid schema for {what}: In context={context}, 'required' is required to be supplied and "
                f"to be an array including every key in properties. Missing '{missing[0]}'."
            )
    nested = [*schema.get("properties", {}).values(), *schema.get("$defs", {}).values(), schema.get("items")]
    nested += schema.get("anyOf", [])
    return next((p for p in (strict_schema_problem(s, what, context) for s in nested) if p), None)


def _tool_choice(body: dict[str, Any]) -> Problem:
    for only_with_tools in ("tool_choice", "parallel_tool_calls"):
        if only_with_tools in body and "tools" not in body:
            return only_with_tools, (
                f"Invalid value for '{only_with_tools}': '{only_with_tools}' is only allowed when 'tools' "
                "are specified."
            )
    if "parallel_tool_calls" in body and not isinstance(body["parallel_tool_calls"], bool):
        return "parallel_tool_calls", "Invalid type for 'parallel_tool_calls': expected a boolean."
    choice = body.get("tool_choice")
    if choice is None or choice in ("none", "auto", "required"):
        return None
    names = [t["function"]["name"] for t in body.get("tools", [])]
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if isinstance(choice, dict) and choice.get("type") == "function" and set(choice) == {"type", "function"}:
        if named in names:
            return None
        return "tool_choice", f"Invalid value for 'tool_choice': function '{named}' not found in 'tools'."
    return "tool_choice", (
        f"Invalid value for 'tool_choice': {choice!r}. Supported values are: 'none', 'auto', 'required' and "
        "{'type': 'function', 'function': {'name': ...}}."
    )


def _response_format(body: dict[str, Any]) -> Problem:
    form = body.get("response_format")
    if form is None:
        return None
    kind = form.get("type") if isinstance(form, dict) else None
    if kind == "text":
        return None
    if kind == "json_object":
        said = " ".join(str(m.get("content")) for m in body["messages"]).lower()
        if "json" in said:
            return None
        return "messages", (
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type "
            "'json_object'."
        )
    spec = form.get("json_schema") if kind == "json_schema" else None
    if not isinstance(spec, dict) or not NAME.match(str(spec.get("name", ""))):
        return (
            "response_format",
            "Invalid 'response_format': expected text, json_object or json_schema with a name.",
        )
    if not isinstance(spec.get("schema", {}), dict) or not isinstance(spec.get("strict", False), bool):
        return (
            "response_format.json_schema",
            "Invalid 'response_format.json_schema': schema must be an object.",
        )
    found = spec.get("strict") and strict_schema_problem(
        spec.get("schema"), f"response_format '{spec['name']}'"
    )
    return ("response_format", found) if found else None


def _streaming(body: dict[str, Any]) -> Problem:
    if "stream" in body and not isinstance(body["stream"], bool):
        return "stream", "Invalid type for 'stream': expected a boolean."
    if "stream_options" in body and body.get("stream") is not True:
        return "stream_options", "The 'stream_options' parameter is only allowed when 'stream' is enabled."
    options = body.get("stream_options", {})
    if not isinstance(options, dict) or set(options) - {"include_usage", "include_obfuscation"}:
        return "stream_options", "Invalid 'stream_options': only include_usage is supported."
    return None


def _numbers(body: dict[str, Any]) -> Problem:
    for key, (low, high) in RANGES.items():
        value = body.get(key)
        if value is not None and (not isinstance(value, (int, float)) or not low <= value <= high):
            return key, f"Invalid '{key}': expected a number between {low} and {high}, got {value!r}."
    for key in ("max_tokens", "max_completion_tokens", "n"):
        value = body.get(key)
        if value is not None and (not isinstance(value, int) or value < 1):
            return key, f"Invalid '{key}': expected an integer >= 1, got {value!r}."
    stop = body.get("stop")
    stops = [stop] if isinstance(stop, str) else stop
    if stop is not None and (
        not isinstance(stops, list) or len(stops) > 4 or not all(isinstance(s, str) for s in stops)
    ):
        return "stop", "Invalid 'stop': expected a string or an array of at most 4 strings."
    return None
