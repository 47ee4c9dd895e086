"""archive: once the session's short-term list passes the threshold, its oldest entries are summarised into
long-term memories (with lineage to the entries), after the answer is produced.

If the summariser's reply cannot be parsed, every user message of the batch becomes a memory of its own (cut to
the memory length, the full text kept as detail): an archive never drops what the user said. Nor does it when
the summariser leaves out a message whose turn never finished (interrupted with Ctrl-C, or the model failed): its
facts were never extracted, so the archive was their only way into long-term memory, and such a message is kept
as a memory of its own unless the summary cites it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

import prompts
from graph.context import Context
from graph.deps import Deps
from graph.models import describe, invoke_structured, usage_of
from graph.state import State
from memory.archive import MemoryDraft, Summarizer, archive_session
from memory.errors import PalaceError, ServiceUnavailableError
from memory.events import MemoryEvent
from memory.language.facts import split_facts
from memory.language.junk import junk_reason, normalized, statements
from memory.language.temporal import event_time_ms
from memory.long_term import Memory
from memory.short_term import Entry
from memory.tokens import truncate_tokens
from nodes._turn import context_of, turn_of
from nodes.fact_check import marks_important

log = logging.getLogger(__name__)


class SummaryItem(BaseModel):
    text: str = Field(description="one short sentence about the user")
    entry: int = Field(default=0, description="number of the message the fact comes from")
    when: str = Field(default="", description="the time expression as written, or empty")


class Summary(BaseModel):
    """Facts about the user worth keeping in long-term memory."""

    memories: list[SummaryItem] = Field(default_factory=list)


def conversation(entries: Sequence[Entry], tz: ZoneInfo) -> str:
    return "\n".join(
        f"{i}. [{datetime.fromtimestamp(e.ts / 1000, tz):%Y-%m-%d %H:%M}] {e.role}: {e.content}"
        for i, e in enumerate(entries, 1)
    )


def unanswered(entries: Sequence[Entry], answered_later: Callable[[], set[str]] | None = None) -> set[str]:
    """Ids of the user messages of ``entries`` whose turn never finished: the write node pushes every answer right
    after its message with ``meta.turn`` naming it, so a message without one was interrupted (or its model
    failed) before fact-check stored anything. ``answered_later`` gives the ids answered in the entries still in
    the session's list, for a batch that ends with a user message (its answer may be the next entry); without it,
    such a message counts as answered."""
    answered = {str(e.meta.get("turn")) for e in entries if e.role == "assistant" and e.meta.get("turn")}
    users = [e for e in entries if e.role == "user" and e.id not in answered]
    # the batch's last entry: its answer, if any, was pushed after the batch was cut
    if users and users[-1] is entries[-1] and (answered_later is None or users[-1].id in answered_later()):
        users.pop()
    return {e.id for e in users}


def drafts_from(summary: Summary | None, entries: Sequence[Entry], tz: ZoneInfo, *, max_tokens: int,
                encoding: str, important_weight: float, keep: set[str] | None = None) -> list[MemoryDraft]:
    """The batch's memories: the summariser's, or the user's statements (one fact per memory) when it gave nothing
    parseable; plus those of each message in ``keep`` (see :func:`unanswered`) the summary does not cite."""
    def weight(text: str) -> float:
        return important_weight if marks_important(text) else 1.0

    def verbatim(e: Entry) -> list[MemoryDraft]:
        """The message's statements (its questions, greetings and thanks left out), one fact per memory."""
        at = datetime.fromtimestamp(e.ts / 1000, tz)
        return [MemoryDraft(text=truncate_tokens(fact, max_tokens, encoding), detail=e.content,
                            event_time=event_time_ms(at, fact), decay_weight=weight(e.content))
                for fact in split_facts(statements(e.content))]

    if summary is None:
        return [d for e in entries if e.role == "user" for d in verbatim(e)]
    drafts = []
    seen: set[str] = set()
    cited = {entries[item.entry - 1].id for item in summary.memories if 1 <= item.entry <= len(entries)}
    for item in summary.memories:
        text = truncate_tokens(" ".join(item.text.split()), max_tokens, encoding)
        if not text or junk_reason(text) or normalized(text) in seen:
            continue
        seen.add(normalized(text))
        source = entries[item.entry - 1] if 1 <= item.entry <= len(entries) else entries[-1]
        at = datetime.fromtimestamp(source.ts / 1000, tz)
        drafts.append(MemoryDraft(text=text, detail=source.content, event_time=event_time_ms(at, item.when, item.text),
                                  decay_weight=weight(source.content)))
    drafts += [d for e in entries if e.id in (keep or set()) and e.id not in cited for d in verbatim(e)]
    return drafts


