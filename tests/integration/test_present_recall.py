"""A question about the present, on the real path (Qdrant Edge, the bundled e5, :func:`memory.recall.recall`).

Properties, English and Chinese: adding any number of unrelated newer memories never displaces the relevant
memory from the top, and among memories about the same thing the newest wins. "Unrelated" means a memory about
another topic that shares no content word with the question (a memory that shares one, like "I live for the
weekends" for "where do I live now", is not unrelated to a system that reads words).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import cache
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.embeddings import Embeddings

from memory.edge import EdgeClient
from memory.embeddings import E5Embeddings
from memory.long_term import LongTermMemory, Memory, memory_id
from memory.recall import recall

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 7, 15, 15, 0, tzinfo=TZ)

# (question, memories about the same thing: the newest must win)
TOPICS: list[tuple[str, list[str]]] = [
    ("where do I live now?", ["The user lives in Beijing", "The user lives in Hangzhou", "I live in Shanghai now",
                              "The user lives in Chengdu with his wife"]),
    ("what is my job now?", ["The user's job is nurse", "The user's job is software engineer at Alibaba"]),
    ("what car do I drive now?", ["The user drives a Toyota Corolla", "The user drives a Tesla Model 3"]),
    ("who is my manager now?", ["The user's manager is Alice", "The user's manager is Bob"]),
    ("what is my current phone?", ["The user's phone is an iPhone 12", "The user's phone is a Pixel 8"]),
    ("我现在住在哪里？", ["用户住在北京", "用户现在住在杭州", "我住在上海浦东"]),
    ("我现在在哪里工作？", ["用户在银行工作", "用户在阿里巴巴工作"]),
    ("我最近在学什么乐器？", ["用户在学钢琴", "用户最近在学小提琴"]),
]
UNRELATED = [
    "Had lunch with a client yesterday at Haidilao", "The user likes green tea", "The user's dog is called Max",
    "Went running in the park this morning", "The user's sister is getting married in October",
    "Meeting with the design team moved to Friday", "The user is allergic to peanuts",
    "Watched Interstellar last night", "The user's passport ends in 42", "Bought a new laptop, a MacBook Air",
    "The user plays tennis every Saturday", "My flight to Tokyo is on the 3rd",
    "The user's favourite band is Coldplay", "The user is learning Spanish", "I went to the dentist on Monday",
    "I am reading a novel by Murakami", "The user's daughter started school",
    "用户昨天和客户吃了午饭", "用户喜欢喝绿茶", "用户的狗叫旺财", "今天早上去公园跑步了", "下周五和设计团队开会",
    "用户对花生过敏", "昨晚看了电影星际穿越", "用户每周六打网球", "用户的生日是三月五日", "用户最喜欢的颜色是蓝色",
    "我在公司加班到很晚", "我昨天买了一双跑鞋",
]


class CachedE5(Embeddings):
    """The bundled e5, each text embedded once per run (hypothesis asks the same texts many times)."""

    def __init__(self) -> None:
        self.model = E5Embeddings()

    @cache  # noqa: B019 - one instance per module
    def embed_query(self, text: str) -> list[float]:
        return self.model.embed_query(text)

    @cache  # noqa: B019
    def passage(self, text: str) -> list[float]:
        return self.model.embed_documents([text])[0]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.passage(t) for t in texts]


E5 = CachedE5()


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeClient]:
    client = EdgeClient(tmp_path_factory.mktemp("present") / "edge")
    yield client
    client.close()


def ms(dt: datetime) -> int:
    return int(dt.timestamp() * 1000)


def top_of(edge: EdgeClient, question: str, memories: list[tuple[str, float]]) -> list[str]:
    """Store (text, age in days) memories in a fresh Qdrant Edge collection and recall for ``question``."""
    ltm = LongTermMemory(edge, f"p{uuid.uuid4().hex[:8]}")
    ltm.setup(384)
    rows = [Memory(id=memory_id("u", text), text=text, user_id="u", session_id=f"s{i}",
                   timestamp=ms(NOW - timedelta(days=age))) for i, (text, age) in enumerate(memories)]
    ltm.upsert(rows, E5.embed_documents([m.text for m in rows]))
    result = recall(ltm, E5, "u", question, NOW)
    edge.delete_collection(ltm.collection)
    assert result.intent == "present"
    return [r.memory.text for r in result.memories]


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(topic=st.sampled_from(TOPICS), data=st.data())
def test_unrelated_newer_memories_never_displace_the_newest_relevant_one(edge: EdgeClient,
                                                                         topic: tuple[str, list[str]],
                                                                         data: st.DataObject) -> None:
    question, relevant = topic
    # ages a millisecond apart at least: timestamps are milliseconds, and two memories of the same millisecond have
    # no newest (hypothesis drew 399.99999999999994 and 400.0 days)
    ages = data.draw(st.lists(st.floats(2, 400), min_size=len(relevant), max_size=len(relevant),
                              unique_by=lambda a: round(a * 86_400_000)))
    newest = relevant[ages.index(min(ages))]
    noise = data.draw(st.lists(st.sampled_from(UNRELATED), max_size=len(UNRELATED), unique=True))
    noise_ages = data.draw(st.lists(st.floats(0, min(ages) - 1), min_size=len(noise), max_size=len(noise)))
    alone = top_of(edge, question, list(zip(relevant, ages, strict=True)))
    assert alone[0] == newest  # among memories about the same thing, the newest wins
    crowded = top_of(edge, question, [*zip(relevant, ages, strict=True), *zip(noise, noise_ages, strict=True)])
    assert crowded[0] == newest, (question, crowded)
    assert set(crowded[:len(relevant)]) == set(relevant)  # every unrelated memory ranks after every relevant one


@pytest.mark.parametrize(("question", "relevant"), TOPICS, ids=[q for q, _ in TOPICS])
def test_the_issue_example_the_newest_relevant_memory_wins_over_yesterdays_lunch(edge: EdgeClient, question: str,
                                                                                  relevant: list[str]) -> None:
    old, new = relevant[0], relevant[1]
    texts = top_of(edge, question, [(old, 120), (new, 14), *((u, 1) for u in UNRELATED)])
    assert texts[:2] == [new, old]


@pytest.mark.parametrize(("question", "old", "new"), [
    ("where do I live now?", "I live in Hangzhou", "I moved to Shanghai"),
    ("where do I live now?", "The user lives in Hangzhou", "The user moved to Shanghai"),
    ("我现在住在哪里？", "我住在杭州", "我搬到上海了"),
    ("我现在住在哪里？", "用户住在杭州", "用户搬到上海了"),
])
def test_a_move_two_days_ago_beats_an_often_recalled_old_home(edge: EdgeClient, question: str, old: str,
                                                               new: str) -> None:
    """The user said where they live weeks ago (recalled many times since, so boosted) and that they moved two
    days ago: the move wins, although it does not repeat the question's word ("live", "住")."""
    ltm = LongTermMemory(edge, f"p{uuid.uuid4().hex[:8]}")
    ltm.setup(384)
    rows = [Memory(id=memory_id("u", old), text=old, user_id="u", session_id="s1",
                   timestamp=ms(NOW - timedelta(days=40)), ref_count=20),
            Memory(id=memory_id("u", new), text=new, user_id="u", session_id="s2",
                   timestamp=ms(NOW - timedelta(days=2))),
            *(Memory(id=memory_id("u", u), text=u, user_id="u", session_id=f"n{i}",
                     timestamp=ms(NOW - timedelta(hours=5 + i))) for i, u in enumerate(UNRELATED))]
    ltm.upsert(rows, E5.embed_documents([m.text for m in rows]))
    result = recall(ltm, E5, "u", question, NOW)
    edge.delete_collection(ltm.collection)
    assert [r.memory.text for r in result.memories[:2]] == [new, old]


