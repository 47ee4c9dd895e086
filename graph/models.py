"""Chat and verifier models: ``ChatOpenAI`` against OpenAI or any OpenAI-compatible server, from the settings.

Also the two ways nodes call a model, so every call gets the same error handling: :func:`invoke` (a reply) and
:func:`invoke_structured` (a pydantic object, or ``None`` when the reply cannot be parsed).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.tools import BaseTool
from langchain_openai import ChatOpenAI
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, SecretStr

from graph.local_servers import local_server
from graph.settings import Settings
from memory.errors import ConfigurationError, ServiceUnavailableError
from memory.local_model import LOCAL_ALIASES
from memory.tokens import count_chat, count_tokens

T = TypeVar("T", bound=BaseModel)


class ModelProvider(Protocol):
    """Where nodes get their models; tests pass a scripted fake (the only fake in the project). ``chat`` answers;
    ``memory`` does the memory work (extraction, summaries); ``verifier`` checks facts before they are stored."""

    def chat(self, name: str | None = None) -> BaseChatModel: ...

    def memory(self, name: str | None = None) -> BaseChatModel: ...

    def verifier(self, name: str | None = None) -> BaseChatModel: ...


class ModelError(ServiceUnavailableError):
    """A model server failed the request (unreachable, refused the key, timed out, unknown model)."""


@dataclass(frozen=True)
class _Endpoint:
    model: str
    base_url: str | None
    api_key: SecretStr | None
    local: bool = False


class OpenAIModels:
    """``ChatOpenAI`` clients from the settings, one per model name, created on first use."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: dict[_Endpoint, ChatOpenAI] = {}
        self._lock = threading.Lock()

    def chat(self, name: str | None = None) -> BaseChatModel:
        s = self.settings
        model = name or s.chat_model
        if not model:
            return self._client(self.local())
        return self._client(_Endpoint(model, s.chat_base_url, s.chat_api_key))

    def local_starting(self) -> bool:
        """Will the first turn start the local model server (nothing configured, none running)? Seconds to a
        minute on 2 cores: a door says so, and may start it beside the stores (:meth:`local`)."""
        s = self.settings
        if s.chat_model:  # the verifier defaults to the chat model: nothing local
            return False
        server = local_server(s)
        # no model to start: the turn's first model call says why, in one line, with nothing announced before it
        return server.can_start() and server.running_url() is None

    def local(self, *, memory: bool = False) -> _Endpoint:
        """The zero-config model: the local llama-server (started, or reused across processes); ``memory``: the
        one for the memory work (:func:`graph.local_servers.local_server`)."""
        server = local_server(self.settings, memory=memory)
        return _Endpoint(server.alias, server.ensure(), None, local=True)

    def memory(self, name: str | None = None) -> BaseChatModel:
        """The model for the memory work: ``name`` or the chat model when one is set, else the local memory model
        (``PALACE_LOCAL_MEMORY_MODEL``, by default the answer's)."""
        s = self.settings
        model = name or s.chat_model
        if not model:
            return self._client(self.local(memory=True))
        return self._client(_Endpoint(model, s.chat_base_url, s.chat_api_key))

    def verifier(self, name: str | None = None) -> BaseChatModel:
        s = self.settings
        model = name or s.verifier_model
        if not model:
            return self.memory()
        return self._client(_Endpoint(model, s.verifier_base_url or s.chat_base_url,
                                      s.verifier_api_key or s.chat_api_key))

    def _client(self, ep: _Endpoint) -> ChatOpenAI:
        with self._lock:
            if ep not in self._cache:
                self._cache[ep] = make_chat_openai(self.settings, ep.model, ep.base_url, ep.api_key,
                                                   max_tokens=self.settings.local_model_max_tokens if ep.local
                                                   else None, local=ep.local)
            return self._cache[ep]


