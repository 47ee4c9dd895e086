"""Model settings and errors: the output cap local servers honour, and one-line errors for every failure."""

from __future__ import annotations

import httpx
import openai
import pytest

from graph.models import ModelError, _model_error, make_chat_openai
from graph.settings import get_settings
from memory.errors import ConfigurationError


def test_max_tokens_goes_in_the_body_for_a_base_url_and_as_max_completion_tokens_for_openai() -> None:
    s = get_settings(max_output_tokens=77)
    local = make_chat_openai(s, "m", "http://127.0.0.1:1/v1", None)
    assert local.extra_body == {"max_tokens": 77} and local.max_tokens is None
    assert local.request_timeout == 60.0 and local.max_retries == 1
    cloud = make_chat_openai(get_settings(max_output_tokens=77, chat_api_key="sk-test"), "gpt-4o-mini", None,
                             get_settings(chat_api_key="sk-test").chat_api_key)
    assert cloud.max_tokens == 77 and not cloud.extra_body


def test_no_api_key_for_openai_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="PALACE_CHAT_API_KEY"):
        make_chat_openai(get_settings(), "gpt-4o-mini", None, None)


def _status(cls: type[openai.APIStatusError], code: int) -> openai.APIStatusError:
    request = httpx.Request("POST", "http://x/v1/chat/completions")
    return cls("refused", response=httpx.Response(code, request=request), body=None)


@pytest.mark.parametrize(("exc", "words"), [
    (_status(openai.AuthenticationError, 401), "refused the API key"),
    (_status(openai.NotFoundError, 404), "does not know this model"),
    (_status(openai.InternalServerError, 500), "HTTP 500"),
    (openai.APITimeoutError(request=httpx.Request("POST", "http://x")), "no answer before the timeout"),
    (openai.APIConnectionError(request=httpx.Request("POST", "http://x")), "cannot connect"),
])
def test_model_errors_are_one_line(exc: Exception, words: str) -> None:
    model = make_chat_openai(get_settings(), "local", "http://127.0.0.1:1/v1", None)
    err = _model_error(model, exc, "chat")
    assert isinstance(err, ModelError) and err.exit_code == 3
    assert words in str(err) and "\n" not in str(err) and "'local'" in str(err)


def test_messages_and_tools_reach_the_server_exactly_as_openais_transform_would_send_them() -> None:
    """make_chat_openai's client skips openai's request transform for the messages and tools (1 ms a message on
    the answer's path): the bodies must be the stock client's, byte for byte, for every kind of message."""
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    from bench.model_server import FixedLatencyModel

    @tool
    def add_step(task_id: str, step: str, done: bool = False) -> str:
        """Add a step to a task."""
        return "ok"

    messages = [SystemMessage("You are helpful. 记住：用户住在杭州。"), HumanMessage("Hi! I live in Hangzhou."),
                AIMessage("", tool_calls=[{"name": "add_step", "args": {"task_id": "ab12", "step": "x"},
                                           "id": "call_1"}]),
                ToolMessage("ok", tool_call_id="call_1"), AIMessage("Noted."), HumanMessage("我现在住在哪里？")]
    with FixedLatencyModel(0) as server:
        ours = make_chat_openai(get_settings(), "m", server.url, None)
        stock = ChatOpenAI(model="m", base_url=server.url, api_key="unused", timeout=ours.request_timeout,
                           max_retries=ours.max_retries, temperature=ours.temperature, stream_usage=True,
                           extra_body=ours.extra_body)
        assert type(ours.client).__name__ == "PlainCompletions" and type(stock.client).__name__ == "Completions"
        for model in (ours, stock):
            model.invoke(messages)
            list(model.stream(messages))
            model.bind_tools([add_step]).invoke(messages)
        assert len(server.bodies) == 6
        for mine, theirs in zip(server.bodies[:3], server.bodies[3:], strict=True):
            assert mine == theirs
        assert server.bodies[2]["tools"][0]["function"]["name"] == "add_step"
        assert server.bodies[0]["messages"][2]["tool_calls"][0]["id"] == "call_1"


async def test_the_async_client_sends_the_same_body() -> None:
    from langchain_core.messages import HumanMessage

    from bench.model_server import FixedLatencyModel

    with FixedLatencyModel(0) as server:
        model = make_chat_openai(get_settings(), "m", server.url, None)
        assert type(model.async_client).__name__ == "AsyncPlainCompletions"
        await model.ainvoke([HumanMessage("hello")])
        model.invoke([HumanMessage("hello")])
        assert server.bodies[0] == server.bodies[1] and server.bodies[0]["messages"] == [
            {"role": "user", "content": "hello"}]
