"""The scenarios of ``python -m bench answers`` (bench/scenarios.py): enough, well-formed, and split in two halves
that never change."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path
from typing import Any

from bench.answers import correct, figures, select
from bench.scenarios import SCENARIOS, TURN_KINDS

CJK = re.compile(r"[\u4e00-\u9fff]")
# The 42 single-question scenarios the bench began with: their names (and so their split) never change.
_ORIGINAL_NAMES = (
    "en-city en-tea en-book en-job en-sister en-dog en-allergy en-passport en-violin en-car en-birthday en-food "
    "en-two-facts en-noise en-hobby en-school en-moved en-new-job en-last-week en-trip en-plan zh-city zh-tea zh-book "
    "zh-job zh-sister zh-dog zh-allergy zh-passport zh-instrument zh-car zh-birthday zh-food zh-two-facts zh-noise "
    "zh-hobby zh-school zh-moved zh-new-job zh-dinner zh-trip zh-plan")
ORIGINAL = _ORIGINAL_NAMES.split()


def test_enough_scenarios_half_of_them_conversations_in_both_languages() -> None:
    assert len(SCENARIOS) >= 80
    assert len({s.name for s in SCENARIOS}) == len(SCENARIOS)
    assert 2 * sum(s.multi_turn for s in SCENARIOS) >= len(SCENARIOS)
    langs = Counter(s.lang for s in SCENARIOS)
    assert set(langs) == {"en", "zh"} and abs(langs["en"] - langs["zh"]) <= len(SCENARIOS) // 10
    talks = Counter(s.lang for s in SCENARIOS if s.multi_turn)
    assert abs(talks["en"] - talks["zh"]) <= 2


def test_the_original_scenarios_keep_their_names_and_questions() -> None:
    first = SCENARIOS[:len(ORIGINAL)]
    assert [s.name for s in first] == ORIGINAL
    assert all(not s.multi_turn and s.question and s.expected for s in first)


def test_every_turn_is_well_formed() -> None:
    for s in SCENARIOS:
        texts = [t for _, t in s.facts] + [t.text for t in s.turns]
        for text in texts:  # a Chinese scenario is Chinese throughout, an English one has no Chinese
            assert bool(CJK.search(text)) == (s.lang == "zh"), (s.name, text)
        told = " ".join([t for _, t in s.facts] + [t.text for t in s.turns if t.kind == "statement"])
        for turn in s.turns:
            assert turn.kind in TURN_KINDS and turn.text.strip(), (s.name, turn)
            assert bool(turn.expected) == (turn.kind == "fact"), (s.name, turn)
            if turn.kind == "fact":  # the answer is something the user said
                assert correct(told, turn.expected), (s.name, turn)
            if turn.kind in ("fact", "unknown"):
                assert turn.text.rstrip().endswith(("?", "？")), (s.name, turn)


def test_every_conversation_mixes_statements_small_talk_and_questions_never_answered_before() -> None:
    for s in SCENARIOS:
        if not s.multi_turn:
            continue
        kinds = {t.kind for t in s.turns}
        assert {"fact", "unknown", "smalltalk"} <= kinds, s.name
        assert s.facts or "statement" in kinds, s.name


def test_the_split_is_a_stable_hash_of_the_name_and_disjoint() -> None:
    for s in SCENARIOS:
        expected = "dev" if hashlib.sha256(s.name.encode()).digest()[0] % 2 == 0 else "test"
        assert s.split == expected
    dev, test = select("dev"), select("test")
    assert {s.name for s in dev}.isdisjoint(s.name for s in test)
    assert len(dev) + len(test) == len(select("all")) == len(SCENARIOS)
    for half in (dev, test):  # about half each, and each half has conversations in both languages
        assert 0.35 * len(SCENARIOS) <= len(half) <= 0.65 * len(SCENARIOS)
        assert {s.lang for s in half if s.multi_turn} == {"en", "zh"}
    assert [s.name for s in select("test", "zh")] == [s.name for s in test if s.lang == "zh"]


def test_figures_count_each_turn_once_and_unknowns_apart() -> None:
    def turn(kind: str, **verdicts: object) -> dict[str, object]:
        return {"kind": kind, "correct": False, "degenerate": "", "invented": [], "stuck": False, "wrong_voice": [],
                "abstained": False, "acknowledged": False, **verdicts}

    rows = [{"turns": [turn("fact", correct=True), turn("unknown", abstained=True), turn("smalltalk", stuck=True)]},
            {"turns": [turn("fact"), turn("unknown", invented=["30"]),
                       turn("statement", wrong_voice=["I am."], acknowledged=True)]}]
    f = figures(rows)
    assert (f["cases"], f["turns"], f["fact_questions"], f["unknown_questions"]) == (2, 6, 2, 2)
    assert (f["correct"], f["abstained_unknown"], f["acknowledged"]) == (50.0, 50.0, 50.0)
    assert (f["invented"], f["stuck"], f["wrong_voice"], f["degenerate"]) == (16.7, 16.7, 16.7, 0.0)


def test_each_choice_of_bundled_models_saves_its_own_answers(tmp_path: Path) -> None:
    """The REPORT gives `bench answers` for each bundled model (issue 25): a run on the 1.5B, or with the 1.5B doing
    the memory work, must not overwrite the default's saved figures."""
    from bench.answers import saved_name
    from bench.report import SAVED_ONLY
    from graph.settings import get_settings

    def named(**kw: Any) -> str:
        return saved_name(get_settings(data_dir=tmp_path, **kw))

    assert named() == named(local_memory_model="0.5b") == named(chat_model="m", chat_api_key="k") == "answers"
    assert named(local_model="1.5b") == named(local_model="1.5b", local_memory_model="1.5b") == "answers-1.5b"
    assert named(local_memory_model="1.5b") == "answers-memory-1.5b"
    assert {"answers-1.5b", "answers-memory-1.5b"} <= set(SAVED_ONLY)
