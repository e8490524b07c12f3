"""Structured output for the wrapper (`with_structured_output`): answers parsed into a schema, asked for
by a forced tool call, by JSON mode, or by a JSON Schema `response_format`, as ChatOpenAI asks."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.output_parsers.openai_tools import JsonOutputKeyToolsParser, PydanticToolsParser
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_core.utils.pydantic import is_basemodel_subclass

from agent.llm.request import json_schema_format

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

METHODS = ("function_calling", "json_mode", "json_schema")


def structured(
    llm: BaseChatModel, schema: Any, method: str, include_raw: bool, strict: bool | None, **kwargs: Any
) -> Runnable[Any, Any]:
    """`llm` bound to answer in `schema`, piped into the parser of that answer."""
    if method not in METHODS:
        raise ValueError(f"method {method!r} is none of {', '.join(METHODS)}")
    if schema is None and method != "json_mode":
        raise ValueError(f"with_structured_output(method={method!r}) needs a schema")
    if strict is not None and method == "json_mode":
        raise ValueError("strict does not apply to method='json_mode'")
    kwargs["ls_structured_output_format"] = {"kwargs": {"method": method, "strict": strict}, "schema": schema}
    is_pydantic = isinstance(schema, type) and is_basemodel_subclass(schema)
    parser: Runnable
    if method == "function_calling":
        name = convert_to_openai_tool(schema)["function"]["name"]
        bound = llm.bind_tools([schema], tool_choice=name, strict=strict, **kwargs)
        parser = (
            PydanticToolsParser(tools=[schema], first_tool_only=True)
            if is_pydantic
            else JsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
        )
    else:
        json_object = {"type": "json_object"}
        bound = llm.bind(
            response_format=json_schema_format(schema, strict) if method == "json_schema" else json_object,
            **kwargs,
        )
        parser = PydanticOutputParser(pydantic_object=schema) if is_pydantic else JsonOutputParser()
    return with_raw(bound, parser) if include_raw else bound | parser


def with_raw(llm: Runnable, parser: Runnable) -> Runnable:
    """LangChain's include_raw=True shape: {"raw": message, "parsed": ..., "parsing_error": ...}."""
    parsed = RunnablePassthrough.assign(parsed=itemgetter("raw") | parser, parsing_error=lambda _: None)
    unparsed = RunnablePassthrough.assign(parsed=lambda _: None)
    return RunnableMap(raw=llm) | parsed.with_fallbacks([unparsed], exception_key="parsing_error")
