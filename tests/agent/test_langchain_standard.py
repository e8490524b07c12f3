"""LangChain's own standard tests (langchain-tests) for CustomLLMWrapper, run against a loopback server
that checks every request as OpenAI's API does; langchain-openai's ChatOpenAI runs the same
integration tests against the same server as the control, so a failure both share is the server's."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_openai import ChatOpenAI
from langchain_tests.integration_tests import ChatModelIntegrationTests
from langchain_tests.unit_tests import ChatModelUnitTests

from agent.llm.chatopenai import ChatOpenAIBackend
from agent.llm_wrapper import CustomLLMWrapper
from tests.support.openai_like_server import OpenAILikeServer

SERVER = OpenAILikeServer()  # bound now, so the test classes know its URL; serving only during this module
MODEL = "loopback-model"


@pytest.fixture(scope="module", autouse=True)
def openai_like_server():
    with SERVER:
        yield SERVER


@pytest.fixture(autouse=True)
def every_request_valid():
    """A test may pass on an error it expects, so the server's 400s are checked here too: none allowed."""
    before = len(SERVER.rejected)
    yield
    assert SERVER.rejected[before:] == [], "a request the OpenAI API would reject"


class TestCustomLLMWrapperUnit(ChatModelUnitTests):
    @property
    def chat_model_class(self) -> type[CustomLLMWrapper]:
        return CustomLLMWrapper

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"base_url": SERVER.url, "model": MODEL}

    @property
    def supports_json_mode(self) -> bool:
        return True


class LoopbackSuite(ChatModelIntegrationTests):
    """The integration suite on the loopback server: what every model run through it here shares."""

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {"base_url": SERVER.url, "api_key": "sk-loopback", "model": MODEL}

    @property
    def supports_json_mode(self) -> bool:
        return True

    @property
    def model_override_value(self) -> str:
        return "loopback-model-override"


class TestCustomLLMWrapperIntegration(LoopbackSuite):
    @property
    def chat_model_class(self) -> type[CustomLLMWrapper]:
        return CustomLLMWrapper


class TestCustomLLMWrapperJsonSchema(TestCustomLLMWrapperIntegration):
    """The same suite with structured output by `response_format` json_schema instead of a tool call."""

    @property
    def structured_output_kwargs(self) -> dict[str, Any]:
        return {"method": "json_schema"}


class TestChatOpenAIControl(LoopbackSuite):
    @property
    def chat_model_class(self) -> type[ChatOpenAI]:
        return ChatOpenAI

    @property
    def chat_model_params(self) -> dict[str, Any]:
        return {**super().chat_model_params, "stream_usage": True}


class TestChatOpenAIBackendIntegration(TestChatOpenAIControl):
    """Our ChatOpenAI subclass (errors as LLMError, broken and empty streams handled) on the same suite."""

    @property
    def chat_model_class(self) -> type[ChatOpenAI]:
        return ChatOpenAIBackend
