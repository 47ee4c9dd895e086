"""The query variants of the LoCoMo ablations (bench/query_variants.py), English and Chinese, with negatives."""

from __future__ import annotations

import pytest

from bench.query_variants import names_in, names_speaker, speaker_of, stripped, sub_questions, without_names


@pytest.mark.parametrize(("question", "expected"), [
    ("What does Melanie do to destress?", ["Melanie to destress"]),
    ("Would Caroline likely pursue writing as a career option?", ["Caroline pursue writing as a career option"]),
    ("When did Jon open his dance studio?", ["Jon open his dance studio"]),
    ("小明喜欢什么动物？", ["小明喜欢 动物"]),
    ("我端午节在哪家餐厅请的客户？", ["我端午节在 餐厅请的客户"]),
])
def test_stripped_drops_question_words_and_hedges(question: str, expected: list[str]) -> None:
    assert stripped(question) == expected


@pytest.mark.parametrize("question", ["What?", "什么？", "hello", "Caroline's sister", "我喜欢绿茶", ""])
def test_stripped_gives_no_variant_when_nothing_changes_or_nothing_is_left(question: str) -> None:
    assert stripped(question) == []


def test_names_are_the_capitalised_words_after_the_first() -> None:
    assert names_in("What movies have both Joanna and Nate seen?") == ["Joanna", "Nate"]
    assert names_in("What is Caroline's identity?") == ["Caroline"]
    assert names_in("What did I eat?") == []  # "What" opens the question; "I" is one letter
    assert names_in("小明喜欢什么？") == []  # Chinese names are not recognised


def test_without_names() -> None:
    assert without_names("What does Melanie do to destress?") == ["What does do to destress?"]
    assert without_names("What is Caroline's identity?") == ["What is identity?"]
    assert without_names("What did I eat yesterday?") == []  # names nobody
    assert without_names("Where is Paris?") == []  # nothing but question words would be left
    assert without_names("小明喜欢什么动物？") == []


@pytest.mark.parametrize(("question", "expected"), [
    ("What did Melanie paint and what did she bake?", ["What did Melanie paint", "what did she bake"]),
    ("Where did Jon travel, and who did he meet there?", ["Where did Jon travel", "who did he meet there"]),
    ("小明去了哪里，见了谁？", ["小明去了哪里", "见了谁"]),
    ("我和小红去过哪些城市以及吃了什么？", ["小红去过哪些城市", "吃了什么"]),
])
def test_sub_questions_split_at_conjunctions(question: str, expected: list[str]) -> None:
    assert sub_questions(question) == expected


@pytest.mark.parametrize("question", [
    "What do Jon and Gina both have in common?",  # the parts are single names: no sub-question
    "What does Melanie do to destress?",  # no conjunction
    "Salt and pepper?",
    "小明喜欢什么动物？",
    "我和你",
])
def test_sub_questions_negatives(question: str) -> None:
    assert sub_questions(question) == []


def test_speaker_of_and_names_speaker() -> None:
    assert speaker_of("Melanie: I went camping") == "Melanie"
    assert speaker_of("小明：我喜欢猫") == "小明"
    assert speaker_of("I moved to Shanghai") is None
    assert speaker_of("Meeting at 10:30 with the team and the rest of the day is free") is None  # label too long
    assert names_speaker("What does Melanie do to destress?", "Melanie: I run")
    assert names_speaker("小明喜欢什么动物？", "小明：我喜欢猫")
    assert not names_speaker("What does Mel do?", "Melanie: I run")  # a whole word, not a prefix
    assert not names_speaker("What does Melanie do?", "Caroline: Melanie runs")
    assert not names_speaker("小红喜欢什么？", "小明：我喜欢猫")
    assert not names_speaker("What does Melanie do?", "I went camping")
