"""The operations the CLI (and any other front end) offers, on the same code paths as the graph.

``run_turn`` runs one turn of the agent on a checkpointed thread; ``add_memory`` stores what the user states
directly (the user is the authority: no verifier); ``search_memories`` ranks a user's memories for a query.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from graph.deps import Deps
from graph.settings import Settings
from memory.errors import InvalidInputError, NotFoundError, ServiceUnavailableError
from memory.language.temporal import event_time_ms, parse_timestamp
from memory.tokens import count_tokens
from memory.validation import check_id, check_text

if TYPE_CHECKING:  # the graph (LangGraph, LangChain's model stack) loads when a turn runs, not for a search
    from langgraph.graph.state import CompiledStateGraph

    from graph.context import Context
    from memory.checkpoint import RedisSaver
    from memory.language.answers import SentenceGuard
    from memory.long_term import Memory
    from memory.recall import Recalled

log = logging.getLogger(__name__)


@dataclass
class TurnResult:
    answer: str
    user_id: str
    session_id: str
    state: dict[str, Any]
    interrupts: list[dict[str, Any]] = field(default_factory=list)


def thread_id(user_id: str, session_id: str) -> str:
    """The checkpoint thread of a CLI session (one per user and session)."""
    return f"cli:{user_id}:{session_id}"


def checkpointer(deps: Deps) -> RedisSaver:
    """The CLI's checkpointer: Redis, on the configured Redis."""
    from graph.resources import saver_config
    from memory.checkpoint import RedisSaver

    return RedisSaver(deps.resources.redis, config=saver_config(deps.settings))


def compiled(deps: Deps) -> CompiledStateGraph[Any, Context, Any, Any]:
    """The agent compiled with the Redis checkpointer on the configured Redis (once per ``deps``)."""
    from graph.builder import build_graph

    def build() -> CompiledStateGraph[Any, Context, Any, Any]:
        return build_graph(deps).compile(checkpointer=checkpointer(deps))

    return deps.memo("graph", build)


def _drive(graph: CompiledStateGraph[Any, Context, Any, Any], payload: Any, config: Any, ctx: Context,
           on_token: Callable[[str], None] | None, on_answer: Callable[[], None] | None = None,
           guard: SentenceGuard | None = None) -> None:
    """Run the graph; with ``on_token``, stream the respond node's tokens to it as they are generated (internal
    model calls are tagged nostream, and only the respond node's chunks are passed on); ``on_answer`` is called
    once the answer is complete, while the memory work may still run. ``guard`` (``on_token`` itself, for a small
    model) learns what recall gave the model, and where one generation ends and another starts."""
    from langchain_core.messages import AIMessage, AIMessageChunk

    if on_token is None and on_answer is None:
        graph.invoke(payload, config, context=ctx)
        return
    generation = None
    for mode, data in graph.stream(payload, config, context=ctx, stream_mode=["messages", "updates"]):
        if mode == "messages" and isinstance(data, tuple):
            chunk, meta = data
            if on_token is not None and isinstance(meta, dict) and meta.get("langgraph_node") == "respond" \
                    and isinstance(chunk, AIMessageChunk) and chunk.text:
                if guard is not None and generation not in (None, chunk.id):
                    guard.boundary()
                generation = chunk.id
                on_token(chunk.text)
        elif mode == "updates" and isinstance(data, dict):
            recalled = data.get("recall")
            if guard is not None and isinstance(recalled, dict):
                guard.context(recalled=[m["text"] for m in recalled.get("recalled") or []],
                              chains=[str(m.get("chain", "")) for m in recalled.get("recalled") or []],
                              times=[int(m.get("event_time") or m.get("timestamp") or 0)
                                     for m in recalled.get("recalled") or []],
                              windowed=bool(recalled.get("time_window")),
                              window=recalled.get("window") or [],
                              extra=[*(str(v) for v in (recalled.get("time_window") or {}).values()),
                                     *(str(t.get("title", "")) for t in recalled.get("tasks") or [])])
            answer = data.get("respond")
            if guard is not None and isinstance(answer, dict) and answer.get("messages"):
                last = answer["messages"][-1]
                if isinstance(last, AIMessage) and not last.tool_calls:
                    guard.stored(last.text)
            if on_answer is not None and "answered" in data:
                on_answer()


PROMPT_OVERHEAD_TOKENS = 700  # the respond prompt without window and memories, with room to spare


def context_tokens(settings: Settings) -> int:
    from memory.local_model import LOCAL_CONTEXT_PER_SLOT

    if settings.chat_context_tokens:
        return settings.chat_context_tokens
    return LOCAL_CONTEXT_PER_SLOT if not settings.chat_model else 128_000


