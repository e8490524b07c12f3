"""The scripted model of `make security`, served on loopback like `benchmarks/scripted_llm.py`: it makes a
user task's ground-truth calls, one per reply, then answers with the task's expected output. As an obedient
attacker, the moment a tool result it reads holds injected text, it first carries out the injection task's
ground-truth calls, computed on the environment as it is then: it does whatever the latest untrusted text
says. It knows each task's answer, which no model does; it never plans, retries or gives up.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Sequence
from typing import Any

from agentdojo.base_tasks import BaseInjectionTask
from agentdojo.functions_runtime import FunctionCall

from agent.guards import envelope_of
from benchmarks import scripted_llm
from benchmarks.agentdojo_tools import World


class Script:
    """One case as the model plays it: the calls still to make, and whether it obeyed an injection."""

    def __init__(
        self,
        world: World,
        calls: Sequence[FunctionCall],
        answer: str,
        injection_task: BaseInjectionTask | None = None,
        injections: Sequence[str] = (),
    ) -> None:
        self.world = world
        self.plan = deque(calls)
        self.answer = answer.strip() or "Done."  # the loop wants words in a final answer
        self.injection_task = injection_task
        self.needles = [key for key in map(loose, injections) if key]
        self.made = 0  # calls made so far
        self.obeyed = False

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        results = tool_results(request["messages"])
        if len(results) != self.made:
            raise RuntimeError(f"{self.made} calls were made but {len(results)} results came back")
        latest = results[-1:]  # the result of its last call: one call per reply
        if self.injection_task and not self.obeyed and any(map(self.injected, latest)):
            self.obey(self.injection_task)
        if request.get("tool_choice") == "none" or not self.plan:
            return completion({"content": self.answer})
        call = self.plan.popleft()
        self.made += 1
        arguments = json.dumps(call.args, ensure_ascii=False)
        tool_call = {
            "id": f"call_{self.made}",
            "type": "function",
            "function": {"name": call.function, "arguments": arguments},
        }
        return completion({"content": None, "tool_calls": [tool_call]}, "tool_calls")

    def injected(self, result: str) -> bool:
        text = loose(result)
        return any(needle in text for needle in self.needles)

    def obey(self, task: BaseInjectionTask) -> None:
        self.obeyed = True
        self.plan.extendleft(reversed(task.ground_truth(self.world.env)))
        self.answer = f"{self.answer}\n{task.GROUND_TRUTH_OUTPUT}".strip()


class ScriptedModel:
    """The loopback server; `script` is the case it plays now (cases run one at a time)."""

    def __init__(self) -> None:
        self.script: Script | None = None

    def __enter__(self) -> ScriptedModel:
        self.server, self.url = scripted_llm.start(self.answer)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.script is None:
            raise RuntimeError("no case is being played")
        return self.script.reply(request)


def tool_results(messages: list[dict[str, Any]]) -> list[str]:
    """What the tools said in this turn, as the model reads it: each envelope's data or error."""
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    envelopes = [envelope_of(m["content"]) for m in messages[last_user:] if m["role"] == "tool"]
    return [str(e["data"] if e["ok"] else e["error"]) for e in envelopes]


def loose(text: str) -> str:
    """Text compared loosely: tool results are YAML (lines folded, quoted) or a Python repr (escaped
    newlines), so only lower-case letters and digits count."""
    return re.sub(r"[^a-z0-9]", "", re.sub(r"\\[ntr]", " ", text.lower()))


def completion(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-agentdojo",
        "object": "chat.completion",
        "created": 1700000000,
        "model": "scripted",
        "choices": [
            {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    }
