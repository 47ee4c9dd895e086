"""recall: the session's short-term window, the user's open tasks, and the top memories for the message."""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any

from langgraph.runtime import Runtime

from graph.context import Context
from graph.deps import Deps
from graph.state import RecalledMemory, State, Turn
from memory.embeddings import Embedder
from memory.errors import ServiceUnavailableError
from memory.language.junk import asks
from memory.long_term import LongTermMemory
from memory.recall import recall
from nodes._turn import Prefetch, clock, turn_of

log = logging.getLogger(__name__)


def _queries(deps: Deps) -> Prefetch[list[float]]:
    return deps.memo("query_prefetch",
                     lambda: Prefetch[list[float]]("palace-embed", 32, on_thread=deps.enter_turn_thread))


def prefetch_query(deps: Deps, turn: Turn) -> None:
    """Embed the turn's message now (ingest calls this): it runs beside the graph's steps and recall's reads of
    the short-term window, the tasks and the outbox, instead of after them, on the path to the answer."""
    _queries(deps).start(turn["id"], lambda: deps.embeddings.embed_query(turn["message"]))


class _Prefetched:
    """``embedder`` with the message's query vector already under way."""

    def __init__(self, embedder: Embedder, message: str, vector: Future[list[float]]) -> None:
        self._embedder, self._message, self._vector = embedder, message, vector

    def embed_query(self, text: str) -> list[float]:
        return self._vector.result() if text == self._message else self._embedder.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed_documents(texts)


def _flush_outbox(deps: Deps, ltm: LongTermMemory, user: str, degraded: dict[str, Any]) -> None:
    """Writes that waited for Qdrant go in before this turn reads, so it recalls them."""
    try:
        deps.outbox().flush(ltm, user)
    except ServiceUnavailableError as exc:
        if exc.service == "Qdrant":
            raise
        log.warning("outbox not flushed: %s", exc)
        degraded["outbox"] = {"error": str(exc)}


def make_recall(deps: Deps) -> Any:
    def recall_node(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
        s = deps.settings
        turn = turn_of(state)
        user, session = turn["user_id"], turn["session_id"]
        vector = _queries(deps).take(turn["id"])
        embeddings = deps.embeddings if vector is None else _Prefetched(deps.embeddings, turn["message"], vector)
        window = deps.short_term().window(user, session)
        entries = [{"role": e.role, "content": e.content, "ts": e.ts} for e in window.entries if e.id != turn["id"]]
        degraded: dict[str, Any] = dict(state.get("degraded") or {})
        try:
            tasks = [t.model_dump(mode="json", exclude={"history"})
                     for t in deps.tasks().list_tasks(user, status="active")]
        except ServiceUnavailableError as exc:  # answer without the task list rather than not at all
            log.warning("recall without tasks: %s", exc)
            tasks, degraded["tasks"] = [], str(exc)
        try:
            ltm = deps.long_term()
            _flush_outbox(deps, ltm, user, degraded)
            result = recall(ltm, embeddings, user, turn["message"], clock(turn),
                            search_k=s.search_top_k, top_k=s.recall_top_k, config=deps.ranking(),
                            time_filter=asks(turn["message"]))
        except ServiceUnavailableError as exc:
            if exc.service != "Qdrant":
                raise
            log.warning("recall unavailable: %s", exc)
            degraded["recall"] = str(exc)
            return {"window": entries, "tasks": tasks, "recalled": [], "time_window": None, "degraded": degraded}
        recalled = [
            RecalledMemory(id=r.memory.id, text=r.memory.text, timestamp=r.memory.timestamp,
                           event_time=r.memory.event_time, score=r.breakdown.score,
                           relevance=r.breakdown.relevance, cosine=r.breakdown.cosine, lexical=r.breakdown.lexical,
                           decay=r.breakdown.decay, weight=r.breakdown.weight, boost=r.breakdown.boost,
                           chain=r.chain)
            for r in result.memories
        ]
        time_window = None
        if result.window is not None:
            time_window = {"phrase": result.window.phrase, "start": result.window.start.isoformat(),
                           "end": result.window.end.isoformat()}
        return {"window": entries, "tasks": tasks, "recalled": recalled, "time_window": time_window,
                "degraded": degraded}

    return recall_node
