"""The operations the CLI (and any other front end) offers, on the same code paths as the graph.

``run_turn`` runs one turn of the agent on a checkpointed thread; ``add_memory`` stores what the user states
directly (the user is the authority: no verifier); ``search_memories`` ranks a user's memories for a query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from graph.deps import Deps
from memory.errors import InvalidInputError
from memory.temporal import event_time_ms, parse_timestamp
from memory.validation import check_id, check_text

if TYPE_CHECKING:  # the graph (LangGraph, LangChain's model stack) loads when a turn runs, not for a search
    from langgraph.graph.state import CompiledStateGraph

    from graph.context import Context
    from memory.checkpoint import RedisSaver
    from memory.long_term import Memory
    from memory.recall import Recalled


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
    from memory.checkpoint import RedisSaver, SaverConfig

    s = deps.settings
    return RedisSaver(deps.resources.redis, config=SaverConfig(
        prefix=f"{s.key_prefix}:cp", ttl_s=s.checkpoint_ttl_s, refresh_on_read=s.checkpoint_refresh_on_read))


def compiled(deps: Deps) -> CompiledStateGraph[Any, Context, Any, Any]:
    """The agent compiled with the Redis checkpointer on the configured Redis (once per ``deps``)."""
    from graph.builder import build_graph

    def build() -> CompiledStateGraph[Any, Context, Any, Any]:
        return build_graph(deps).compile(checkpointer=checkpointer(deps))

    return deps.memo("graph", build)


def run_turn(deps: Deps, user_id: str, session_id: str, message: str | None, *, at: str | None = None,
             important: bool = False, resume: str | None = None) -> TurnResult:
    """One turn (or, with ``resume``, the answer to a pending confirmation) on the session's thread."""
    from langchain_core.messages import HumanMessage
    from langgraph.types import Command

    from graph.context import Context
    from nodes._turn import final_answer

    s = deps.settings
    check_id("user id", user_id, max_length=s.max_id_length)
    check_id("session id", session_id, max_length=s.max_id_length)
    config: Any = {"configurable": {"thread_id": thread_id(user_id, session_id)}}
    ctx = Context(user_id=user_id, session_id=session_id)
    graph = compiled(deps)
    if resume is not None:
        pending = graph.get_state(config).interrupts
        if not pending:
            raise InvalidInputError(f"nothing to confirm in session {session_id!r} of user {user_id!r}")
        graph.invoke(Command(resume=resume), config, context=ctx)
    else:
        text = check_text("message", message, max_chars=s.max_message_chars)
        payload: dict[str, Any] = {"messages": [HumanMessage(text)], "important": important}
        if at:
            parse_timestamp(at, ZoneInfo(s.timezone))  # a bad --at fails before anything is stored
            payload["at"] = at
        graph.invoke(payload, config, context=ctx)
    snapshot = graph.get_state(config)
    values = dict(snapshot.values)
    answer = final_answer(values.get("messages", []))
    interrupts = [dict(i.value) if isinstance(i.value, dict) else {"value": i.value} for i in snapshot.interrupts]
    return TurnResult(answer=answer, user_id=user_id, session_id=session_id, state=values, interrupts=interrupts)


def add_memory(deps: Deps, user_id: str, text: str, *, at: str | None = None, important: bool = False) -> Memory:
    """Store ``text`` as an active memory of ``user_id`` (recorded ``at``; its time phrase sets ``event_time``)."""
    from memory.long_term import Memory, memory_id

    s = deps.settings
    check_id("user id", user_id, max_length=s.max_id_length)
    text = check_text("memory text", text, max_chars=s.max_message_chars)
    tz = ZoneInfo(s.timezone)
    when = parse_timestamp(at, tz) if at else datetime.now(tz)
    ts = int(when.timestamp() * 1000)
    memory = Memory(id=memory_id(user_id, f"manual:{ts}:{text}"), text=text, detail=text, user_id=user_id,
                    session_id="manual", timestamp=ts,
                    event_time=event_time_ms(when, text),
                    decay_weight=s.important_weight if important else 1.0, origin="manual")
    deps.long_term().upsert([memory], deps.embeddings.embed_documents([text]))
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
    check_id("user id", user_id, max_length=deps.settings.max_id_length)
    if not ids:
        raise InvalidInputError("name the memory ids to forget, or use --all")
    ltm = deps.long_term()
    named = ltm.get(user_id, ids)
    sources = sorted({src for m in named for src in m.source})
    gone = ltm.delete_ids(user_id, [m.id for m in named])
    derived = ltm.delete_by_source(user_id, sources) if sources else 0
    entries = 0
    stm = deps.short_term()
    for session in sorted({m.session_id for m in named}):
        entries += stm.remove_entries(user_id, session, sources)
    return ForgottenMemories(named=gone, derived=derived, short_term_entries=entries)
