"""DemoChatModel: the embedded demo model as a LangChain chat model, over the host's plan for the turn.

The host's own answers come first (`answers.py`): small talk, who it is, what the tools can do, and the
answer after the tools ran are stated whole, and the local model is not asked. A tool turn's reply is
the plan's calls: their values are the person's own words (`routing.py`), so
nothing is left for the 135M model to decide, and asking it would only add a chance to go wrong. Any
other turn's reply in English is the local model's own words, cut after the last whole sentence, repeated
sentences dropped, and every sentence that states a number or a code the person did not write taken
out: the demo's numbers and facts come from tools; a reply that says the person's message again or a
clause of its own over and over is dropped whole; a reply in another language than the person's is dropped
whole, and so is one that makes up what nobody said (an apology, a loss, what it is "as an AI").
The 135M model's Chinese is no language, so in Chinese it is not asked. When none of its words stand,
the host says it cannot chat, and what it can do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.grounding import said_by_person
from agent.llm.tool_calls import split_calls
from agent.memory import this_turn, typed_by_person
from agent.types import ApiFunctionCall, ApiToolCall
from app.models.choice import ASKS
from app.models.embedded.reading import conversation_language, language
from app.models.embedded.routing import Plan, Router

_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)|[。！？]")
_CJK_END = re.compile(r"[。！？]$")
_CJK_START = re.compile(r"[\u3400-\u9fff]")
_CLAUSE = re.compile(r"[,.!?;:，。！？；：、\n]+")
_STUTTER = re.compile(r"(\w)\1{3}")  # a letter four times over
_FACT = re.compile(r"[A-Za-z0-9]*\d[A-Za-z0-9]*")  # a number, or a code: what only a tool may state
# what a 135M model makes up about the person or itself ("I'm sorry for your loss", "as an AI"): never shown
_INVENTED = re.compile(
    r"\b(sorry|loss|apologi\w*|condolence\w*|as an? (?:ai|digital|chat\w*|virtual)|designed to|not equipped"
    r"|glad you found)\b|抱歉|对不起|遗憾|你是一个|作为(?:一个)?(?:AI|人工智能)",
    re.IGNORECASE,
)


class DemoChatModel(BaseChatModel):
    inner: BaseChatModel  # the local model, on llama.cpp's server
    router: Router
    # the turn so far, and the person's language -> the host's answer, or None
    answerer: Callable[[list[BaseMessage], str], str | None]
    # (language, the person's message) -> what the host says when none of the model's words stand
    fallback: Callable[[str, str], str]

    @property
    def _llm_type(self) -> str:
        return "embedded-demo"

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], tool_choice=tool_choice, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        offered = kwargs.pop("tools", None) or []
        words_only = kwargs.pop("tool_choice", None) == "none"
        turn = this_turn(messages)
        lang = conversation_language(typed_by_person(messages))  # "y", "CPH2223": the language before
        plan = self.router.plan_for(turn, lang)
        if (stated := self.answerer(turn, lang)) is not None:
            asks = plan.kind in ("missing", "which") and not any(isinstance(m, ToolMessage) for m in turn)
            answer = AIMessage(content=stated, additional_kwargs={ASKS: True} if asks else {})
            return ChatResult(generations=[ChatGeneration(message=answer)])
        if plan.kind == "tool" and offered and not words_only:
            return ChatResult(generations=[ChatGeneration(message=planned_calls(plan))])
        typed = typed_by_person(turn)
        request = typed[0] if typed else ""
        if plan.lang != "en":  # the 135M model's Chinese is no language: it is not asked
            instead = AIMessage(content=self.fallback(plan.lang, request))
            return ChatResult(generations=[ChatGeneration(message=instead)])
        reply = self.inner.invoke(messages, stop=stop, **kwargs)
        kept = kept_true(reply.text, typed)
        stands = kept and language(kept) == plan.lang and not (_INVENTED.search(kept) or parrots(kept, typed))
        said = kept if stands else self.fallback(plan.lang, request)
        message = AIMessage(content=said, usage_metadata=getattr(reply, "usage_metadata", None))
        return ChatResult(generations=[ChatGeneration(message=message)])


def planned_calls(plan: Plan) -> AIMessage:
    """The plan's calls as the model's reply, through the normalization every backend's calls get."""
    raw = [
        ApiToolCall(function=ApiFunctionCall(name=each.tool, arguments=args))
        for each in (plan, *plan.also)
        for args in each.calls
    ]
    calls, invalid = split_calls(raw, cut_off=False)
    return AIMessage(content="", tool_calls=calls, invalid_tool_calls=invalid)


def parrots(text: str, typed: tuple[str, ...]) -> bool:
    """Does the reply say again the person's message whole, a clause of its own ("you can check the stock,
    you can check the stock, you can …") or a letter over and over?"""
    lowered = text.casefold()
    said = [t.strip().casefold() for t in typed if len(t.strip()) >= 8]
    clauses = [c.strip() for c in _CLAUSE.split(lowered) if len(c.strip()) >= 8]
    return any(t in lowered for t in said) or len(set(clauses)) < len(clauses) or bool(_STUTTER.search(text))


def kept_true(text: str, typed: tuple[str, ...]) -> str:
    """The whole sentences of `text`, each once, without those stating a number or code not in `typed`."""
    ends = [m.end() for m in _SENTENCE_END.finditer(text)]
    cut = text[: ends[-1]] if ends else text
    parts = re.split(r"(?<=[。！？])\s*|(?<=[.!?])(?!\d)\s*", cut)
    sentences = [s.strip() for s in parts if re.search(r"[A-Za-z\u3400-\u9fff]", s)]
    kept = [
        s for s in dict.fromkeys(sentences) if all(said_by_person(fact, typed) for fact in _FACT.findall(s))
    ]
    joined = ""
    for sentence in kept:  # Chinese sentences follow each other directly; others after a space
        gap = "" if not joined or (_CJK_END.search(joined) and _CJK_START.match(sentence)) else " "
        joined += gap + sentence
    return joined
