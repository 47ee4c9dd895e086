"""fact_check: candidate memories from the user's message, each checked by the verifier against the most
similar stored memories: add | duplicate | update | conflict. A verdict that cannot be parsed, or that names a
memory that was not offered, makes the candidate ``unverified`` (stored as disputed, never silently trusted)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.models import describe, invoke_structured, usage_of
from graph.state import Candidate, Decision, State, Usage, Verdict
from memory.errors import ServiceUnavailableError
from memory.long_term import Hit, memory_id
from memory.temporal import event_time_ms
from memory.tokens import truncate_tokens
from nodes._turn import clock, context_of, turn_of

log = logging.getLogger(__name__)

_IMPORTANT = re.compile(r"\b(important|remember (this|that)|don'?t forget|never forget)\b|重要|记住|别忘|不要忘",
                        re.IGNORECASE)


_QUESTION = re.compile(r"[?？]\s*$|^\s*(what|where|when|who|which|how|why|do|did|does|is|are|can)\b|吗\s*$",
                       re.IGNORECASE)


class ExtractedMemory(BaseModel):
    text: str = Field(description="one short sentence about the user")
    when: str = Field(default="", description="the time expression as written, or empty")
    important: bool = Field(default=False, description="the user asked to remember it or said it matters")


class Extraction(BaseModel):
    """Facts about the user worth remembering."""

    memories: list[ExtractedMemory] = Field(default_factory=list)


class VerifierVerdict(BaseModel):
    """The verifier's decision on one new memory."""

    decision: Literal["add", "duplicate", "update", "conflict"]
    existing: int = Field(default=0, description="number of the existing memory; 0 for add")
    reason: str = ""


def marks_important(text: str) -> bool:
    """The user says this matters ("remember this", "it's important", "记住", "很重要")."""
    return bool(_IMPORTANT.search(text))


def candidates_from(extraction: Extraction, message: str, now: datetime, *, important: bool, max_tokens: int,
                    encoding: str) -> list[Candidate]:
    seen: set[str] = set()
    out: list[Candidate] = []
    for item in extraction.memories:
        text = truncate_tokens(" ".join(item.text.split()), max_tokens, encoding)
        if not text or text.lower() in seen:
            continue
        seen.add(text.lower())
        out.append(Candidate(text=text, detail=message, event_time=event_time_ms(now, item.when, item.text),
                             important=important or item.important))
    return out


def judge(verdict: VerifierVerdict | None, neighbours: Sequence[Hit]) -> tuple[Decision, Hit | None, str]:
    """(decision, the existing memory it refers to, reason); anything not understood is 'unverified'."""
    if verdict is None:
        return "unverified", None, "the verifier's answer could not be parsed"
    if verdict.decision == "add":
        return "add", None, verdict.reason
    if not 1 <= verdict.existing <= len(neighbours):
        return "unverified", None, f"the verifier named memory {verdict.existing}, which was not offered"
    return verdict.decision, neighbours[verdict.existing - 1], verdict.reason


def make_fact_check(deps: Deps) -> Any:
    def fact_check(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        ctx = context_of(runtime)
        turn = turn_of(state)
        now = clock(turn)
        usage: list[Usage] = list(state.get("usage", []))
        overrides = ctx.prompts
        when = now.strftime("%Y-%m-%d %H:%M %Z")

        extractor = deps.models.chat(ctx.chat_model)
        request = [HumanMessage(prompts.render("extract", {"now": when, "message": turn["message"]},
                                               override=overrides.get("extract")))]
        extraction, raw = invoke_structured(extractor, request, Extraction, what="chat")
        p, c = usage_of(raw, request, s.token_encoding)
        usage.append(Usage(node="fact_check.extract", model=describe(extractor)[0], prompt_tokens=p,
                           completion_tokens=c))
        if extraction is None:
            if _QUESTION.search(turn["message"]):
                return {"verdicts": [], "usage": usage}
            # Nothing parseable came back: keep the statement itself (cut to a memory's length), never drop it.
            log.warning("memory extraction returned no parseable result; storing the message as one memory")
            extraction = Extraction(memories=[ExtractedMemory(text=turn["message"])])
        important = bool(state.get("important")) or marks_important(turn["message"])
        cands = candidates_from(extraction, turn["message"], now, important=important,
                                max_tokens=s.memory_max_tokens, encoding=s.token_encoding)
        if not cands:
            return {"verdicts": [], "usage": usage}

        vectors = deps.embeddings.embed_documents([c["text"] for c in cands])
        verifier = deps.models.verifier(ctx.verifier_model)
        verdicts: list[Verdict] = []
        unavailable: str | None = None
        for i, (cand, vector) in enumerate(zip(cands, vectors, strict=True)):
            new_id = memory_id(turn["user_id"], f"turn:{turn['id']}:{i}")
            neighbours: list[Hit] = []
            if unavailable is None:
                try:
                    neighbours = deps.long_term().search(turn["user_id"], vector, limit=s.verify_neighbors)
                except ServiceUnavailableError as exc:
                    if exc.service != "Qdrant":
                        raise
                    unavailable = str(exc)
                    log.warning("fact-check without neighbours: %s", exc)
            if unavailable is not None:  # kept, not checked: it waits in the outbox with the others
                verdicts.append(Verdict(candidate=cand, decision="add", memory_id=new_id, target=None,
                                        target_text=None, reason=f"not checked: {unavailable}"))
                continue
            if not neighbours:  # nothing to compare with: no verifier call, no tokens spent
                verdicts.append(Verdict(candidate=cand, decision="add", memory_id=new_id, target=None,
                                        target_text=None, reason="nothing similar is stored"))
                continue
            existing = "\n".join(f"{n}. {h.memory.text}" for n, h in enumerate(neighbours, 1))
            ask = [HumanMessage(prompts.render("verify", {"now": when, "existing": existing,
                                                          "candidate": cand["text"]},
                                               override=overrides.get("verify")))]
            verdict, raw = invoke_structured(verifier, ask, VerifierVerdict, what="verifier")
            p, c = usage_of(raw, ask, s.token_encoding)
            usage.append(Usage(node="fact_check.verify", model=describe(verifier)[0], prompt_tokens=p,
                               completion_tokens=c))
            decision, target, reason = judge(verdict, neighbours)
            verdicts.append(Verdict(candidate=cand, decision=decision,
                                    memory_id=new_id, target=target.memory.id if target else None,
                                    target_text=target.memory.text if target else None, reason=reason))
        return {"verdicts": verdicts, "usage": usage}

    return fact_check
