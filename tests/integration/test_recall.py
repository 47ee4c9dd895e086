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


ZH_FACTS = ["我女儿小雨对花生过敏。", "我有一个女儿叫小雨，今年五岁。", "我的生日是3月14日。", "我喜欢爬山。",
            "我在字节跳动工作。", "我不喜欢香菜。", "我每天早上喝咖啡。", "我有一只猫叫花花。", "我周末常去西湖散步。",
            "我的护照号码尾号是4711。", "我上个月去了成都出差。", "我最喜欢的书是《红楼梦》。"]
EN_FACTS = ["My daughter Lily is allergic to peanuts.", "I have a daughter called Lily, she is five.",
            "My birthday is on March 14th.", "I love hiking.", "I work at ByteDance.", "I hate coriander.",
            "I drink coffee every morning.", "I have a cat called Mimi.", "I walk by the lake on weekends.",
            "My passport number ends in 4711.", "I went to Chengdu on business last month.",
            "My favourite book is Dune."]


@pytest.mark.parametrize(("facts", "answer", "question"), [
    (ZH_FACTS, "My wife's name is Lin.", "我妻子叫什么名字？"),  # a helper's trial: not among the five recalled
    (ZH_FACTS, "I live in Beijing.", "我住在哪里？"),
    (EN_FACTS, "我老婆叫林芳。", "What is my wife's name?"),
    (EN_FACTS, "我最喜欢的电影是《霸王别姬》。", "What is my favourite film?"),
])
def test_a_fact_told_in_the_other_language_is_recalled_first(ltm: LongTermMemory, facts: list[str], answer: str,
                                                              question: str) -> None:
    for n, fact in enumerate(facts):
        remember(ltm, "u", fact, NOW - timedelta(days=n + 2))
    remember(ltm, "u", answer, NOW - timedelta(days=30))
    result = recall(ltm, e5, "u", question, NOW)
    assert result.memories[0].memory.text == answer, [r.memory.text for r in result.memories]


def test_the_other_languages_memory_of_another_slot_gets_no_help(ltm: LongTermMemory) -> None:
    for n, fact in enumerate(ZH_FACTS):
        remember(ltm, "u", fact, NOW - timedelta(days=n + 2))
    remember(ltm, "u", "My wife's name is Lin.", NOW - timedelta(days=30))
    result = recall(ltm, e5, "u", "我在哪里工作？", NOW)
    assert result.memories[0].memory.text == "我在字节跳动工作。"


@pytest.mark.parametrize(("told", "asked"), [
    ("Next Friday I'm flying to Tokyo for a conference.", "Where am I going next Friday?"),
    ("下周五我要飞去东京开会。", "我下周五要去哪里？"),
])
def test_a_plan_is_dated_ahead_and_found_by_its_day(ltm: LongTermMemory, told: str, asked: str) -> None:
    from memory.language.temporal import event_time_ms

    told_at = NOW - timedelta(days=1)  # a Tuesday; the question on Wednesday means the same Friday
    remember(ltm, "u", told, told_at, event_time=event_time_ms(told_at, told))
    remember(ltm, "u", "I had lunch with a client last Friday." if told.isascii() else "上周五我和客户吃了午饭。",
             NOW - timedelta(days=5), event_time=ms(NOW - timedelta(days=5)))
    result = recall(ltm, e5, "u", asked, NOW)
    assert result.window is not None and result.window.start > NOW
    assert [r.memory.text for r in result.memories] == [told]
