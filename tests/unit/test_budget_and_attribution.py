"""Pure logic of a turn: the prompt budget, which memories an answer used, yes/no, timestamps, tokens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.budget import fit_budget
from memory.errors import InvalidInputError
from memory.language.attribution import used_memories
from memory.language.temporal import parse_timestamp
from memory.tokens import count_tokens, truncate_tokens
from nodes.confirm import parse_confirmation
from nodes.fact_check import marks_important

tokens = st.lists(st.integers(min_value=0, max_value=400), max_size=30)


@given(fixed=st.integers(0, 4000), window=tokens, memories=tokens, budget=st.integers(1, 5000),
       window_budget=st.none() | st.integers(1, 3000))
def test_budget_plan_fits_and_trims_window_before_memories(fixed: int, window: list[int], memories: list[int],
                                                          budget: int, window_budget: int | None) -> None:
    plan = fit_budget(fixed, window, memories, budget, window_budget=window_budget)
    kept_window = window[len(window) - plan.window_kept:] if plan.window_kept else []
    assert plan.tokens == fixed + sum(kept_window) + sum(memories[:plan.memories_kept])
    if fixed <= budget:
        assert plan.tokens <= budget
    if plan.memories_kept < len(memories):
        assert plan.window_kept == 0  # memories go only once the window is gone
    if window_budget is not None:
        assert sum(kept_window) <= window_budget
    if fixed + sum(window) + sum(memories) <= budget and (window_budget is None or sum(window) <= window_budget):
        assert (plan.window_kept, plan.memories_kept) == (len(window), len(memories))


def test_budget_keeps_the_newest_window_entries() -> None:
    plan = fit_budget(100, [50, 50, 50, 50], [20, 20], 260)
    assert (plan.window_kept, plan.memories_kept, plan.tokens) == (2, 2, 240)
    plan = fit_budget(100, [50], [40, 40, 40], 190)
    assert (plan.window_kept, plan.memories_kept) == (0, 2)
    capped = fit_budget(100, [50, 50, 50, 50], [20, 20], 1000, window_budget=120)
    assert (capped.window_kept, capped.memories_kept) == (2, 2)
    over = fit_budget(500, [10], [10], 100)
    assert over.over and (over.window_kept, over.memories_kept) == (0, 0)
    with pytest.raises(ValueError):
        fit_budget(1, [], [], 0)


def test_used_memories_in_english_and_chinese() -> None:
    memories = ["The user lives in Hangzhou near West Lake", "用户在海底捞请客户王总吃饭", "The user likes green tea"]
    assert used_memories("You live in Hangzhou, close to West Lake.", memories) == [0]
    assert used_memories("你端午节在海底捞请了王总。", memories) == [1]
    assert used_memories("I don't know.", memories) == []


@pytest.mark.parametrize(("value", "expected"), [
    ("yes", "yes"), ("Yes.", "yes"), ("是", "yes"), ("确认", "yes"), (True, "yes"), ({"accept": True}, "yes"),
    ("no", "no"), ("否", "no"), ("不对", "no"), (False, "no"), ({"answer": "no"}, "no"),
    ("both", "both"), ("Keep both", "both"), ("都要", "both"), ("两个都保留", "both"), ({"answer": "both"}, "both"),
    ("maybe", None), ("", None), (3, None), ({"other": 1}, None), ("yes and no", None),
])
def test_parse_confirmation(value: object, expected: str | None) -> None:
    assert parse_confirmation(value) is expected


def test_marks_important() -> None:
    assert marks_important("Remember this: my passport ends in 42")
    assert marks_important("这个很重要")
    assert marks_important("记住我的车位号")
    assert not marks_important("I had tea")


def test_parse_timestamp() -> None:
    tz = ZoneInfo("Asia/Shanghai")
    assert parse_timestamp("2026-06-19", tz) == datetime(2026, 6, 19, tzinfo=tz)
    assert parse_timestamp("2026-06-19T12:30Z", tz) == datetime(2026, 6, 19, 12, 30, tzinfo=UTC)
    assert parse_timestamp("2026-06-19T12:30+02:00", tz).utcoffset() == timedelta(hours=2)
    for bad in ("", "yesterday", "2026-13-01", "1900-01-01"):
        with pytest.raises(InvalidInputError):
            parse_timestamp(bad, tz)


@given(st.text(max_size=300), st.integers(1, 60))
def test_truncate_tokens_never_exceeds_by_more_than_the_ellipsis(text: str, limit: int) -> None:
    cut = truncate_tokens(text, limit)
    assert count_tokens(cut) <= limit + 1
    if count_tokens(text) <= limit:
        assert cut == text


def test_a_memory_repeated_in_answer_to_something_else_is_not_used() -> None:
    """A small model repeats a memory it was shown whatever the message: that is not a use, or the memory it
    keeps repeating would rank above the ones each question is about."""
    from memory.language.attribution import used_for

    memories = ["My dentist is Dr Okafor.", "I'm left-handed.", "Our dog is called Biscuit."]
    # answering a statement with an unrelated memory: no use
    assert used_for("Our wedding anniversary is in June.", "You're left-handed.", memories) == []
    # the first recalled memory, or one sharing a word with the message: a use
    assert used_for("Who is my dentist?", "Your dentist is Dr Okafor.", memories) == [0]
    assert used_for("What's my dog called again?", "Your dog is called Biscuit.", memories) == [2]
    assert used_for("我家的狗叫什么？", "你家的狗叫饼干。", ["我的牙医是王医生。", "我家的狗叫饼干。"]) == [1]
