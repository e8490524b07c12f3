"""GrammarChatModel: a tiny local model's every reply constrained by grammar to something usable.

When a tool can be called, the reply must be either that call, `{"tool": name, "arguments": {...}}`,
with arguments valid against the tool's schema and every grounded value one of the spans of the user's
latest message, or plain words (llama.cpp decodes under an llguidance grammar built from the JSON
schema). A tool whose required grounded values are not in the user's words is not offered. The
reply is read back into an AIMessage through the same normalization as every backend's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.llm.tool_calls import split_calls
from agent.tools import ToolRegistry
from agent.types import ApiFunctionCall, ApiToolCall

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|[。！？]")
MAX_SPAN_WORDS = 4


def spans(text: str) -> list[str]:
    """Runs of 1 to 4 consecutive words of `text` (letters, digits and . _ + -), in order, once each."""
    words = list(_WORD.finditer(text))
    found: dict[str, None] = {}
    for i in range(len(words)):
        for j in range(i, min(i + MAX_SPAN_WORDS, len(words))):
            if j > i and text[words[j - 1].end() : words[j].start()] != " ":
                break  # a span never crosses anything but a single space
            found[text[words[i].start() : words[j].end()]] = None
    return list(found)


def fits(value: str, spec: dict[str, Any]) -> bool:
    pattern, most = spec.get("pattern"), spec.get("maxLength")
    return (most is None or len(value) <= most) and (pattern is None or re.search(pattern, value) is not None)


def arguments_schema(
    parameters: dict[str, Any], grounded: tuple[str, ...], said: str
) -> dict[str, Any] | None:
    """The tool's arguments schema with grounded values drawn from `said`; None if it cannot be called."""
    properties, required = dict(parameters.get("properties", {})), list(parameters.get("required", []))
    candidates = spans(said)
    for name in (n for n in grounded if n in properties):
        if name not in required:
            properties.pop(name)  # an optional value the user may have given is left out, not guessed
            continue
        values = [v for v in candidates if fits(v, properties[name])]
        if not values:
            return None
        properties[name] = {"enum": values}
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def callable_tools(
    tools: Sequence[dict[str, Any]], registry: ToolRegistry, said: str
) -> list[tuple[str, dict]]:
    """(name, arguments schema) of each tool that can be called from `said`, in the order given."""
    found = []
    for definition in tools:
        function = definition["function"]
        tool = registry.get(function["name"])
        arguments = arguments_schema(function.get("parameters", {}), tool.grounded if tool else (), said)
        if arguments is not None:
            found.append((function["name"], arguments))
    return found


def call_schema(options: list[tuple[str, dict]]) -> dict[str, Any]:
    """The JSON schema of one call of one of `options`."""
    calls = [
        {
            "type": "object",
            "properties": {"tool": {"const": name}, "arguments": arguments},
            "required": ["tool", "arguments"],
            "additionalProperties": False,
        }
        for name, arguments in options
    ]
    return calls[0] if len(calls) == 1 else {"oneOf": calls}


def grammar(schema: dict[str, Any]) -> str:
    """An llguidance grammar: a JSON call matching `schema`, or words that do not start like JSON."""
    words = r"/[^{\s][^\x00]*/"
    return f"%llguidance {{}}\nstart: call | WORDS\ncall: %json {json.dumps(schema)}\nWORDS: {words}\n"


def read_decision(text: str) -> AIMessage:
    """The reply as an AIMessage: a tool call, or the words, cut after their last full sentence."""
    if text.lstrip().startswith("{"):
        try:
            decision = json.loads(text)
        except json.JSONDecodeError:
            decision = None
        if isinstance(decision, dict) and "tool" in decision:
            function = ApiFunctionCall(name=decision["tool"], arguments=decision.get("arguments"))
            calls, invalid = split_calls([ApiToolCall(function=function)], cut_off=False)
            return AIMessage(content="", tool_calls=calls, invalid_tool_calls=invalid)
    return AIMessage(content=whole_sentences(text))


def whole_sentences(text: str) -> str:
    """`text` up to its last sentence end (a reply cut by the token limit stops mid-sentence)."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    return text[: ends[-1]].strip() if ends else text.strip()


def latest_user_text(messages: Sequence[BaseMessage]) -> str:
    return next((m.text for m in reversed(messages) if isinstance(m, HumanMessage)), "")


class GrammarChatModel(BaseChatModel):
    """Wraps the chat model of a local llama.cpp server running this project's chat template."""

    inner: BaseChatModel
    registry: ToolRegistry  # what it knows of each tool: grounded parameters, worked examples
    max_tools: int = (
        1  # offered per reply: the first ones (in the order given) callable from the user's words
    )

    @property
    def _llm_type(self) -> str:
        return "grammar-constrained-local"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        tools = kwargs.pop("tools", None) or []
        if kwargs.pop("tool_choice", None) == "none":
            tools = []
        options = callable_tools(tools, self.registry, latest_user_text(messages))[: self.max_tools]
        if options:
            kwargs |= {
                "grammar": grammar(call_schema(options)),
                "chat_template_kwargs": self._shown(tools, options),
            }
        reply = self.inner.invoke(messages, stop=stop, **kwargs)
        message = read_decision(reply.text)
        message.usage_metadata = getattr(reply, "usage_metadata", None)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _shown(self, tools: list[dict[str, Any]], options: list[tuple[str, dict]]) -> dict[str, Any]:
        """What the chat template shows: the offered tools, and their worked examples as earlier turns."""
        names = [name for name, _ in options]
        examples = [
            {"request": request, "call": {"tool": tool.name, "arguments": arguments}}
            for tool in filter(None, map(self.registry.get, names))
            for request, arguments in tool.examples
        ]
        return {"tools": [t for t in tools if t["function"]["name"] in names], "examples": examples}
