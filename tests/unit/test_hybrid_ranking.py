"""The product's ranking (memory.ranking.score_hybrid) and time intent: properties, not timings."""

from __future__ import annotations

import math
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.language.temporal import time_intent
from memory.long_term import HybridHit, Memory
from memory.ranking import DAY_MS, Candidate, RankingConfig, on_topic, score_hybrid, sort_key, time_decay
from memory.recall import slot_topic, with_changes

NOW = 1_780_000_000_000
cfg = RankingConfig()
scores = st.floats(min_value=-1, max_value=1, allow_nan=False)
lexicals = st.one_of(st.none(), st.floats(min_value=0, max_value=50, allow_nan=False))
ages = st.floats(min_value=0, max_value=2000, allow_nan=False)


def cand(cos: float | None, lex: float | None, age_days: float = 0.0, session: str = "s", offset_ms: int = 0,
         weight: float = 1.0, refs: int = 0) -> Candidate:
    return Candidate(cosine=cos, lexical=lex, session_id=session,
                     timestamp_ms=NOW - int(age_days * DAY_MS) + offset_ms, decay_weight=weight, ref_count=refs)


@given(st.lists(st.tuples(scores, lexicals, ages), min_size=1, max_size=30), st.floats(0, 1))
def test_scores_are_finite_bounded_and_in_input_order(rows: list[tuple[float, float | None, float]],
                                                      floor: float) -> None:
    cands = [cand(c, lex, a, session=f"s{i}") for i, (c, lex, a) in enumerate(rows)]
    out = score_hybrid(cands, NOW, decay_floor=floor)
    assert len(out) == len(cands)
    for c, b in zip(cands, out, strict=True):
        assert math.isfinite(b.score) and 0 <= b.relevance <= 1 and floor - 1e-12 <= b.decay <= 1
        assert b.lexical == c.lexical
        assert b.score == pytest.approx(b.relevance * b.decay * b.weight * b.boost)


@given(st.lists(st.tuples(scores, lexicals, ages), min_size=2, max_size=20), st.integers(0, 19))
def test_importance_doubles_a_memory(rows: list[tuple[float, float | None, float]], pick: int) -> None:
    i = pick % len(rows)
    plain = [cand(c, lex, a, session=f"s{j}") for j, (c, lex, a) in enumerate(rows)]
    important = list(plain)
    important[i] = cand(rows[i][0], rows[i][1], rows[i][2], session=f"s{i}", weight=2.0)
    a = score_hybrid(plain, NOW, decay_floor=cfg.decay_floor)[i].score
    b = score_hybrid(important, NOW, decay_floor=cfg.decay_floor)[i].score
    assert b == pytest.approx(2 * a)


@given(ages)
def test_past_questions_are_not_decayed_and_the_default_never_takes_more_than_the_floor(age: float) -> None:
    [past] = score_hybrid([cand(0.9, 3.0, age)], NOW, decay_floor=1.0)
    assert past.decay == 1.0
    [default] = score_hybrid([cand(0.9, 3.0, age)], NOW, decay_floor=cfg.decay_floor)
    assert default.decay >= cfg.decay_floor
    [present] = score_hybrid([cand(0.9, 3.0, age)], NOW, decay_floor=cfg.decay_floor, present=True)
    assert present.on_topic and present.decay == pytest.approx(time_decay(age, cfg))  # on topic: full decay


def test_present_orders_the_topic_by_recency_and_puts_the_rest_after_it() -> None:
    # the example: moved two weeks ago, an old address, yesterday's lunch (no shared word, close cosine)
    moved, old, lunch = cand(0.80, 4.0, 14, "a"), cand(0.82, 4.2, 120, "b"), cand(0.83, None, 1, "c")
    out = score_hybrid([moved, old, lunch], NOW, decay_floor=cfg.decay_floor, present=True)
    assert [b.on_topic for b in out] == [True, True, False]
    order = sorted(range(3), key=lambda i: sort_key(out[i]), reverse=True)
    assert order == [0, 1, 2]
    assert out[0].relevance == out[1].relevance  # equally relevant: recency decides
    assert out[2].decay >= cfg.decay_floor  # off topic: the default decay, not the seed's
    assert all(b.on_topic is None for b in score_hybrid([moved, old, lunch], NOW, decay_floor=0.8))


@given(st.lists(st.tuples(scores, lexicals), min_size=1, max_size=20),
       st.lists(st.tuples(scores, ages), max_size=30))
def test_adding_candidates_that_share_no_word_never_changes_the_topic(rows: list[tuple[float, float | None]],
                                                                   noise: list[tuple[float, float]]) -> None:
    dense = [c for c, _ in rows]
    lexical = [lex or 0.0 for _, lex in rows]
    before = on_topic(dense, lexical, cfg)
    after = on_topic(dense + [c for c, _ in noise], lexical + [0.0] * len(noise), cfg)
    if max(lexical) > 0:  # the question shares a word with some memory: the topic is decided by words
        assert after[:len(rows)] == before and not any(after[len(rows):])


def test_same_text_the_newest_wins_and_an_old_relevant_memory_survives() -> None:
    same = score_hybrid([cand(0.9, 5.0, 200, "a"), cand(0.9, 5.0, 1, "b")], NOW, decay_floor=cfg.decay_floor)
    assert same[1].score > same[0].score
    # an old memory that answers the question beats a recent one that does not
    mixed = score_hybrid([cand(0.92, 12.0, 200, "a"), cand(0.80, 0.5, 1, "b"), cand(0.81, None, 2, "c")], NOW,
                         decay_floor=cfg.decay_floor)
    assert mixed[0].score > mixed[1].score and mixed[0].score > mixed[2].score


