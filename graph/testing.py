"""A scripted chat model for tests and benchmarks: the only fake in the project, at the model boundary.

``ScriptedChatModel`` is a ``GenericFakeChatModel`` whose reply is a function of the prompt (so tests do not
depend on call order) and which survives ``bind_tools`` / ``with_structured_output``. ``ScriptedBrain`` is a
deterministic stand-in for a model that follows the project's prompts: it extracts the statements of a message
as memories, verifies with a rule the test chooses, summarises user lines, and answers by quoting the memories
it was given. Never used by the product itself.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage, ToolCall
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr

from memory.tokens import count_chat, count_tokens

Responder = Callable[[Sequence[BaseMessage], Sequence[str]], AIMessage | str]


class ScriptedChatModel(GenericFakeChatModel):
    """Replies with ``responder(messages, bound tool names)``; records every call in ``calls`` (shared by copies)."""

    messages: Iterator[AIMessage | str] = Field(default_factory=lambda: iter(()))
    responder: Responder
    bound: list[str] = Field(default_factory=list)
    model_name: str = "scripted"
    # A private attribute: not serialised into every callback (the log grows), shared by bind_tools copies.
    _calls: list[dict[str, Any]] = PrivateAttr(default_factory=list)

    @property
    def calls(self) -> list[dict[str, Any]]:
        return self._calls

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        names = [convert_to_openai_tool(t)["function"]["name"] for t in tools]
        return self.model_copy(update={"bound": names})

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        out = self.responder(messages, self.bound)
        reply = AIMessage(out) if isinstance(out, str) else out
        prompt = count_chat(m.text for m in messages)
        completion = count_tokens(reply.text) + sum(count_tokens(json.dumps(c["args"])) for c in reply.tool_calls)
        reply.usage_metadata = {"input_tokens": prompt, "output_tokens": completion,
                                "total_tokens": prompt + completion}
        self._calls.append({"messages": messages, "tools": list(self.bound), "reply": reply, "prompt_tokens": prompt})
        return reply

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        reply = self._reply(messages)
        chunk = AIMessageChunk(content=reply.content, id=reply.id, usage_metadata=reply.usage_metadata,
                               tool_call_chunks=[{"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"],
                                                  "index": i} for i, c in enumerate(reply.tool_calls)])
        if run_manager:
            run_manager.on_llm_new_token(reply.text, chunk=ChatGenerationChunk(message=chunk))
        yield ChatGenerationChunk(message=chunk)


def tool_call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage("", tool_calls=[ToolCall(name=name, args=args, id=f"call_{uuid.uuid4().hex[:12]}")])


def _between(text: str, tag: str) -> str:
    m = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return m.group(1).strip() if m else ""


_QUESTION = re.compile(r"[?？]\s*$|^(what|where|when|who|which|how|do|did|does|is|are|can)\b|吗[?？]?$|哪|什么|几|谁",
                       re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!。！？?\n]+[.!。！？?]?")

Verifier = Callable[[str, list[str]], tuple[str, int]]


def same_text_is_duplicate(new: str, existing: list[str]) -> tuple[str, int]:
    for i, text in enumerate(existing, 1):
        if text.strip().lower() == new.strip().lower():
            return "duplicate", i
    return "add", 0


class ScriptedBrain:
    """A deterministic model that follows the project's prompts (see the module docstring)."""

    def __init__(self, verifier: Verifier = same_text_is_duplicate) -> None:
        self.verifier = verifier
        self.answers: list[str] = []

    def __call__(self, messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage | str:
        prompt = messages[-1].text
        if "Extraction" in tools:
            return tool_call("Extraction", {"memories": [{"text": s, "when": ""} for s in self.statements(
                _between(prompt, "message"))]})
        if "VerifierVerdicts" in tools:
            existing = [re.sub(r"^\d+\.\s*", "", line) for line in _between(prompt, "existing").splitlines()]
            verdicts = []
            for n, line in enumerate(_between(prompt, "new").splitlines(), 1):
                decision, number = self.verifier(re.sub(r"^\d+\.\s*", "", line), existing)
                verdicts.append({"candidate": n, "decision": decision, "existing": number, "reason": "scripted"})
            return tool_call("VerifierVerdicts", {"verdicts": verdicts})
        if "Summary" in tools:
            items = []
            for line in _between(prompt, "conversation").splitlines():
                m = re.match(r"(\d+)\. \[[^\]]*\] user: (.*)", line)
                if m:
                    items += [{"text": s, "entry": int(m.group(1))} for s in self.statements(m.group(2))]
            return tool_call("Summary", {"memories": items})
        return self.answer(messages, tools)

    @staticmethod
    def statements(text: str) -> list[str]:
        out = []
        for part in _SENTENCE.findall(text):
            sentence = part.strip()
            if len(sentence) >= 4 and not _QUESTION.search(sentence):
                out.append(sentence.rstrip(".!。！"))
        return out

    def answer(self, messages: Sequence[BaseMessage], tools: Sequence[str]) -> AIMessage | str:
        user = messages[-1].text
        if user.startswith("TASK:") and "create_task" in tools:
            title, _, steps = user[5:].partition("|")
            return tool_call("create_task", {"title": title.strip(), "steps": [s.strip() for s in steps.split(",")]})
        system = next((m.text for m in messages if isinstance(m, SystemMessage)), "")
        memories = [json.loads(line)["text"] for line in _between(system, "memories").split("\n")
                    if line.startswith("{")]
        answer = "I remember: " + " | ".join(memories) if memories else "I do not remember anything about that."
        self.answers.append(answer)
        return answer


class ScriptedModels:
    """A :class:`~graph.models.ModelProvider` whose chat, memory and verifier models are one scripted model."""

    def __init__(self, brain: Responder | None = None) -> None:
        self.model = ScriptedChatModel(responder=brain or ScriptedBrain())

    def chat(self, name: str | None = None) -> BaseChatModel:
        return self.model

    def memory(self, name: str | None = None) -> BaseChatModel:
        return self.model

    def verifier(self, name: str | None = None) -> BaseChatModel:
        return self.model
