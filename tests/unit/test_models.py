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
