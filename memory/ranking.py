"""The ranking of DESIGN.md as pure functions.

    score = max(0, cosine) x 0.5^(max(0, age_days) / half_life) x (stale_factor if age_days >= stale_after else 1)
            x decay_weight x reference_boost(ref_count)

With the defaults: 1.0 at age 0, 0.25 at 30 days, < 0.01 at 180 days; importance 2.0 doubles a memory; the
reference boost grows with use and is bounded by ``ref_boost_max``.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class ScoreBreakdown:
    """Why a memory ranks where it does; every recalled memory carries one."""

    cosine: float
    age_days: float
    decay: float
    weight: float
    boost: float
    score: float


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
    return ScoreBreakdown(cosine=cosine, age_days=age_days, decay=decay, weight=weight, boost=boost, score=score)


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
