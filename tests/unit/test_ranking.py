"""Property tests of the ranking formula (DESIGN.md "Ranking")."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from memory.ranking import DAY_MS, RankingConfig, rank_memories, reference_boost, score_memory, time_decay

NOW = 1_780_000_000_000
cfg = RankingConfig()
ages = st.floats(min_value=0, max_value=3650, allow_nan=False)
cosines = st.floats(min_value=-1, max_value=1, allow_nan=False)
refs = st.integers(min_value=0, max_value=10**6)


def at(age_days: float) -> int:
    return NOW - int(age_days * DAY_MS)


def test_seed_figures() -> None:
    assert score_memory(1.0, at(0), NOW).score == 1.0
    assert math.isclose(score_memory(1.0, at(30), NOW).score, 0.25)
    assert score_memory(1.0, at(180), NOW).score < 0.01
    assert math.isclose(time_decay(29.999, cfg), 0.5 ** (29.999 / 30))


@given(cosines, ages, refs)
def test_importance_doubles_the_score(cos: float, age: float, ref: int) -> None:
    plain = score_memory(cos, at(age), NOW, ref_count=ref).score
    important = score_memory(cos, at(age), NOW, ref_count=ref, decay_weight=2.0).score
    assert math.isclose(important, 2 * plain, rel_tol=1e-12, abs_tol=1e-300)


@given(refs)
def test_reference_boost_is_bounded_and_starts_at_one(ref: int) -> None:
    assert reference_boost(0, cfg) == 1.0
    assert 1.0 <= reference_boost(ref, cfg) <= cfg.ref_boost_max
    assert reference_boost(ref + 1, cfg) >= reference_boost(ref, cfg)


@given(cosines, ages, st.floats(min_value=0, max_value=10), refs)
def test_never_negative(cos: float, age: float, weight: float, ref: int) -> None:
    b = score_memory(cos, at(age), NOW, decay_weight=weight, ref_count=ref)
    assert b.score >= 0


@given(st.floats(min_value=0, max_value=1), ages, ages)
def test_monotone_in_age(cos: float, a: float, b: float) -> None:
    younger, older = sorted((a, b))
    assert score_memory(cos, at(younger), NOW).score >= score_memory(cos, at(older), NOW).score


def test_future_timestamps_do_not_decay_and_past_windows_can_skip_decay() -> None:
    assert score_memory(0.9, NOW + DAY_MS, NOW).decay == 1.0
    b = score_memory(0.9, at(200), NOW, apply_decay=False)
    assert b.decay == 1.0 and math.isclose(b.score, 0.9)


def test_breakdown_multiplies_out() -> None:
    b = score_memory(0.8, at(10), NOW, decay_weight=2.0, ref_count=5)
    assert math.isclose(b.score, b.cosine * b.decay * b.weight * b.boost)
    assert math.isclose(b.boost, 1.25)
    assert math.isclose(b.age_days, 10, rel_tol=1e-9)


def test_nan_cosine_scores_zero() -> None:
    assert score_memory(float("nan"), NOW, NOW).score == 0.0


def test_rank_memories_orders_and_truncates() -> None:
    items = [("old", 0.9, 60), ("new", 0.7, 0), ("mid", 0.8, 10)]
    ranked = rank_memories(items, lambda it: score_memory(it[1], at(it[2]), NOW), top_k=2)
    assert [it[0] for it, _ in ranked] == ["new", "mid"]
    assert rank_memories(items, lambda it: score_memory(it[1], at(it[2]), NOW), top_k=0) == []
