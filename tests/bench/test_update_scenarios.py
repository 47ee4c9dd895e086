"""The generated scenarios of ``python -m bench updates`` (bench/update_scenarios.py) and its fragment detector."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta

import pytest

from bench.answers import correct
from bench.update_scenarios import CHANGES, FILLERS, KINDS, UpdateScenario, scenarios, select, split_of
from bench.updates import fragment, mentions, restates_change
from graph.testing import ScriptedBrain

ALL = scenarios()
ASKED = datetime(2026, 12, 3, 10, 0)


def _digest() -> str:
    return hashlib.sha256(repr(scenarios()).encode()).hexdigest()


def test_enough_scenarios_languages_and_kinds() -> None:
    langs = Counter(s.lang for s in ALL)
    assert len(ALL) >= 200
    assert langs["en"] >= 80 and langs["zh"] >= 80
    for lang in ("en", "zh"):
        assert len({s.kind for s in ALL if s.lang == lang}) >= 30


def test_every_variant_in_both_languages() -> None:
    tags = set(CHANGES) | {"self", "name", "pronoun", "now", "untimed", "before", "last-year"}
    for lang in ("en", "zh"):
        seen = {t for s in ALL if s.lang == lang for t in s.variants}
        assert seen == tags, (lang, tags - seen)


def test_ids_are_unique_and_name_language_kind_and_number() -> None:
    assert len({s.id for s in ALL}) == len(ALL)
    for s in ALL:
        assert s.id.startswith(f"{s.lang}-{s.kind}-")


def test_generation_is_the_same_in_another_process() -> None:
    code = ("import hashlib; from bench.update_scenarios import scenarios; "
            "print(hashlib.sha256(repr(scenarios()).encode()).hexdigest())")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.strip() == _digest()


def test_split_is_a_hash_of_the_id_with_both_parts_and_both_languages() -> None:
    assert split_of("en-city-0") == split_of("en-city-0")
    assert {split_of("en-city-0"), split_of("zh-city-0"), split_of("en-car-1")} <= {"dev", "test"}
    dev, test = select("dev"), select("test")
    assert len(dev) + len(test) == len(ALL) == len(select("all"))
    assert 0.35 < len(dev) / len(ALL) < 0.65
    for part in (dev, test):
        assert {s.lang for s in part} == {"en", "zh"}
    assert all(s.lang == "zh" for s in select("test", "zh"))


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.id)
def test_values_are_where_they_belong(sc: UpdateScenario) -> None:
    for new in sc.new_values:
        assert correct(sc.change, (new,)), (sc.change, new)
        assert not correct(sc.original, (new,)), (sc.original, new)
    for old in sc.old_values:
        assert correct(sc.original, (old,)), (sc.original, old)
    # neither value is a part of the other, nor of an unrelated fact or a question: a hit means that value
    for new in sc.new_values:
        assert not mentions(" ".join(sc.old_values), (new,))
    for old in sc.old_values:
        assert not mentions(" ".join(sc.new_values), (old,))
    others = [text for _, text in sc.facts if text not in (sc.original, sc.change)]
    for text in [*others, sc.now_question, sc.before_question]:
        assert not mentions(text, sc.new_values + sc.old_values), text
    assert all("." not in v for v in sc.new_values + sc.old_values)  # a dot would cut the sentence in two


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.id)
def test_timeline(sc: UpdateScenario) -> None:
    days = dict((text, d) for d, text in sc.facts)
    assert [d for d, _ in sc.facts] == sorted((d for d, _ in sc.facts), reverse=True)
    assert 3 <= days[sc.change] <= 28
    early = [text for d, text in sc.facts if d > days[sc.change]]
    assert 3 <= len(early) <= 5 and sc.original in early  # the original among 2-4 unrelated facts
    assert len(sc.facts) - len(early) <= 2  # the change, then at most one unrelated fact
    assert all(text in FILLERS[sc.lang] for text in early if text != sc.original)
    told = ASKED - timedelta(days=days[sc.original])
    if "last-year" in sc.variants:
        assert told.year == ASKED.year - 1
    assert sc.now_question[-1] in "?？" and sc.before_question[-1] in "?？"


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.id)
def test_the_scripted_extractor_keeps_every_value(sc: UpdateScenario) -> None:
    """Its statements are what ``--scripted`` stores: each value must survive (no question word, no cut)."""
    for text, values in ((sc.original, sc.old_values), (sc.change, sc.new_values)):
        assert any(mentions(s, values) for s in ScriptedBrain.statements(text)), (text, values)
    for _, text in sc.facts:
        assert ScriptedBrain.statements(text), text


def test_kinds_have_several_phrasings() -> None:
    for kind in KINDS:
        for ph in (kind.en, kind.zh):
            assert len(ph.values) >= 5
            assert all(len(t) >= 2 for t in (ph.told, ph.plain, ph.word, ph.two, ph.now, ph.before))


@pytest.mark.parametrize("text", [
    "and bought a Tesla Model 3", "And bought a Tesla", "but he stayed at Google", "then moved to Shenzhen",
    "So I commute by tram now", "also learning Spanish", "he joined Microsoft last month", "She lives in Dubai now",
    "They moved to Lisbon", "it is a Honda Civic", "He's at Nvidia now", "  - and joined Meta",
    "而且搬到了深圳", "然后去了腾讯", "并且买了一辆特斯拉", "但是她不喜欢", "还养了一只猫", "他加入了微软",
    "她毕业了，现在在深圳工作", "他们搬到了杭州", "它叫旺财",
])
def test_fragments(text: str) -> None:
    assert fragment(text)


@pytest.mark.parametrize("text", [
    "Tom just left Google, he joined Microsoft last month", "I sold the Civic last week and bought a Tesla Model 3",
    "My sister graduated, she works in Shenzhen now", "Heather lives in Dublin", "Sofia works at Apple",
    "Items I own: a Leica Q2", "Andrew drives a BMW X3", "I live in Hangzhou",
    "我住在杭州", "我妹妹毕业了，现在在深圳工作", "小王刚从阿里巴巴离职，他上个月去了腾讯", "李雷在滴滴上班",
])
def test_whole_statements_are_not_fragments(text: str) -> None:
    assert fragment(text) is None


@pytest.mark.parametrize("sc", [s for s in ALL if "two" in s.variants][:40], ids=lambda s: s.id)
def test_an_answer_restating_a_change_that_names_both_values_counts_only_in_its_order(sc: UpdateScenario) -> None:
    """The change said back ("Tom quit being a chef, he is a journalist now") names both values, the old first, as
    the user told them: it answers the "now" question. The old value alone, or after the new one, does not."""
    old, new = sc.old_values[0], sc.new_values[0]
    assert restates_change(sc.change, sc)
    assert not restates_change(f"{old}.", sc) and not restates_change(f"{new}.", sc)
    assert not restates_change(f"{new} {old}", sc)


@pytest.mark.parametrize("sc", [s for s in ALL if "two" not in s.variants and not mentions(s.change, s.old_values)
                                ][:40], ids=lambda s: s.id)
def test_both_values_in_an_answer_do_not_count_when_the_change_names_only_the_new(sc: UpdateScenario) -> None:
    assert not restates_change(f"{sc.old_values[0]} {sc.new_values[0]}", sc)