def make_chat_openai(settings: Settings, model: str, base_url: str | None, api_key: SecretStr | None, *,
                     max_tokens: int | None = None, local: bool = False) -> ChatOpenAI:
    """A ``ChatOpenAI`` with a timeout and an output cap local servers honour. The bundled ``local`` model also
    gets decoding that stops loops: a repetition penalty, llama.cpp's DRY sampler and a low temperature."""
    cap = max_tokens or settings.max_output_tokens
    kwargs: dict[str, Any] = {
        "model": model, "base_url": base_url,
        "timeout": settings.local_model_timeout_s if local else settings.model_timeout_s,
        "max_retries": settings.model_max_retries, "temperature": settings.temperature, "stream_usage": True,
    }
    if api_key is not None:
        kwargs["api_key"] = api_key
    elif base_url:
        kwargs["api_key"] = "unused"  # local servers ignore the key, but the client insists on one
    param = settings.max_tokens_param
    if param == "auto":
        param = "max_tokens" if base_url else "max_completion_tokens"
    if param == "max_tokens":
        # ChatOpenAI(max_tokens=...) sends max_completion_tokens, which some local servers ignore (DESIGN.md).
        kwargs["extra_body"] = {"max_tokens": cap}
    else:
        kwargs["max_tokens"] = cap
    if local:
        kwargs["temperature"] = min(settings.temperature, 0.2)
        kwargs["extra_body"] = {**kwargs.get("extra_body", {}), "repeat_penalty": settings.local_model_repeat_penalty,
                                "dry_multiplier": 0.8, "top_k": 40}
    try:
        chat = ChatOpenAI(**kwargs)
    except openai.OpenAIError as exc:  # no key anywhere
        raise ConfigurationError(f"chat model {model!r}: {exc}; set PALACE_CHAT_API_KEY or OPENAI_API_KEY") from exc
    if chat.root_client is not None:
        chat.client = PlainCompletions(chat.root_client)
    if chat.root_async_client is not None:
        chat.async_client = AsyncPlainCompletions(chat.root_async_client)
    return chat


