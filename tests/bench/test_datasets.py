"""The benchmark readers on the real shared data: the counts and the defects the data README lists."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from bench.datasets import DataMissingError, clean_evidence, load_locomo, load_memorybank, named_day
from bench.locomo import memories_of
from bench.retrieval import Scores

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_locomo_has_the_scorable_questions_of_the_readme() -> None:
    conversations = load_locomo()
    assert len(conversations) == 10
    assert sum(len(c.turns) for c in conversations) == 5882
    assert sum(len(c.questions) for c in conversations) == 1982
    counts: dict[str, int] = {}
    for c in conversations:
        for q in c.questions:
            counts[q.category] = counts.get(q.category, 0) + 1
    assert counts["temporal"] == 321 and counts["single-hop"] == 841 and counts["multi-hop"] == 282


def test_evidence_defects_are_normalised() -> None:
    known = {"D8:6", "D9:17", "D11:26", "D30:5", "D9:1", "D4:4"}
    assert clean_evidence(["D8:6; D9:17"], known) == ("D8:6", "D9:17")
    assert clean_evidence(["D9:1 D4:4 D4:6"], known) == ("D9:1", "D4:4")  # D4:6 matches no turn
    assert clean_evidence(["D:11:26", "D30:05", "D"], known) == ("D11:26", "D30:5")
    assert clean_evidence([], known) == ()


def test_locomo_memories_keep_session_order_and_data_time() -> None:
    conv = load_locomo()[0]
    memories, ids = memories_of(conv)
    assert len(memories) == len(conv.turns) and ids[0] == "D1:1"
    first, second = memories[0], memories[1]
    assert first.timestamp == int(datetime(2023, 5, 8, 13, 56, tzinfo=UTC).timestamp() * 1000)
    assert second.timestamp - first.timestamp == 30_000 and first.session_id == second.session_id
    assert first.text.startswith("Caroline: ")
    last_session = max(t.at for t in conv.turns)
    assert conv.now == last_session + timedelta(days=1)


@pytest.mark.parametrize("language", ["en", "zh"])
def test_memorybank_has_35_dated_questions_per_language(language: str) -> None:
    bank = load_memorybank(language)
    assert len(bank.exchanges) == 566 and len(bank.dated) == 35 and len(bank.users()) == 15
    assert all(u == u.strip() for u in bank.users())
    assert all(date(2023, 4, 27) <= q.day <= date(2023, 5, 6) for q in bank.dated)


def test_named_day_reads_english_and_chinese() -> None:
    assert named_day("What dish did I make on May 5th?", 2023) == date(2023, 5, 5)
    assert named_day("5月5日我做了什么菜？", 2023) == date(2023, 5, 5)
    assert named_day("What did I cook?", 2023) is None


def test_unknown_language_and_missing_data_are_clear(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="language"):
        load_memorybank("fr")
    with pytest.raises(DataMissingError, match="LoCoMo not found"):
        load_locomo(tmp_path)


def test_recall_at_k_and_mrr() -> None:
    s = Scores.empty()
    s.add(["a", "x", "b"] + ["y"] * 60, ["a", "b"])
    s.add(["x"] * 7 + ["c"], ["c"])
    out = s.summary()
    assert out["R@5"] == 50.0  # 2/2 and 0/1
    assert out["R@10"] == 100.0
    assert out["MRR"] == round((1 + 1 / 8) / 2, 3)
