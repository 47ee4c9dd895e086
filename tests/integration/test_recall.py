"""Recall on real Qdrant with the real e5 embedder: time windows, decay, importance, isolation."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from qdrant_client import QdrantClient

from memory.embeddings import E5Embeddings
from memory.long_term import LongTermMemory, Memory, memory_id
from memory.recall import recall

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 7, 15, 15, 0, tzinfo=TZ)
e5 = E5Embeddings()


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


@pytest.fixture
def ltm(qdrant_client: QdrantClient) -> LongTermMemory:
    store = LongTermMemory(qdrant_client, f"r{uuid.uuid4().hex[:8]}")
    store.setup(384)
    return store


def remember(ltm: LongTermMemory, user: str, text: str, when: datetime, **extra: object) -> Memory:
    m = Memory(id=memory_id(user, text), text=text, user_id=user, session_id="s", timestamp=ms(when),
               **extra)  # type: ignore[arg-type]
    ltm.upsert([m], e5.embed_documents([text]))
    return m


def test_dragon_boat_question_finds_the_june_log_despite_its_age(ltm: LongTermMemory) -> None:
    remember(ltm, "u", "6月19日端午节在海底捞请客户王总吃饭", NOW - timedelta(days=26))
    remember(ltm, "u", "昨天在海底捞和同事聚餐", NOW - timedelta(days=1))
    remember(ltm, "u", "用户喜欢喝绿茶", NOW - timedelta(days=2))
    result = recall(ltm, e5, "u", "我端午节在哪家餐厅请的客户", NOW)
    assert result.window is not None and result.window.start.date().isoformat() == "2026-06-19"
    assert [r.memory.text for r in result.memories] == ["6月19日端午节在海底捞请客户王总吃饭"]
    assert result.memories[0].breakdown.decay == 1.0  # no decay inside the asked-for window


def test_last_month_question_searches_inside_the_month(ltm: LongTermMemory) -> None:
    remember(ltm, "u", "The second draft of the caching design uses Redis streams", datetime(2026, 6, 20, tzinfo=TZ))
    remember(ltm, "u", "The third draft of the caching design uses Kafka", datetime(2026, 7, 10, tzinfo=TZ))
    result = recall(ltm, e5, "u", "what was the caching design draft last month", NOW)
    assert [r.memory.text for r in result.memories] == ["The second draft of the caching design uses Redis streams"]


def test_present_question_prefers_the_newest_memory(ltm: LongTermMemory) -> None:
    remember(ltm, "u", "The user lives in Beijing", NOW - timedelta(days=90))
    remember(ltm, "u", "The user lives in Shanghai", NOW - timedelta(days=3))
    result = recall(ltm, e5, "u", "where do I live now", NOW)
    assert result.window is None
    assert result.memories[0].memory.text == "The user lives in Shanghai"
    b = result.memories[0].breakdown
    assert result.intent == "present" and b.decay > result.memories[1].breakdown.decay  # the seed's full decay
    assert b.score == pytest.approx(b.relevance * b.decay * b.weight * b.boost)


def test_superseded_memories_are_not_recalled_and_importance_lifts(ltm: LongTermMemory) -> None:
    remember(ltm, "u", "The user's manager is Alice", NOW - timedelta(days=40), status="superseded")
    remember(ltm, "u", "The user's manager is Bob", NOW - timedelta(days=40), decay_weight=2.0)
    remember(ltm, "u", "The user's manager's office is on floor 3", NOW - timedelta(days=40))
    result = recall(ltm, e5, "u", "who is my manager", NOW)
    texts = [r.memory.text for r in result.memories]
    assert "The user's manager is Alice" not in texts
    assert texts[0] == "The user's manager is Bob"


def test_recall_never_crosses_users(ltm: LongTermMemory) -> None:
    remember(ltm, "alice", "Alice's salary is 50k", NOW)
    remember(ltm, "bob", "Bob likes hiking", NOW)
    result = recall(ltm, e5, "bob", "what is my salary", NOW)
    assert {r.memory.user_id for r in result.memories} == {"bob"}


def test_a_window_that_holds_nothing_falls_back_to_every_memory(ltm: LongTermMemory) -> None:
    # "周六" reads as last Saturday; the user meant every Saturday, said ten days ago
    remember(ltm, "u", "我每周六打羽毛球。", NOW - timedelta(days=10))
    remember(ltm, "u", "我在律师事务所工作。", NOW - timedelta(days=30))
    result = recall(ltm, e5, "u", "我周六做什么运动？", NOW)
    assert result.window is None and result.memories[0].memory.text == "我每周六打羽毛球。"
    inside = recall(ltm, e5, "u", "我上个月做了什么？", NOW)  # a window that holds something still filters
    assert inside.window is not None and [r.memory.text for r in inside.memories] == ["我在律师事务所工作。"]
    # "last week" said nothing: that is the answer, not every memory (the trial's "What did I tell you last
    # week?" was answered with what the user had said four minutes before)
    for question in ("What did I tell you last week?", "上周我跟你说了什么？", "What did we talk about in March?"):
        empty = recall(ltm, e5, "u", question, NOW)
        assert empty.window is not None and empty.memories == [], question
    # what happened then may have been told later, without a time phrase: everything is ranked
    assert recall(ltm, e5, "u", "What did I do in March?", NOW).window is None
