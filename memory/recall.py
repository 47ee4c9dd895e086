"""Long-term recall for one question: time intent, Qdrant top-k for the user, rerank with the ranking formula.

A question about a past window ("what did I say last month", "我端午节在哪家餐厅请的客户") searches inside the
window and is not decayed there: within the window the user asked for, age is not a penalty. Any other question
is ranked with the time decay, so among memories saying the same thing the newest wins; superseded and disputed
memories are never searched unless asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from langchain_core.embeddings import Embeddings

from memory.long_term import Hit, LongTermMemory, Memory
from memory.ranking import RankingConfig, ScoreBreakdown, rank_memories, score_memory
from memory.temporal import TimeWindow, parse_time_window


@dataclass(frozen=True)
class Recalled:
    memory: Memory
    breakdown: ScoreBreakdown


@dataclass(frozen=True)
class RecallResult:
    memories: list[Recalled]
    window: TimeWindow | None  # the time the question is about, if any
    searched: int  # candidates Qdrant returned before reranking


def rerank(hits: Sequence[Hit], now_ms: int, *, in_window: bool, top_k: int,
           config: RankingConfig | None = None) -> list[Recalled]:
    """Score hits with the ranking formula (no decay inside an asked-for window) and keep ``top_k``."""
    cfg = config or RankingConfig()
    ranked = rank_memories(
        hits,
        lambda h: score_memory(h.cosine, h.memory.timestamp, now_ms, decay_weight=h.memory.decay_weight,
                               ref_count=h.memory.ref_count, config=cfg, apply_decay=not in_window),
        top_k=top_k,
    )
    return [Recalled(memory=h.memory, breakdown=b) for h, b in ranked]


def recall(ltm: LongTermMemory, embeddings: Embeddings, user_id: str, question: str, now: datetime, *,
           search_k: int = 20, top_k: int = 5, config: RankingConfig | None = None) -> RecallResult:
    """The ``top_k`` memories of ``user_id`` for ``question`` at ``now`` (timezone-aware: the user's clock)."""
    window = parse_time_window(question, now)
    vector = embeddings.embed_query(question)
    hits = ltm.search(user_id, vector, limit=search_k, window=window.ms() if window else None)
    now_ms = int(now.timestamp() * 1000)
    return RecallResult(memories=rerank(hits, now_ms, in_window=window is not None, top_k=top_k, config=config),
                        window=window, searched=len(hits))