def test_what_was_said_around_a_memory_supports_it() -> None:
    # two candidates equal on their own; one sits right after a strong match in the same conversation
    strong = cand(0.95, 20.0, 10, "talk")
    follow_up = cand(0.85, 1.0, 10, "talk", offset_ms=30_000)
    alone = cand(0.85, 1.0, 10, "other")
    far = cand(0.5, 0.0, 10, "talk", offset_ms=3_600_000)  # same session, an hour later: not a neighbour
    out = score_hybrid([strong, follow_up, alone, far], NOW, decay_floor=1.0)
    assert out[1].score > out[2].score
    assert out[1].context is not None and out[2].context is None and out[3].context is None


def test_candidates_one_search_missed_and_degenerate_lists() -> None:
    out = score_hybrid([cand(None, 4.0), cand(0.9, None)], NOW, decay_floor=1.0)
    assert out[0].cosine == 0.9 and out[1].lexical is None  # the missing cosine is the lowest seen
    assert score_hybrid([], NOW, decay_floor=1.0) == []
    [one] = score_hybrid([cand(0.9, None)], NOW, decay_floor=1.0)
    assert one.relevance == pytest.approx(0.5)  # nothing to compare with: neutral


@pytest.mark.parametrize(("question", "intent"), [
    ("Where do I live now?", "present"),
    ("What is my current job?", "present"),
    ("我现在住在哪里？", "present"),
    ("我最近在哪家餐厅请的客户？", "present"),
    ("When did Caroline go to the support group?", "past"),
    ("Did I ever tell you about my sister?", "past"),
    ("我曾经和你推荐过一部科幻电影，它的名字是？", "past"),
    ("我上次和王总聊了什么？", "past"),
    ("What does Melanie like to paint?", None),
    ("我喜欢喝什么茶", None),
    ("", None),
])
def test_time_intent_in_english_and_chinese(question: str, intent: str | None) -> None:
    assert time_intent(question) == intent


def _hit(text: str, lexical: float | None) -> HybridHit:
    return HybridHit(memory=Memory(id=str(uuid.uuid4()), text=text, user_id="u", session_id="s", timestamp=0),
                     cosine=0.8, lexical=lexical)


@pytest.mark.parametrize(("question", "text", "is_change"), [
    ("where do I live now?", "I moved to Shanghai", True),
    ("where do I live now?", "We're moving into a flat in Pudong next month", True),
    ("where do I live now?", "Meeting with the design team moved to Friday", False),
    ("where do I live now?", "We moved the meeting to Monday", False),
    ("where do I live now?", "The launch moved to next week", False),
    ("我现在住在哪里？", "我搬到上海了", True),
    ("我现在住在哪里？", "会议改到周五了", False),
    ("what is my job now?", "I joined Alibaba last week", True),
    ("我现在在哪里工作？", "我上周入职了阿里巴巴", True),
    ("what car do I drive now?", "I moved to Shanghai", False),  # not the state the question asks about
])
def test_a_memory_stating_the_change_a_present_question_asks_about_shares_its_words(question: str, text: str,
                                                                                    is_change: bool) -> None:
    hits = with_changes(question, [_hit("I live in Hangzhou", 2.0), _hit(text, None)])
    assert (hits[1].lexical == 2.0) is is_change
    assert hits[0].lexical == 2.0


def _said(text: str) -> HybridHit:
    return HybridHit(memory=Memory(id=str(uuid.uuid4()), text=text, user_id="u", session_id="s", timestamp=NOW),
                     cosine=0.5, lexical=None)


_SLOT_TEXTS = ("My wife's name is Lin.", "我妻子叫林芳", "我有一个女儿叫小雨", "My wife likes green tea", "我喜欢喝茶",
               "I live in Shanghai now", "我住在北京", "The meeting moved to Friday", "12345", "")


@given(st.lists(st.sampled_from(_SLOT_TEXTS), max_size=12),
       st.sampled_from(("我妻子叫什么名字？", "What is my wife's name?", "where do I live?", "我住在哪里？", "hello")))
def test_slot_topic_is_the_topic_only_when_a_hit_in_the_other_language_holds_the_asked_slot(texts: list[str],
                                                                                            question: str) -> None:
    from memory.language.slots import asked_slots, held_slots
    from memory.language.text import language

    hits = [_said(t) for t in texts]
    asked, said_in = asked_slots(question), language(question)
    # "The meeting moved to Friday" names nobody: the slot table's "moved" is no one's home
    topic = [bool(held_slots(t) & asked) and t != "The meeting moved to Friday" for t in texts]
    across = any(on and language(t) not in (said_in, "") for t, on in zip(texts, topic, strict=True))
    assert slot_topic(question, hits) == (topic if asked and said_in and across else None)


def test_slot_topic_examples() -> None:
    wife_en, wife_zh, daughter = _said("My wife's name is Lin."), _said("我妻子叫林芳"), _said("我有一个女儿叫小雨")
    assert slot_topic("我妻子叫什么名字？", [daughter, wife_en]) == [False, True]
    assert slot_topic("我妻子叫什么名字？", [daughter, wife_zh]) is None  # all in the question's language
    assert slot_topic("What is my wife's name?", [wife_en, daughter, wife_zh]) == [True, False, True]
