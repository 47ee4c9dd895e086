"""As of a time, memories recorded after it do not exist: recall (the one place every door goes through) and the
CLI's ``memories search --now``, on real Qdrant with the real e5 embedder."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from qdrant_client import QdrantClient

from memory.embeddings import E5Embeddings
from memory.long_term import LongTermMemory, Memory, memory_id
from memory.recall import recall

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 8, 1, 12, 0, tzinfo=TZ)
e5 = E5Embeddings()


@pytest.fixture
def ltm(qdrant_client: QdrantClient) -> LongTermMemory:
    store = LongTermMemory(qdrant_client, f"a{uuid.uuid4().hex[:8]}")
    store.setup(384)
    return store


def remember(ltm: LongTermMemory, text: str, when: datetime, event: datetime | None = None) -> None:
    m = Memory(id=memory_id("u", text), text=text, user_id="u", session_id="s", timestamp=int(when.timestamp() * 1000),
               event_time=int(event.timestamp() * 1000) if event else None)
    ltm.upsert([m], e5.embed_documents([text]))


@pytest.mark.parametrize("question", ["where do I live", "where do I live now?", "where did I live in 2026",
                                      "我住在哪里", "did I tell you where I live"])
def test_memories_recorded_after_now_are_invisible(ltm: LongTermMemory, question: str) -> None:
    remember(ltm, "The user lives in Hangzhou", NOW - timedelta(days=30))
    remember(ltm, "The user lives in Shenzhen", NOW + timedelta(days=124))  # recorded after now
    remember(ltm, "The user lives in Xiamen", NOW + timedelta(milliseconds=1))
    texts = [r.memory.text for r in recall(ltm, e5, "u", question, NOW).memories]
    assert texts == ["The user lives in Hangzhou"]
    later = [r.memory.text for r in recall(ltm, e5, "u", question, NOW + timedelta(days=200)).memories]
    assert set(later) == {"The user lives in Hangzhou", "The user lives in Shenzhen", "The user lives in Xiamen"}


def test_a_memory_recorded_before_now_about_a_later_event_is_visible(ltm: LongTermMemory) -> None:
    remember(ltm, "The user's flight to Tokyo is on December 20", NOW - timedelta(days=2),
             event=datetime(2026, 12, 20, tzinfo=TZ))
    remember(ltm, "The user's flight to Osaka is on December 21", NOW + timedelta(days=3))
    texts = [r.memory.text for r in recall(ltm, e5, "u", "when is my flight", NOW).memories]
    assert texts == ["The user's flight to Tokyo is on December 20"]


def test_cli_search_with_now_does_not_see_the_future(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    for at, text in [("2026-06-01T09:00", "I live in Hangzhou"), ("2026-12-03T09:00", "I moved to Shenzhen")]:
        assert cli("memories", "add", text, "--user", "ann", "--at", at, "--json") == 0
    capsys.readouterr()
    assert cli("memories", "search", "where do I live", "--user", "ann", "--now", "2026-08-01", "--json") == 0
    assert [r["text"] for r in json.loads(capsys.readouterr().out)] == ["I live in Hangzhou"]
    assert cli("memories", "search", "where do I live", "--user", "ann", "--now", "2026-12-04", "--json") == 0
    assert {r["text"] for r in json.loads(capsys.readouterr().out)} == {"I live in Hangzhou", "I moved to Shenzhen"}