def validate_turn(settings: Settings, user_id: str, session_id: str, message: str | None, *,
                  at: str | None = None) -> str | None:
    """Check a turn's input before anything runs or is stored (exit 2 on bad input, in well under a second): ids,
    the message's length, ``at``, and that the message fits the chat model's context with the prompt and the
    answer (window and memories are trimmed to fit; the message itself cannot be)."""
    check_id("user id", user_id, max_length=settings.max_id_length)
    check_id("session id", session_id, max_length=settings.max_id_length)
    if at:
        parse_timestamp(at, ZoneInfo(settings.timezone))
    if message is None:
        return None
    text = check_text("message", message, max_chars=settings.max_message_chars)
    window = context_tokens(settings)
    output = settings.local_model_max_tokens if not settings.chat_model else settings.max_output_tokens
    room = window - PROMPT_OVERHEAD_TOKENS - output
    if len(text.encode()) > room:  # a byte-level BPE token holds at least one byte: shorter texts always fit
        tokens = count_tokens(text, settings.token_encoding)
        if tokens > room:
            raise InvalidInputError(
                f"the message is {tokens:,} tokens; the chat model's context holds {window:,} with about "
                f"{PROMPT_OVERHEAD_TOKENS:,} for the prompt and {output:,} for the answer, so at most {room:,} for "
                f"the message: shorten it (or set PALACE_CHAT_CONTEXT_TOKENS for a model with a larger context)")
    return text


def run_turn(deps: Deps, user_id: str, session_id: str, message: str | None, *, at: str | None = None,
             important: bool = False, resume: str | None = None,
             on_token: Callable[[str], None] | None = None,
             on_answer: Callable[[], None] | None = None) -> TurnResult:
    """One turn (or, with ``resume``, the answer to a pending confirmation) on the session's thread.
    ``on_token`` receives the answer as it is generated; ``on_answer`` is called once it is complete."""
    from langchain_core.messages import HumanMessage
    from langgraph.types import Command

    from graph.context import Context
    from graph.models import uses_compact
    from memory.embeddings import restates
    from memory.language.answers import OpenerFilter, SentenceGuard, clock_words
    from nodes._turn import final_answer
    from nodes.confirm import ANSWERS, parse_confirmation

    s = deps.settings
    text = validate_turn(s, user_id, session_id, None if resume is not None else message, at=at)
    config: Any = {"configurable": {"thread_id": thread_id(user_id, session_id)}}
    ctx = Context(user_id=user_id, session_id=session_id)
    graph = compiled(deps)
    if resume is not None:
        if parse_confirmation(resume) is None:  # a pending question stays pending
            raise InvalidInputError(f"answer the confirmation with {ANSWERS}, got {resume!r}")
        pending = graph.get_state(config).interrupts
        if not pending:
            raise InvalidInputError(f"nothing to confirm in session {session_id!r} of user {user_id!r}")
        _drive(graph, Command(resume=resume), config, ctx, None)
    else:
        if text is None:
            raise InvalidInputError("a message is required (or --resume yes|no|both to answer a pending "
                                    "confirmation)")
        payload: dict[str, Any] = {"messages": [HumanMessage(text)], "important": important}
        if at:
            payload["at"] = at
        if on_token is None:
            _drive(graph, payload, config, ctx, None, on_answer)
        else:  # the stream shows the answer as it is stored: without a hollow "You're right!" before it, and
            # for a small model, checked sentence by sentence (nodes/respond.py checks the stored answer the same way)
            tokens = OpenerFilter(text, on_token)
            guard = None
            if uses_compact(s, deps.models.chat(ctx.chat_model)):
                now = datetime.now(ZoneInfo(s.timezone)) if not at else parse_timestamp(at, ZoneInfo(s.timezone))
                guard = SentenceGuard(text, tokens, now=clock_words(now),
                                      restates=restates(deps.resources.embeddings))
            sink: Callable[[str], None] = guard if guard is not None else tokens

            def answered() -> None:
                if guard is not None:
                    guard.flush()
                tokens.flush()
                if on_answer is not None:
                    on_answer()

            _drive(graph, payload, config, ctx, sink, answered, guard)
            if guard is not None:
                guard.flush()
            tokens.flush()
    snapshot = graph.get_state(config)
    values = dict(snapshot.values)
    answer = final_answer(values.get("messages", []))
    interrupts = [dict(i.value) if isinstance(i.value, dict) else {"value": i.value} for i in snapshot.interrupts]
    return TurnResult(answer=answer, user_id=user_id, session_id=session_id, state=values, interrupts=interrupts)


def add_memory(deps: Deps, user_id: str, text: str, *, at: str | None = None, important: bool = False) -> Memory:
    """Store ``text`` as an active memory of ``user_id`` (recorded ``at``; its time phrase sets ``event_time``)."""
    from graph.manage import record
    from memory.events import MemoryEvent, event_at
    from memory.language.junk import without_preamble
    from memory.long_term import Memory, memory_id

    s = deps.settings
    check_id("user id", user_id, max_length=s.max_id_length)
    text = without_preamble(check_text("memory text", text, max_chars=s.max_message_chars))  # the fact itself
    tz = ZoneInfo(s.timezone)
    when = parse_timestamp(at, tz) if at is not None else datetime.now(tz)  # "" is a bad time, not now
    ts = int(when.timestamp() * 1000)
    memory = Memory(id=memory_id(user_id, f"manual:{ts}:{text}"), text=text, detail=text, user_id=user_id,
                    session_id="manual", timestamp=ts,
                    event_time=event_time_ms(when, text),
                    decay_weight=s.important_weight if important else 1.0, origin="manual")
    deps.long_term().upsert([memory], deps.embeddings.embed_documents([text]))
    record(deps, MemoryEvent(at=event_at(ts), user_id=user_id, memory_id=memory.id, event="created", text=text,
                             reason="stated by the user (palace memories add)", origin="manual"))
    return memory


