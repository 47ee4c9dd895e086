"""The ranking of DESIGN.md as pure functions.

The seed's formula (:func:`score_memory`, kept for the benchmarks' "cosine + decay" system):

    score = max(0, cosine) x 0.5^(max(0, age_days) / half_life) x (stale_factor if age_days >= stale_after else 1)
            x decay_weight x reference_boost(ref_count)

With the defaults: 1.0 at age 0, 0.25 at 30 days, < 0.01 at 180 days; importance 2.0 doubles a memory; the
reference boost grows with use and is bounded by ``ref_boost_max``.

The product's ranking (:func:`score_hybrid`) keeps decay, weight and boost but changes what they multiply and how
hard recency may pull (measured on LoCoMo, ``python -m bench locomo``: the seed's decay applied blindly buries
every memory older than a few weeks, which is exactly what questions about the past ask for):

    relevance = logistic( w x z(cosine) + (1 - w) x z(bm25^p)                     # hybrid, z over the candidates
                          + context_weight x max fused score of the memories recorded in the same session
                            within context_window of it )                           # what was said around it
    recency   = floor + (1 - floor) x seed_decay(age)                               # floor by time intent
    score     = relevance x recency x decay_weight x reference_boost

BM25 is squared (``lexical_power`` p = 2) before its z-score: over one search's candidates its scores are a
long tail of weak matches (a name, a common word) under a few strong ones, and z-scores of the raw scores give
the weak tail too much of the strong matches' weight. Squaring widens the gap between a memory that matches
the question's rare words and one that matches its common ones (LoCoMo R@5 63.4 -> 66.3 at p = 2, every
category up; ``bench/REPORT.md``). The on-topic test of a present question reads the raw BM25 scores.

The floor is 1.0 (no decay) for a question about the past and ``decay_floor`` otherwise: recency then costs an
old memory at most 20 %, so among memories saying the same thing the newest still wins, but an old memory the
question is about stays.

A question about the present ("where do I live now", "现在", "最近") wants the newest memory *about the question*,
never merely the newest memory. Recency therefore orders only the memories on topic (:func:`on_topic`): those
that share at least ``present_lexical_share`` of the best BM25 score among the candidates and whose cosine is
within ``present_cosine_margin`` of the best such memory's (or, when no candidate shares a word with the
question, those within ``present_cosine_tie`` of the best cosine). On-topic memories count as equally relevant
(the best one's relevance) and are ordered by the seed's full decay, importance and use: the newest wins. Every
other candidate ranks after them by its own relevance and the default decay. Both tests read raw scores (a
share of the best BM25, a cosine gap), never z-scores over the candidates, so adding unrelated memories to the
store cannot move a memory into or out of the topic: an unrelated memory shares no word with the question and
is never on topic, whatever its cosine (the bundled e5 puts unrelated texts within 0.05 of related ones). The
cosine margins are in the bundled e5's units; another embedder may need its own (``PALACE_PRESENT_COSINE_*``).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

DAY_MS = 86_400_000


@dataclass(frozen=True)
class RankingConfig:
    half_life_days: float = 30.0
    stale_after_days: float = 30.0
    stale_factor: float = 0.5
    ref_boost_max: float = 1.5
    ref_boost_half_refs: float = 5.0  # ref_count at which half of the maximum extra boost is reached
    dense_weight: float = 0.5  # share of the cosine in the hybrid relevance; the rest is BM25
    lexical_power: float = 2.0  # BM25 scores are raised to this power before the z-scores (module docstring)
    context_weight: float = 0.5  # how much the best neighbour in the conversation adds
    context_window_ms: int = 60_000  # neighbours: same session, recorded within this of each other
    decay_floor: float = 0.8  # recency never takes more than 1 - floor of a memory's relevance (no time intent)
    present_lexical_share: float = 0.5  # on topic (present questions): at least this share of the best BM25 ...
    present_cosine_margin: float = 0.1  # ... and a cosine at most this far below the best such memory's
    present_cosine_tie: float = 0.01  # no candidate shares a word with the question: within this of the best cosine
    link_cosine_margin: float = 0.04  # a follower ranks above the memory it follows within this cosine of it
    link_named_margin: float = 0.1  # ... within this when the two share an entity (memory/language/links.py)
    # of two memories about one person that stand out for a question, the newer first (recall.restated), for any
    # question; off, only for a question about now. For every question it cost LoCoMo R@5 on its first
    # conversation 64.2 -> 48.2 (a speaker's turns all say whom)
    restatements: bool = False


@dataclass(frozen=True)
class ScoreBreakdown:
    """Why a memory ranks where it does; every recalled memory carries one.

    ``decay`` is the recency factor applied; ``relevance`` what it multiplied (the cosine in the seed's
    formula, the hybrid relevance in the product's); ``lexical`` the BM25 score and ``context`` the neighbour's
    fused score, where the hybrid ranking computed them."""

    cosine: float
    age_days: float
    decay: float
    weight: float
    boost: float
    score: float
    relevance: float = 0.0
    lexical: float | None = None
    context: float | None = None
    on_topic: bool | None = None  # present questions only: whether recency may order it (module docstring)


def time_decay(age_days: float, config: RankingConfig) -> float:
    """0.5^(age/half_life), times the stale factor once a memory is ``stale_after_days`` old. 1.0 for the future."""
    age = max(0.0, age_days)
    decay: float = 0.5 ** (age / config.half_life_days)
    if age >= config.stale_after_days:
        decay *= config.stale_factor
    return decay


def reference_boost(ref_count: int, config: RankingConfig) -> float:
    """1.0 for an unused memory, rising towards ``ref_boost_max`` as it is used; monotone and bounded."""
    refs = max(0, ref_count)
    return 1.0 + (config.ref_boost_max - 1.0) * refs / (refs + config.ref_boost_half_refs)


def score_memory(
    cosine: float,
    timestamp_ms: int,
    now_ms: int,
    *,
    decay_weight: float = 1.0,
    ref_count: int = 0,
    config: RankingConfig | None = None,
    apply_decay: bool = True,
) -> ScoreBreakdown:
    """Score one memory. ``apply_decay=False`` is for questions about a past window: no decay inside it."""
    cfg = config or RankingConfig()
    if not math.isfinite(cosine):
        cosine = 0.0
    age_days = (now_ms - timestamp_ms) / DAY_MS
    decay = time_decay(age_days, cfg) if apply_decay else 1.0
    weight = max(0.0, decay_weight)
    boost = reference_boost(ref_count, cfg)
    score = max(0.0, cosine) * decay * weight * boost
    return ScoreBreakdown(cosine=cosine, age_days=age_days, decay=decay, weight=weight, boost=boost, score=score,
                          relevance=max(0.0, cosine))


@dataclass(frozen=True)
class Candidate:
    """What the hybrid ranking needs of one memory: its two search scores (None: not returned by that search)."""

    cosine: float | None
    lexical: float | None
    session_id: str
    timestamp_ms: int
    decay_weight: float = 1.0
    ref_count: int = 0


def _zscores(values: Sequence[float]) -> list[float]:
    n = len(values)
    if n == 0:
        return []
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    if not std > 1e-12:
        return [0.0] * n
    return [(v - mean) / std for v in values]


def _logistic(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def score_hybrid(candidates: Sequence[Candidate], now_ms: int, *, decay_floor: float, present: bool = False,
                 config: RankingConfig | None = None, topic: Sequence[bool] | None = None) -> list[ScoreBreakdown]:
    """The product's ranking of one search's candidates (module docstring), in input order.

    ``decay_floor`` comes from the question's time intent: 1.0 no decay, else the share recency never takes.
    ``present`` (a question about now): the on-topic memories are ordered by the seed's full decay, the others
    follow (sort with :func:`sort_key`). A candidate one search missed gets that search's lowest score (cosine)
    or 0 (BM25: none of its terms weigh). ``topic``: which candidates the question is about, when the caller knows
    better than the scores (:func:`memory.recall.slot_topic`); they are ranked as a present question's are."""
    cfg = config or RankingConfig()
    if not candidates:
        return []
    floor = min(1.0, max(0.0, decay_floor))
    cosines = [c.cosine for c in candidates if c.cosine is not None and math.isfinite(c.cosine)]
    low_cosine = min(cosines) if cosines else 0.0
    dense = [c.cosine if c.cosine is not None and math.isfinite(c.cosine) else low_cosine for c in candidates]
    lexical = [c.lexical if c.lexical is not None and math.isfinite(c.lexical) else 0.0 for c in candidates]
    w = min(1.0, max(0.0, cfg.dense_weight))
    power = max(0.0, cfg.lexical_power)
    sharpened = [s ** power if s > 0 else 0.0 for s in lexical]
    fused = [w * d + (1 - w) * s for d, s in zip(_zscores(dense), _zscores(sharpened), strict=True)]
    lowest = min(fused)
    neighbours = _neighbour_scores(candidates, fused, cfg.context_window_ms)
    relevance = [_logistic(fused[i] + cfg.context_weight * (n if n is not None else lowest))
                 for i, n in enumerate(neighbours)]
    ordered = present or topic is not None
    topic = list(topic) if topic is not None else on_topic(dense, lexical, cfg) if present else [False] * len(
        candidates)
    band = max((r for r, t in zip(relevance, topic, strict=True) if t), default=0.0)
    out: list[ScoreBreakdown] = []
    for i, c in enumerate(candidates):
        age_days = (now_ms - c.timestamp_ms) / DAY_MS
        if topic[i]:  # as relevant as the best on-topic memory: recency, importance and use decide
            rel, decay = band, time_decay(age_days, cfg)
        else:
            rel, decay = relevance[i], floor + (1 - floor) * time_decay(age_days, cfg)
        weight = max(0.0, c.decay_weight)
        boost = reference_boost(c.ref_count, cfg)
        out.append(ScoreBreakdown(cosine=dense[i], age_days=age_days, decay=decay, weight=weight, boost=boost,
                                  score=rel * decay * weight * boost, relevance=rel, lexical=c.lexical,
                                  context=neighbours[i], on_topic=topic[i] if ordered else None))
    return out


def on_topic(dense: Sequence[float], lexical: Sequence[float], config: RankingConfig) -> list[bool]:
    """Which candidates a present question is about, from raw scores only (module docstring)."""
    best_lexical = max(lexical, default=0.0)
    if best_lexical > 0:
        # a memory sharing no word is never on topic (also when the share of a tiny best rounds to 0)
        shares = [s > 0 and s >= config.present_lexical_share * best_lexical for s in lexical]
        anchor = max(d for d, ok in zip(dense, shares, strict=True) if ok)
        return [ok and d >= anchor - config.present_cosine_margin for d, ok in zip(dense, shares, strict=True)]
    best = max(dense, default=0.0)
    return [d >= best - config.present_cosine_tie for d in dense]


def sort_key(b: ScoreBreakdown) -> tuple[bool, float, float]:
    """Best first with ``reverse=True``: on-topic memories before the rest, then score, then cosine."""
    return (b.on_topic is not False, b.score, b.cosine)


def _neighbour_scores(candidates: Sequence[Candidate], fused: Sequence[float], window_ms: int) -> list[float | None]:
    """For each candidate, the best fused score among the other candidates of its session recorded within
    ``window_ms`` of it (None: it has no such neighbour)."""
    sessions: dict[str, list[tuple[int, int]]] = {}
    for i, c in enumerate(candidates):
        sessions.setdefault(c.session_id, []).append((c.timestamp_ms, i))
    out: list[float | None] = [None] * len(candidates)
    for members in sessions.values():
        if len(members) < 2:
            continue
        members.sort()
        times = [t for t, _ in members]
        for t, i in members:
            lo, hi = bisect.bisect_left(times, t - window_ms), bisect.bisect_right(times, t + window_ms)
            scores = [fused[j] for _, j in members[lo:hi] if j != i]
            if scores:
                out[i] = max(scores)
    return out


T = TypeVar("T")


def rank_memories(
    items: Iterable[T],
    breakdown: Callable[[T], ScoreBreakdown],
    *,
    top_k: int,
) -> list[tuple[T, ScoreBreakdown]]:
    """Score every item, sort by score (ties: the higher cosine first), keep ``top_k``."""
    scored: Sequence[tuple[T, ScoreBreakdown]] = [(item, breakdown(item)) for item in items]
    ordered = sorted(scored, key=lambda pair: (pair[1].score, pair[1].cosine), reverse=True)
    return list(ordered[: max(0, top_k)])