@pytest.mark.parametrize(("question", "told", "answer"), [
    # the new-user trial: the coffee is the newest change, but not about where the user lives
    ("Where do I live now?", ["我住在苏州", "我每天早上喝乌龙茶", "我搬到杭州了", "我现在改喝咖啡了"], "我搬到杭州了"),
    ("我现在住在哪里？", ["I live in Lisbon", "I play the cello", "I moved to Porto", "I switched to tea now"],
     "I moved to Porto"),
])
def test_a_newer_change_about_something_else_in_the_other_language_stays_below(edge: EdgeClient, question: str,
                                                                                told: list[str], answer: str) -> None:
    """Every memory in the other language is about as near the question; the memories holding what it asks
    decide (:func:`memory.recall.slot_topic`), and a stated change that holds none of it follows nothing."""
    texts = top_of(edge, question, [(t, 30 - 5 * i) for i, t in enumerate(told)])
    assert texts[0] == answer, texts


@pytest.mark.parametrize(("question", "told", "answer"), [
    # bench updates (dev split): the change shares no word with the question and is as near it as the old value
    ("我目前在坚持哪种饮食？", ["我对海鲜过敏。", "我一直坚持纯素。", "我总是记不住别人的名字。",
                               "我受不了香菜的味道。", "我改吃素食了。", "我不敢看恐怖片。"], "我改吃素食了。"),
    ("我最近靠什么锻炼身体？", ["我最喜欢秋天。", "我主要的锻炼方式是游泳。", "我是左撇子。", "我受不了香菜的味道。",
                               "我最近改练瑜伽了。"], "我最近改练瑜伽了。"),
])
def test_a_change_said_in_other_words_wins_when_it_restates_the_memory_on_topic(edge: EdgeClient, question: str,
                                                                                  told: list[str], answer: str) -> None:
    """:func:`memory.recall.tied_restatements`: as near the question as the nearest of all, and the old value's
    nearest memory (and it is its): the same subject, the newer one first."""
    texts = top_of(edge, question, [(t, 60 - 10 * i) for i, t in enumerate(told)])
    assert texts[0] == answer, texts