def _untransformed(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the messages and tools moved into ``extra_body``, which openai merges into the request body
    as given (public API), over the empty list left in their place."""
    body = {key: params.pop(key) for key in _AS_GIVEN if key in params}
    params["extra_body"] = {**body, **(params.get("extra_body") or {})}
    params["messages"] = []
    return params


# openai's create() runs the request through maybe_transform, which checks every message against every member
# of the message-param union and calls typing.get_type_hints for each (not cached): 0.3-1 ms per message on
# these machines, 10-35 ms for a 40-message window, on the path to the answer's first token. The messages and
# tools langchain builds are already in wire form and the transform renames nothing in them (asserted for this
# openai version in tests/unit/test_models.py), so they are sent as given.
_AS_GIVEN = ("messages", "tools")


class PlainCompletions(openai.resources.chat.Completions):
    """openai's chat completions with the messages and tools sent as given (see ``_AS_GIVEN``)."""

    def create(self, **params: Any) -> Any:
        return super().create(**_untransformed(params))


class AsyncPlainCompletions(openai.resources.chat.AsyncCompletions):
    """The async twin of :class:`PlainCompletions` (the LangGraph server's runs)."""

    async def create(self, **params: Any) -> Any:
        return await super().create(**_untransformed(params))


def is_small_local(model: BaseChatModel) -> bool:
    """A bundled local model (or another GGUF served in its place): small, needs the compact prompts."""
    return describe(model)[0] in LOCAL_ALIASES


def uses_compact(settings: Settings, model: BaseChatModel) -> bool:
    """Does ``model`` get the compact prompt profile (short, no tools)?"""
    return settings.prompt_profile == "compact" or (settings.prompt_profile == "auto" and is_small_local(model))


def describe(model: BaseChatModel) -> tuple[str, str]:
    """(model name, where it is served) for errors and the ledger."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    where = getattr(model, "openai_api_base", None) or ("https://api.openai.com/v1" if isinstance(model, ChatOpenAI)
                                                       else "in-process")
    return str(name), str(where)


def _model_error(model: BaseChatModel, exc: Exception, what: str) -> ModelError:
    name, where = describe(model)
    service = f"{what} model {name!r}"
    if isinstance(exc, openai.APITimeoutError):
        return ModelError(service, where, "no answer before the timeout", fix="check the server or raise "
                                                                             "PALACE_MODEL_TIMEOUT_S")
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return ModelError(service, where, f"the server refused the API key (HTTP {exc.status_code})",
                          fix="check PALACE_CHAT_API_KEY / PALACE_VERIFIER_API_KEY")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(service, where, "the server does not know this model (HTTP 404)",
                          fix="check PALACE_CHAT_MODEL / PALACE_VERIFIER_MODEL")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(service, where, f"cannot connect: {exc.__cause__ or exc}",
                          fix="check PALACE_CHAT_BASE_URL and that the server runs")
    if isinstance(exc, openai.APIStatusError):
        return ModelError(service, where, f"HTTP {exc.status_code}: {exc.message}")
    return ModelError(service, where, f"{type(exc).__name__}: {exc}")


def invoke(model: BaseChatModel, messages: Sequence[BaseMessage], *, tools: Sequence[BaseTool] = (),
           what: str = "chat") -> AIMessage:
    """One model call (with ``tools`` bound if any); server failures become a one-line :class:`ModelError`."""
    runnable: Runnable[Any, Any] = model.bind_tools(list(tools)) if tools else model
    try:
        reply = runnable.invoke(list(messages))
    except openai.OpenAIError as exc:
        raise _model_error(model, exc, what) from exc
    if not isinstance(reply, AIMessage):
        raise ModelError(f"{what} model", describe(model)[1], f"returned {type(reply).__name__}, not a message")
    return reply


def invoke_structured(model: BaseChatModel, messages: Sequence[BaseMessage], schema: type[T], *,
                      what: str = "verifier", internal: bool = True) -> tuple[T | None, AIMessage | None]:
    """``(parsed, raw reply)``; ``parsed`` is ``None`` when the reply is not valid for ``schema``.

    OpenAI-compatible servers get a JSON-schema response format (llama.cpp constrains its grammar with it);
    other chat models get the schema as a forced tool. ``internal`` calls (extraction, verification, summaries)
    are tagged so LangGraph leaves their tokens out of the ``messages`` stream a chat UI shows.
    """
    if internal:  # no token stream for anyone to see: one response (and no partial-JSON parsing on the way)
        model = model.model_copy(update={"disable_streaming": True})
    if isinstance(model, ChatOpenAI):
        runnable = model.with_structured_output(schema, method="json_schema", include_raw=True)
    else:
        runnable = model.with_structured_output(schema, include_raw=True)
    config: RunnableConfig = {"tags": [TAG_NOSTREAM]} if internal else {}
    try:
        out = runnable.invoke(list(messages), config)
    except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError):
        return None, None  # the reply was cut at the output cap (or filtered) before the JSON closed
    except openai.OpenAIError as exc:
        raise _model_error(model, exc, what) from exc
    except ValueError:  # e.g. the reply was cut at the token limit before the JSON closed
        return None, None
    assert isinstance(out, dict)
    raw = out.get("raw")
    parsed = out.get("parsed")
    return (parsed if isinstance(parsed, schema) else None), (raw if isinstance(raw, AIMessage) else None)


def usage_of(reply: AIMessage | None, prompt: Sequence[BaseMessage], encoding: str) -> tuple[int, int]:
    """(prompt, completion) tokens: the server's count when it reports one, else counted here."""
    meta = reply.usage_metadata if reply is not None else None
    if meta and meta.get("input_tokens"):
        return int(meta["input_tokens"]), int(meta.get("output_tokens", 0))
    prompt_tokens = count_chat((m.text for m in prompt), encoding)
    completion = count_tokens(reply.text, encoding) if reply is not None else 0
    return prompt_tokens, completion
