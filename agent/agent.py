"""ChatAgent: the tool loop — ask the model, run the tools it asks for, repeat until it answers.

Mirrors `agent/agent.go` of the tutorial (`sendMessageWithTools`, `registerTool`), with the
engineering article's correction: the assistant message keeps its `tool_calls`, and each result
goes back as its own `role: "tool"` message carrying the same `tool_call_id` (not as a user message).
"""

from __future__ import annotations

import getpass
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from agent.memory import MemoryManager
from agent.tools import ToolRegistry
from agent.types import AgentError, MaxRoundsError, ToolContext

SYSTEM_PROMPT = """You are a helpful AI assistant. Be concise and friendly.

You have access to tools that can help users. Use a tool when the user asks for something a tool \
does; answer directly when no tool is needed. After a tool returns, tell the user the result in \
one or two sentences. Every tool result is JSON: {"ok": true, "data": ...} on success, or \
{"ok": false, "error": ..., "retryable": ...}; when retryable is true, fix the arguments as the \
error says and try again, otherwise explain the problem to the user."""

ToolObserver = Callable[[dict[str, Any], str], None]


class ChatAgent:
    def __init__(
        self,
        llm: BaseChatModel,
        registry: ToolRegistry,
        *,
        user_id: str | None = None,
        permissions: frozenset[str] = frozenset(),
        system_prompt: str = SYSTEM_PROMPT,
        max_rounds: int = 10,
        memory: MemoryManager | None = None,
        on_tool_result: ToolObserver | None = None,
    ) -> None:
        self.llm = llm
        self.registry = registry
        self.user_id = user_id or getpass.getuser()
        self.permissions = permissions
        self.max_rounds = max_rounds
        self.memory = memory or MemoryManager()
        self.on_tool_result = on_tool_result
        self.memory.add(SystemMessage(system_prompt))

    def send_message(self, text: str) -> str:
        """Run one user turn to its final answer."""
        self.memory.add(HumanMessage(text))
        ctx = ToolContext(user_id=self.user_id, permissions=self.permissions, run_id=uuid.uuid4().hex[:12])
        for _ in range(self.max_rounds):
            reply = self._ask_model()
            self.memory.add(reply)
            calls = [*reply.tool_calls, *reply.invalid_tool_calls]
            if not calls:
                return _final_text(reply)
            for call in calls:
                self._run_tool(ctx, call)
        raise MaxRoundsError(f"the model was still calling tools after {self.max_rounds} rounds; stopped")

    def _ask_model(self) -> AIMessage:
        tools = self.registry.langchain_tools()
        llm = self.llm.bind_tools(tools) if tools else self.llm
        reply = llm.invoke(self.memory.messages())
        assert isinstance(reply, AIMessage)
        return reply

    def _run_tool(self, ctx: ToolContext, call: Any) -> None:
        result = self.registry.execute_tool_call(ctx, call)
        self.memory.add(ToolMessage(content=result, tool_call_id=call["id"], name=call["name"] or ""))
        if self.on_tool_result:
            self.on_tool_result(call, result)


def _final_text(reply: AIMessage) -> str:
    text = reply.content if isinstance(reply.content, str) else reply.text
    if not text.strip():
        raise AgentError("the model answered with neither text nor tool calls")
    return text
