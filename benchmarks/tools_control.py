"""The evaluation's control for tools files (`app/eval/tools_file.py`), a part of `eval_control`'s scripted
model: for a prompt of the blind parts' tools files, or of any tools file it is given, it makes the
expected calls in one reply, then says they are done; it asks where the prompt wants a question, and
answers in words where no tool is to run. It knows the answers, which no model does."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.eval.spec import PROMPTS, TOOL_PARTS
from app.eval.tools_file import ToolPrompt, read
from benchmarks import scripted_llm

WORDS = {  # kind -> (Chinese, English) answer of a turn that calls no tool
    "ask": ("你指的是哪一个？", "Which one do you mean?"),
    "cannot": ("这个我做不到。", "I cannot do that."),
    "chat": ("你好！", "Hello!"),
    "no_write": ("好的，我不会改动任何记录。", "OK, I will not change anything."),
}


def prompts(files: tuple[Path, ...] = ()) -> dict[str, ToolPrompt]:
    """The prompts of the blind tools files and of `files`, by their text."""
    found = [p for name, file in TOOL_PARTS.items() for p in read(PROMPTS / file, name)]
    found += [p for path in files for p in read(path, path.stem)]
    return {prompt.text: prompt for prompt in found}


def replier(files: tuple[Path, ...] = ()) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    """The control's reply to a request whose prompt is one of a tools file's; None to any other."""
    by_text = prompts(files)

    def answer(request: dict[str, Any]) -> dict[str, Any] | None:
        asked = next(m["content"] for m in reversed(request["messages"]) if m["role"] == "user")
        return reply(by_text[asked], request) if asked in by_text else None

    return answer


def reply(prompt: ToolPrompt, request: dict[str, Any]) -> dict[str, Any]:
    messages = request["messages"]
    last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
    done = any(m["role"] == "tool" for m in messages[last_user:])
    chinese = prompt.lang == "zh"
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    if done or prompt.kind != "call":
        message["content"] = ("好了。", "Done.")[not chinese] if done else WORDS[prompt.kind][not chinese]
    else:
        message["tool_calls"] = [
            {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": call.tool, "arguments": json.dumps(call.args, ensure_ascii=False)},
            }
            for i, call in enumerate(prompt.calls)
        ]
    return scripted_llm.completion(message, "control", model="control")
