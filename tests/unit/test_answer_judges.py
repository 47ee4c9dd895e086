"""The bench's own judges of an answer (bench/answer_judges.py), on generated names, numbers and phrasings: each
judge says yes to what it is for and no to its near miss."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from bench.answer_judges import abstains, brief, date_words, invented, stuck, wrong_voice

LOWER = "abcdefghijklmnopqrstuvwxyz"
# uncommon characters, so a generated Chinese name is never a word of the fixed texts around it
ZH_NAME_CHARS = "琰玥璟瑾珩骁昕钰琪芮彧翊煜曦晗婕蔚萱璐"
ZH_DIGITS = "一二三四五六七八九"


@st.composite
def names(draw: st.DrawFn) -> str:
    """A capitalised made-up name ("Qorvath")."""
    return draw(st.sampled_from("BCDFGHJKLMNPQRSTVWZ")) + draw(st.text(LOWER, min_size=4, max_size=9))


zh_names = st.text(ZH_NAME_CHARS, min_size=2, max_size=3)
numbers = st.integers(min_value=32, max_value=99999)  # above any day of a month: never a date's number


def zh_numeral(n: int) -> str:
    """11..99 in Chinese numerals (三十七)."""
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else ZH_DIGITS[tens - 1]) + "十" + ("" if ones == 0 else ZH_DIGITS[ones - 1])


# --- invented ------------------------------------------------------------------------------------------------------

@given(names(), names())
def test_a_name_never_said_is_invented_and_one_said_is_not(told: str, other: str) -> None:
    said = [f"My sister {told} lives abroad.", "Where does my sister live?"]
    same = other.lower() == told.lower()
    assert invented(f"Your sister {told} lives in {other}.", said) == ([] if same else [other])
    assert invented(f"She lives in {other} now.", said) == ([] if same else [other])
    assert invented(f"Your sister {told} lives abroad.", said) == []
    assert invented(f"{told.lower()} lives abroad, you said.", said) == []  # case does not count


@given(numbers, numbers)
def test_a_number_never_said_is_invented(told: int, other: int) -> None:
    said = [f"My flat is number {told}.", "What's my flat number?"]
    assert invented(f"Your flat is number {told}.", said) == []
    assert (str(other) in invented(f"Your flat is number {other}.", said)) == (other != told)


@given(st.integers(min_value=11, max_value=99))
def test_chinese_numerals_are_numbers(n: int) -> None:
    assert invented(f"你今年{zh_numeral(n)}岁。", ["我今年多大了？"]) == [str(n)]
    assert invented(f"你今年{zh_numeral(n)}岁。", [f"我今年{n}岁。"]) == []
    assert invented(f"你今年{n}岁。", [f"我今年{zh_numeral(n)}岁。"]) == []
    assert invented("你养了一只猫。", ["我养了猫。"]) == []  # a lone 一 is grammar


@given(zh_names, zh_names)
def test_a_chinese_name_never_said_is_invented(told: str, other: str) -> None:
    said = [f"我的狗叫{told}。", "我的狗叫什么？"]
    assert invented(f"你的狗叫{told}。", said) == []
    new = other[:2] not in told  # "婕彧" is said inside "婕婕彧" (and "彧婕" inside "婕彧婕"): a name the user gave
    assert bool(invented(f"你的狗叫{other}。", said)) == new
    assert bool(invented(f"你住在{other}。", said)) == (other[:2] not in told)
    assert bool(invented(f"你的狗的名字是{other}。", said)) == new
    assert invented("这是真的。", said) == []


@given(names())
def test_a_latin_name_inside_chinese_counts(name: str) -> None:
    assert invented(f"你开的是{name}。", ["我开什么车？"]) == [name]
    assert invented(f"你开的是{name}。", [f"我开{name}。"]) == []


@given(st.integers(min_value=0, max_value=400))
def test_the_dates_of_the_turns_are_not_invented(days: int) -> None:
    when = datetime(2026, 12, 3, 10, 0) - timedelta(days=days)
    said = ["What's the date?", date_words(when)]
    assert invented(f"Today is {when:%A}, {when:%B} {when.day}, {when.year}.", said) == []
    assert invented(f"今天是{when.year}年{when.month}月{when.day}日。", said) == []
    assert invented(f"Today is {when.year + 1}.", said) == [str(when.year + 1)]


def test_sentence_openers_are_not_names_but_a_name_opening_a_sentence_is() -> None:
    said = ["I grow basil.", "What do I grow?"]
    assert invented("Sure! You grow basil. Got it.", said) == []
    assert invented("Unfortunately I don't know. Hope that helps!", said) == []
    assert invented("Basil grows well in Naples.", said) == ["Naples"]
    assert invented("Naples is where you grow basil.", said) == ["Naples"]


# --- wrong voice ---------------------------------------------------------------------------------------------------

@given(names(), st.sampled_from(["I live in {c}.", "I moved to {c} last year.", "My office is in {c}."]))
def test_the_users_fact_in_the_first_person_is_the_wrong_voice(city: str, template: str) -> None:
    fact = template.format(c=city)
    assert wrong_voice(fact, [fact]) == [fact]
    assert wrong_voice(f"Sure. {fact}", [fact]) == [fact]
    said_to_user = fact.replace("I ", "You ", 1).replace("My ", "Your ", 1)
    assert wrong_voice(said_to_user, [fact]) == []
    assert wrong_voice("I don't know where you live.", [fact]) == []
    assert wrong_voice(f"I remember {city} well.", [fact]) == []  # the assistant speaking of itself
    # a memory quoted as the user told it, beside a question in the other language: attributed, not spoken as
    assert wrong_voice(f"我记得：“{fact}” “{fact}”", [fact]) == []
    assert wrong_voice(f"我不太确定；你跟我说过：“{fact}”", [fact]) == []


@given(zh_names, st.sampled_from(["我住在{c}。", "我的猫叫{c}。", "我在{c}上班。"]))
def test_the_users_fact_in_the_first_person_is_the_wrong_voice_in_chinese(word: str, template: str) -> None:
    fact = template.format(c=word)
    assert wrong_voice(fact, [fact]) == [fact]
    assert wrong_voice(fact.replace("我", "你"), [fact]) == []
    assert wrong_voice("我不知道你的生日。", [fact]) == []
    assert wrong_voice(f"你跟我说过：“{fact}”。{fact}", [fact]) == [fact]  # quoted, then said as the user
    assert wrong_voice("我记得这件事。", [fact]) == []


def test_first_person_about_something_else_is_not_the_wrong_voice() -> None:
    assert wrong_voice("My pleasure!", ["I live in Leeds."]) == []
    assert wrong_voice("I love that idea.", ["I live in Leeds."]) == []


# --- stuck ---------------------------------------------------------------------------------------------------------

long_answers = st.lists(st.sampled_from(LOWER + "     "), min_size=40, max_size=120).map("".join).filter(
    lambda s: len(s.replace(" ", "")) >= 25)


@given(long_answers, long_answers)
def test_the_same_long_answer_to_another_message_is_stuck(answer: str, other: str) -> None:
    assert stuck(answer, "Where do I work?", [("I sold the Civic last week.", answer)])
    assert stuck(answer + "!", "Where do I work?", [("Tom just joined Microsoft.", answer)])  # nearly identical
    assert not stuck(answer, "Where do I work?", [("Where do I work?", answer)])  # the same message again
    assert not stuck(answer, "Where do I work?", [])


def test_different_or_short_answers_or_two_abstentions_are_not_stuck() -> None:
    earlier = [("I sold the Civic.", "Noted, you sold the Civic and are looking for a new car.")]
    assert not stuck("Your brother Tom works at Microsoft since last month.", "Tom joined Microsoft.", earlier)
    assert not stuck("Got it.", "lovely day", [("so tired today", "Got it.")])
    no = "You haven't told me that yet, so I really don't know."
    assert not stuck(no, "How old am I?", [("When is my birthday?", no)])


# --- abstains ------------------------------------------------------------------------------------------------------

@given(st.sampled_from(["your age", "your birthday", "your mum's name", "that", "where you work"]),
       st.sampled_from(["You haven't told me {x}.", "You never mentioned {x}.", "I don't know {x}.",
                        "I'm not sure about {x}.", "I have no information about {x}.", "You didn't tell me {x}."]))
def test_saying_it_was_not_told_is_an_abstention(thing: str, template: str) -> None:
    assert abstains(template.format(x=thing))


@given(zh_names, st.sampled_from(["你还没有告诉过我{x}。", "我不知道{x}。", "你没提过{x}。", "我不太确定{x}。",
                                  "关于{x}我不清楚。", "抱歉，我没有{x}的具体信息。", "我没有关于{x}的记录。"]))
def test_saying_it_was_not_told_is_an_abstention_in_chinese(thing: str, template: str) -> None:
    assert abstains(template.format(x=thing))
    assert not abstains(f"你的狗叫{thing}。")


@given(names())
def test_an_answer_that_states_a_value_is_no_abstention(name: str) -> None:
    assert not abstains(f"Your mum's name is {name}.")
    assert not abstains(f"You told me your sister is {name}.")  # told, not "not told"


# --- brief ---------------------------------------------------------------------------------------------------------

@given(st.integers(min_value=1, max_value=15), st.integers(min_value=16, max_value=60))
def test_an_acknowledgement_is_brief(short: int, long: int) -> None:
    assert brief(" ".join(["noted"] * short)) and not brief(" ".join(["noted"] * long))
    assert brief("好" * (2 * short)) and not brief("好" * (2 * long))
    assert not brief("")