def make_summarizer(model: BaseChatModel, deps: Deps, tz: ZoneInfo, override: str | None,
                    on_usage: Callable[[str, int, int], None], *,
                    answered_later: Callable[[], set[str]] | None = None) -> Summarizer:
    s = deps.settings

    def summarize(entries: Sequence[Entry]) -> Sequence[MemoryDraft]:
        request = [HumanMessage(prompts.render("summarize", {"conversation": conversation(entries, tz)},
                                               override=override))]
        summary, raw = invoke_structured(model, request, Summary, what="chat")
        prompt_tokens, completion = usage_of(raw, request, s.token_encoding)
        on_usage(describe(model)[0], prompt_tokens, completion)
        if summary is None:
            log.warning("archive summary could not be parsed; keeping each user message of the batch")
        return drafts_from(summary, entries, tz, max_tokens=s.memory_max_tokens, encoding=s.token_encoding,
                           important_weight=s.important_weight, keep=unanswered(entries, answered_later))

    return summarize


def answered_in(deps: Deps, user_id: str, session_id: str) -> Callable[[], set[str]]:
    """The turn ids answered in the session's short-term list (for :func:`unanswered`)."""
    def answered() -> set[str]:
        window = deps.short_term().window(user_id, session_id)
        return {str(e.meta.get("turn")) for e in window.entries if e.role == "assistant" and e.meta.get("turn")}

    return answered


def ledger_usage(deps: Deps, user_id: str, session_id: str, node: str) -> Callable[[str, int, int], None]:
    """A summariser's ``on_usage``: each call recorded in the ledger under this user, session and node."""
    ledger = deps.ledger()

    def on_usage(model: str, prompt_tokens: int, completion: int) -> None:
        ledger.record(user_id, session_id, node, model, prompt_tokens, completion)

    return on_usage


def record_archived(deps: Deps, node: str) -> Callable[[Sequence[Memory]], None]:
    """``archive_session``'s ``on_written``: a "created" event per archived memory (a warning if PostgreSQL is
    down: the memories are stored, only their history line is missing)."""
    def on_written(memories: Sequence[Memory]) -> None:
        try:
            deps.events().record([MemoryEvent(user_id=m.user_id, memory_id=m.id, event="created", text=m.text,
                                              reason=f"archived from short-term memory ({node})", origin=m.origin)
                                  for m in memories])
        except ServiceUnavailableError as exc:
            log.warning("memory history not recorded for %d archived memories: %s", len(memories), exc)

    return on_written


def make_archive(deps: Deps) -> Any:
    def archive(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        if not state.get("needs_archive"):
            return {}
        ctx = context_of(runtime)
        turn = turn_of(state)
        summarize = make_summarizer(deps.models.memory(ctx.chat_model), deps, ZoneInfo(turn["timezone"]),
                                    ctx.prompts.get("summarize"),
                                    ledger_usage(deps, turn["user_id"], turn["session_id"], "archive"),
                                    answered_later=answered_in(deps, turn["user_id"], turn["session_id"]))
        try:
            result = archive_session(deps.short_term(), deps.long_term(), deps.embeddings, summarize,
                                     turn["user_id"], turn["session_id"], on_written=record_archived(deps, "archive"))
        except PalaceError as exc:
            # The batch stays pending in short-term memory and is retried on the session's next turn.
            log.warning("archive postponed: %s", exc)
            return {"needs_archive": False, "archive": {"error": str(exc)}}
        return {"needs_archive": False, "archive": {"batches": result.batches, "entries": result.entries,
                                                    "memories": result.memories, "recovered": result.recovered}}

    return archive