def search_memories(deps: Deps, user_id: str, query: str, *, now: str | None = None,
                    limit: int | None = None) -> list[Recalled]:
    """The ranked memories of ``user_id`` for ``query`` at ``now`` (time intent and decay included)."""
    from memory.recall import recall

    s = deps.settings
    check_id("user id", user_id, max_length=s.max_id_length)
    query = check_text("query", query, max_chars=s.max_message_chars)
    if limit is not None and limit <= 0:
        raise InvalidInputError(f"--limit must be > 0, got {limit}")
    tz = ZoneInfo(s.timezone)
    clock = parse_timestamp(now, tz) if now else datetime.now(tz)
    top = limit or s.recall_top_k
    return recall(deps.long_term(), deps.embeddings, user_id, query, clock, search_k=max(s.search_top_k, top),
                  top_k=top, config=deps.ranking()).memories


@dataclass(frozen=True)
class Forgotten:
    """What ``forget_user`` removed, per store."""

    short_term_keys: int
    outbox_rows: int
    memories: int
    tasks: int
    usage_rows: int
    threads: int

    def total(self) -> int:
        return (self.short_term_keys + self.outbox_rows + self.memories + self.tasks + self.usage_rows
                + self.threads)


def forget_user(deps: Deps, user_id: str) -> Forgotten:
    """Remove everything of ``user_id``: short-term lists (with batches waiting to be archived), the outbox,
    every long-term memory (those derived from short-term entries included), tasks with their history, usage
    rows, and the user's CLI checkpoint threads. Nothing of anyone else: every step matches the exact user id.

    Short-term memory goes first, so no archive batch can bring memories back once Qdrant is cleared; a failure
    part-way leaves the rest in place, and running it again finishes the job (each step is idempotent)."""
    s = deps.settings
    check_id("user id", user_id, max_length=s.max_id_length)
    removed_stm = deps.short_term().delete_user(user_id)
    outbox_rows = deps.outbox().delete_user(user_id)
    memories = deps.long_term().delete_user(user_id)
    tasks = deps.tasks().delete_user(user_id)
    usage = deps.ledger().delete_user(user_id)
    deps.events().delete_user(user_id)
    saver = checkpointer(deps)  # not the compiled graph: forgetting needs no model stack
    threads = 0
    prefix = thread_id(user_id, "")
    for tid in list(deps.resources.redis.smembers(saver.threads_key())):
        name = tid.decode() if isinstance(tid, bytes) else str(tid)
        if name.startswith(prefix):
            saver.delete_thread(name)
            threads += 1
    return Forgotten(short_term_keys=removed_stm, outbox_rows=outbox_rows, memories=memories, tasks=tasks,
                     usage_rows=usage, threads=threads)


@dataclass(frozen=True)
class ForgottenMemories:
    named: int  # of the ids given, how many were this user's memories
    derived: int  # other memories from the same short-term entries (the same message, its archive summary)
    short_term_entries: int  # those entries, removed from short-term memory so no archive brings them back


def forget_memories(deps: Deps, user_id: str, ids: list[str]) -> ForgottenMemories:
    """Delete the given memories of ``user_id`` and follow their lineage: every memory derived from the same
    short-term entries goes too, and so do those entries (else archiving them would write the memory again).
    Ids of other users are never touched."""
    from graph.manage import resolve_id

    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    if not ids:
        raise InvalidInputError("name the memory ids to forget, or use --all")
    ltm = deps.long_term()
    full: list[str] = []
    for given in ids:
        try:
            full.append(resolve_id(deps, user_id, given))
        except NotFoundError:
            continue  # counted as not found by the caller; the others are still forgotten
    named = ltm.get(user_id, full)
    sources = sorted({src for m in named for src in m.source})
    lineage = [m.id for m in ltm.scroll(user_id) if set(m.source) & set(sources)] if sources else []
    gone = ltm.delete_ids(user_id, [m.id for m in named])
    derived = ltm.delete_by_source(user_id, sources) if sources else 0
    try:
        deps.events().forget(user_id, list(dict.fromkeys([m.id for m in named] + lineage)),
                             reason="forgotten by the user")
    except ServiceUnavailableError as exc:
        log.warning("memory history not updated: %s", exc)
    entries = 0
    stm = deps.short_term()
    for session in sorted({m.session_id for m in named}):
        entries += stm.remove_entries(user_id, session, sources)
    return ForgottenMemories(named=gone, derived=derived, short_term_entries=entries)
