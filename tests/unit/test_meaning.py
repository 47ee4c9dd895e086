"""An extracted memory keeps the meaning of what the user said, and no stated fact is lost (issue 25, items 1-2).

memory/language/meaning.py is written on the "dev" half of tests/data/extraction_pairs.py; the "test" half is only
reported (both must be right: the rules are closed classes of grammar words, not subjects)."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memory.language.junk import kept_statements, speaks_of_someone, uncovered_statements
from memory.language.meaning import changed_meaning
from nodes.fact_check import ExtractedMemory, Extraction, candidates_from
from tests.data.extraction_pairs import PAIRS, split

NOW = datetime(2026, 12, 4, 10, tzinfo=ZoneInfo("Asia/Shanghai"))


def _kept(extracted: list[str], message: str) -> list[str]:
    extraction = Extraction(memories=[ExtractedMemory(text=t) for t in extracted])
    return [c["text"] for c in candidates_from(extraction, message, NOW, important=False, max_tokens=200,
                                               encoding="o200k_base")]


@pytest.mark.parametrize("half", ["dev", "test"])
def test_a_change_of_meaning_is_found_on_both_halves_of_the_labelled_extractions(half: str) -> None:
    """Every change of meaning is refused (a changed fact must never be stored); a rewording refused by mistake
    (a synonym: "stores" for "keeps") only keeps the user's own words, so a few may be: at most one in ten."""
    rows = [r for r in PAIRS if split(r) == half]
    assert len(rows) >= 20
    passed = [(m, x) for m, x, label in rows if label == "changes" and changed_meaning(x, m) is None]
    assert not passed
    keeps = [(m, x) for m, x, label in rows if label == "keeps"]
    refused = [(m, x, changed_meaning(x, m)) for m, x in keeps if changed_meaning(x, m) is not None]
    assert len(refused) * 10 <= len(keeps), refused


def test_the_labelled_extractions_cover_every_kind_in_both_languages() -> None:
    zh = [r for r in PAIRS if any("\u4e00" <= ch <= "\u9fff" for ch in r[0])]
    assert len(zh) >= 20 and len(PAIRS) - len(zh) >= 20
    reasons = " / ".join(str(changed_meaning(x, m)) for m, x, label in PAIRS if label == "changes")
    for kind in ("negation", "modality", "earlier time", "later time", "it is about"):
        assert kind in reasons


@pytest.mark.parametrize(("message", "extracted"), [
    ("I drive a blue Honda Civic.", "I have always wanted to own a blue Honda Civic."),
    ("我不吃香菜。", "用户吃香菜。"),
    ("My wife teaches chemistry at a high school.", "The user teaches chemistry at a high school."),
    ("I used to work night shifts at a bakery.", "The user works night shifts at a bakery."),
])
def test_an_extraction_that_changes_the_meaning_gives_way_to_the_users_words(message: str, extracted: str) -> None:
    assert _kept([extracted], message) == [message]


@pytest.mark.parametrize(("message", "extracted"), [
    # the 1.5B's silent loss: a statement about a person the user named, no first person in it
    ("Tom just left Google, he joined Microsoft last month.", []),
    ("Tom just left Google, he joined Microsoft last month.", ["The user's brother has changed employers."]),
    ("Anna moved to Berlin.", ["The user moved to Berlin."]),  # another owner: refused
    ("My sister got married in June.", []),
    # another language than the message, refused: the user's sentence stands
    ("小雨毕业了，现在在深圳工作。", ["Xiaoyu graduated and works in Shenzhen."]),
    ("Priya started her residency in Toronto.", ["普丽娅在多伦多开始了住院医师培训。"]),
])
def test_a_statement_whose_extraction_gives_nothing_usable_keeps_the_users_words(message: str,
                                                                                  extracted: list[str]) -> None:
    assert _kept(extracted, message) == [message]


@pytest.mark.parametrize("message", ["That sounds great.", "It's raining today.", "haha that is funny",
                                     "Good to know.", "这个不错。", "haha he is funny", "They are so annoying.",
                                     "她说得对", "Thanks, he will love it!"])  # a pronoun for nobody named
def test_reactions_are_not_kept_when_the_extractor_gives_nothing(message: str) -> None:
    assert _kept([], message) == []
    assert not speaks_of_someone(message)


def test_only_the_statement_a_refused_extraction_came_from_is_kept_beside_those_about_someone() -> None:
    message = "今天好冷。小雨毕业了，现在在深圳工作。"
    assert kept_statements(message, ["小雨在深圳工作。"]) == "小雨毕业了，现在在深圳工作。"
    assert kept_statements(message, ["Xiaoyu works in Shenzhen."]) == "今天好冷。 小雨毕业了，现在在深圳工作。"  # both
    assert kept_statements(message, []) == ""  # no name a rule can see, nothing pointed at: a reaction and a report


def test_a_third_person_statement_the_extractor_left_out_is_kept_beside_what_it_gave() -> None:
    kept = _kept(["I caught up with David."], "I caught up with David. Lena moved to Oslo.")
    assert kept == ["I caught up with David.", "Lena moved to Oslo"]


_NAMES = st.from_regex(r"[BDFGKLMNPRSTVZ][aeiou][bdklmnrstvz][aeiou][nrs]", fullmatch=True)  # made up: no table
_WORK = st.from_regex(r"[bdfgklmnprstvz][aeiou][bdfgklmnprstvz][aeiou][bdfgklmnprstvz]ing", fullmatch=True)
_PLACE = st.text("澜沁瀚翊珂琰璟溪岚", min_size=2, max_size=3)


@given(_NAMES, _WORK, _WORK, st.sampled_from(["he", "she", "they"]))
def test_a_pronoun_sentence_the_extractor_left_out_is_kept_for_the_person_named_before(
        name: str, old: str, new: str, pronoun: str) -> None:
    """bench updates (test split, the 0.5B): "David called me last night. He stopped working as a firefighter and
    retrained as a dentist." was extracted as its first sentence only, and the change was lost in silence: a
    sentence opening with a pronoun spoke of nobody. It speaks of the person the message names before it."""
    message = f"{name} called me last night. {pronoun.capitalize()} stopped {old} and started {new} last week."
    kept = _kept([f"{name} called me last night."], message)
    assert any(new in k and k.startswith(name) for k in kept), kept  # "they": the two sentences as one memory


@given(st.sampled_from(["我女儿", "我表哥", "我爸"]), st.sampled_from(["她", "他"]), _PLACE, _PLACE)
def test_a_chinese_pronoun_sentence_the_extractor_left_out_is_kept(kin: str, pronoun: str, old: str,
                                                                   new: str) -> None:
    message = f"周末和{kin}聊了聊。{pronoun}离开了{old}公司，{pronoun}现在在{new}公司上班。"  # 他 for 我女儿 too
    kept = _kept([f"周末和{kin}聊了聊。"], message)
    assert any(f"{new}公司" in k for k in kept), kept


@given(st.from_regex(r"[BDFGK][aeiou][bdfgk][aeiou][bdfgk]ton", fullmatch=True),
       st.sampled_from(["commute by bike", "ride to the office", "cycle to work"]))
def test_the_statement_a_refused_candidate_came_from_is_kept_beside_one_that_passed(brand: str, act: str) -> None:
    """bench answers (the 0.5B): "I commute by bike, a green Brompton." gave "I commute by bike." (refused: it left
    out the name) and "A green Brompton." (passed, half the clause's words), and the commute was lost. A clause
    holding a refused candidate's words that no passed one holds is not covered: the user's words are kept."""
    message = f"I {act}, a green {brand}."
    kept = _kept([f"I {act}.", f"A green {brand}."], message)
    assert any(act.split()[0] in k and brand in k for k in kept), kept


# made up (no lexicon has them) and real ones the rule was not written for
_THINGS_ZH = ["琴笛", "笙篆", "棋笙琴", "钢琴", "小提琴", "围棋", "书法", "油画", "羽毛球", "日语", "象棋", "陶艺",
              "萨克斯", "摄影", "滑板", "魔方", "编程", "吉他", "国画", "法语", "网球", "插花", "剪纸", "二胡"]


def test_a_piece_of_a_chinese_clause_the_extraction_does_not_touch_is_kept() -> None:
    """A trial of the 0.5B: "我会弹钢琴，已经学了十年。" was extracted as "我已经学了十年。", which holds more than half
    the clause's words, and the piano was lost in silence. A piece naming a thing no candidate says is not covered:
    the user's clause is kept, and the extractor's part of it goes (it says less). jieba's lexicon tags 围棋 and
    象棋 as verbs, and those two are still lost: at least 9 in 10 of the things are kept, never the fragment alone."""
    missed = []
    for i, thing in enumerate(_THINGS_ZH):
        verb, years = "学练玩"[i % 3], 2 + i
        message = f"我会{thing}，已经{verb}了{years}年。"
        kept = _kept([f"我已经{verb}了{years}年。"], message)
        if not any(thing in k and str(years) in k for k in kept):
            missed.append(thing)
        else:
            assert len(kept) == 1, kept  # not the fragment beside it
    assert len(missed) <= len(_THINGS_ZH) // 10, missed


@given(st.from_regex(r"[bdgkv][aeiou][bdklmnrst][aeiou]", fullmatch=True), st.integers(2, 30))
def test_a_piece_of_an_english_clause_the_extraction_does_not_touch_is_kept(thing: str, years: int) -> None:
    message = f"I play the {thing}, been learning for {years} years."
    kept = _kept([f"I have been learning for {years} years."], message)
    assert any(thing in k for k in kept), kept


def test_a_chinese_candidate_saying_only_how_long_goes_back_with_the_thing_it_is_about() -> None:
    """Two new users' trials: "我会弹吉他，已经弹了五年。" was extracted as "我会弹吉他" and "我已经弹了五年。", both
    stored (what was played for five years?), and "what do I play, and for how long?" found half. A candidate saying
    only how long, when or how much of what another says goes back with it as the user said the two: one memory,
    for things no rule lists, said with or without a second 我."""
    missed = []
    for i, thing in enumerate(_THINGS_ZH):
        verb, years, me = "学练玩弹"[i % 4], 2 + i, "我" if i % 2 else ""
        message = f"我会{verb}{thing}，{me}已经{verb}了{years}年。"
        kept = _kept([f"我会{verb}{thing}", f"我已经{verb}了{years}年。"], message)
        if kept != [message.rstrip("。")] and kept != [message]:
            missed.append((thing, kept))
    assert not missed, missed


@given(st.from_regex(r"[bdgkv][aeiou][bdklmnrst][aeiou]", fullmatch=True), st.integers(2, 30),
       st.sampled_from([", and I have been playing it for", ". I have played it for", ", I've played for"]))
def test_an_english_candidate_saying_only_how_long_goes_back_with_the_thing_it_is_about(
        thing: str, years: int, joint: str) -> None:
    message = f"I play the {thing}{joint} {years} years."
    kept = _kept([f"I play the {thing}.", f"I have been playing for {years} years."], message)
    assert len(kept) == 1 and thing in kept[0] and str(years) in kept[0], kept


@pytest.mark.parametrize(("message", "extracted"), [
    ("I live in Oslo, and I have two kids.", ["I live in Oslo.", "I have two kids."]),
    ("I work at Google and I moved to Paris five years ago.",
     ["I work at Google.", "I moved to Paris five years ago."]),
    ("我住在杭州，我养了三只猫。", ["我住在杭州。", "我养了三只猫。"]),
])
def test_a_candidate_with_a_time_or_number_about_another_thing_stays_its_own(message: str,
                                                                            extracted: list[str]) -> None:
    assert sorted(k.rstrip(".。") for k in _kept(extracted, message)) == sorted(e.rstrip(".。") for e in extracted)


@pytest.mark.parametrize(("message", "extracted"), [
    ("我住在杭州，也喜欢这里。", "我住在杭州。"),  # a piece naming no thing: the fact was taken
    ("Next Friday, I'm flying to Tokyo for a conference.", "I'm flying to Tokyo for a conference."),  # a time
    ("我在一家医院工作，是护士。", "我在一家医院当护士。"),
])
def test_a_piece_that_names_nothing_unsaid_is_covered(message: str, extracted: str) -> None:
    assert uncovered_statements(message, [extracted]) == []


@pytest.mark.parametrize("opening", ["说实话", "其实吧", "总之", "不过呢", "说真的"])
def test_a_chinese_opening_that_states_nothing_is_not_kept_as_a_fact(opening: str) -> None:
    """A fresh look at uncovered_statements: "说实话，我最近搬到杭州了。" gave "我说实话" beside the move."""
    assert uncovered_statements(f"{opening}，我最近搬到杭州了。", ["我最近搬到杭州了。"]) == []
    assert uncovered_statements(f"{opening}，我住在杭州，我辞职了。", ["我住在杭州。"]) == ["我辞职了"]


@pytest.mark.parametrize("remark", ["no worries if you can't remember", "you're funny", "你记性真好",
                                    "you are the best, seriously"])
def test_a_remark_to_the_assistant_is_not_kept_when_the_extractor_made_a_fact_of_it(remark: str) -> None:
    """bench answers (the 0.5B, test split): "no worries if you can't remember" was stored as a memory, kept in the
    user's words because the extractor's candidate for it was refused. A sentence whose every clause has the
    assistant as its subject is said about the conversation, not the user's life."""
    assert kept_statements(remark, ["The user is not worried."]) == ""
    assert _kept(["The user is not worried."], remark) == []
    assert kept_statements("小雨毕业了。", ["用户毕业了。"]) == "小雨毕业了。"  # no name a rule sees: still kept


@given(_NAMES, st.sampled_from(["Chengdu", "Leeds", "Porto"]), st.sampled_from(["a nurse", "a welder", "a baker"]))
def test_a_fragment_made_whole_is_one_fact_per_memory_again(name: str, city: str, job: str) -> None:
    """A new user's trial: "Hi! I'm Leo. I live in Chengdu and I work as a nurse at a children's hospital." was
    stored as that one sentence (the extractor's fragment "and works as a nurse" made whole), so neither "I moved
    to Shanghai" nor "I changed jobs" could retire it, and "I'm Leo" was stored nowhere (one word, skipped)."""
    assume(name.lower() not in job)  # "I'm Baker." beside "I work as a baker": a restatement, perhaps
    message = f"Hi! I'm {name}. I live in {city} and I work as {job} at a hospital."
    kept = _kept(["and works as a nurse"], message)
    assert f"I live in {city}" in kept and f"I work as {job} at a hospital." in kept, kept
    assert f"I'm {name}." in kept or f"I'm {name}" in kept, kept
    assert not any("and I work" in k for k in kept), kept
    kept = _kept([f"I live in {city}", f"I work as {job} at a hospital."], message)
    assert any(k.startswith(f"I'm {name}") for k in kept), kept  # the name beside what the extractor gave
    assert uncovered_statements("I'm tired. I live in Leeds.", ["I live in Leeds"]) == []  # a state, not a fact


@pytest.mark.parametrize(("text", "modal"), [("I may move to Oslo.", True), ("You may like it.", True),
                                             ("I moved to Oslo in May.", False), ("My birthday is on May 3.", False),
                                             ("May 3 is my birthday.", False), ("I started in early May.", False)])
def test_may_the_month_is_no_modality(text: str, modal: bool) -> None:
    """'Your bbbb is on May 1.' was cut as a memory said back with a modality (the month read as 'may')."""
    from memory.language.meaning import marks

    assert ("a modality (want, might, 想…)" in marks(text)) is modal


@pytest.mark.parametrize("text", ["我住在杭州。今年三十岁。", "I live in Oslo. I am 35.", "I live in Oslo, and I'm 35.",
                                  "我住在杭州，我今年三十岁。"])
def test_an_age_or_a_number_alone_is_no_detail_of_the_fact_before_it(text: str) -> None:
    """A piece that shares nothing with the fact before it is another fact (the age is not where the user lives)."""
    from memory.language.facts import split_facts

    assert len(split_facts(text)) == 2


@pytest.mark.parametrize(("message", "extracted", "kept"), [
    ("Hi, I'm Marta.", ["Hi, I'm Marta."], "I'm Marta."),
    ("Hi, I'm Marta.", [], "I'm Marta"),
    ("嗨，我是小王。", ["嗨，我是小王。"], "我是小王。"),
    ("Thanks! I live in Oslo.", ["I live in Oslo."], "I live in Oslo."),
])
def test_a_greeting_before_a_fact_is_not_kept_with_it(message: str, extracted: list[str], kept: str) -> None:
    """A new user's trial: "Hi, I'm Marta." was stored as it was, greeting and all."""
    assert [k.rstrip(".。") for k in _kept(extracted, message)] == [kept.rstrip(".。")]


_PSEUDO = st.from_regex(r"[A-Z][aeiou][bdklmnrstv][aeiou][bdklmnrstv]{1,2}", fullmatch=True)


@given(label=st.one_of(_PSEUDO, st.builds(lambda a, b: f"{a} {b.lower()}", _PSEUDO, _PSEUDO)),
       fact=st.sampled_from(["I moved to Oslo last month.", "my sister Ana is a pilot.", "I play the cello."]),
       extracted=st.booleans())
def test_a_label_before_a_colon_is_not_kept_with_the_fact(label: str, fact: str, extracted: bool) -> None:
    """A new user's trial kept "Big news: I moved…" in memory. A label of four words at most before a colon that
    opens a first-person statement, saying no number, time or first person of its own, is about the telling."""
    message = f"{label}: {fact}"
    kept = _kept([message] if extracted else [], message)
    assert [k.rstrip(".") for k in kept] == [fact[:1].upper() + fact[1:].rstrip(".")], kept


@given(label=st.text(st.characters(min_codepoint=0x4E00, max_codepoint=0x9FA5), min_size=2, max_size=4),
       city=st.sampled_from(["杭州", "成都", "厦门"]))
def test_a_chinese_label_before_a_colon_is_not_kept_with_the_fact(label: str, city: str) -> None:
    # no first person, time or question word of its own ("什么：…" asks)
    assume("我" not in label and not any(c in label for c in "年月日天周前后今明昨什么吗呢哪谁几怎多少为何"))
    message = f"{label}：我搬到{city}了。"
    assert [k.rstrip("。") for k in _kept([message], message)] == [f"我搬到{city}了"]


@pytest.mark.parametrize("message", ["2019: I moved to Oslo.", "Last week: I moved to Oslo.",
                                     "Tom: he lives in Rome.", "My favourite food: sushi.",
                                     "Last week, I moved to Oslo.", "In Oslo, I work as a nurse."])
def test_an_opening_that_says_something_stays(message: str) -> None:
    """A number, a time, a name the rest speaks of, or a fact before the colon is part of what was said."""
    from memory.language.junk import without_greeting

    assert without_greeting(message) == message


@given(opening=st.sampled_from(["Oh and", "And", "So", "But", "Oh, and", "Um, so"]),
       fact=st.sampled_from(["I bought a {} bike.", "my brother works at {}.", "I adopted a cat named {}."]),
       name=_PSEUDO)
def test_words_that_state_nothing_before_the_subject_are_not_kept(opening: str, fact: str, name: str) -> None:
    """A new user's trial kept "Oh and" in memory; and "…, nice to meet you!" after a fact goes too."""
    from memory.language.junk import without_greeting

    said = fact.format(name)
    assert without_greeting(f"{opening} {said}") == said[:1].upper() + said[1:]
    assert without_greeting(f"{said.rstrip('.')}, nice to meet you!") == said[:1].upper() + said[1:]


@given(opening=st.sampled_from(["Oh and", "Also,", "Plus", "Anyway,", "Oh, and also", "By the way,"]),
       zh=st.sampled_from(["还有，", "另外，", "对了，", "而且，", "顺便说一下，"]), name=_PSEUDO,
       fact=st.sampled_from(["{} quit engineering, he's a teacher in Calgary now.", "{} moved to Lisbon.",
                             "{} got a new job."]))
def test_a_discourse_marker_before_a_name_or_a_clause_is_not_kept(opening: str, zh: str, name: str,
                                                                   fact: str) -> None:
    """A fourth new user's trial stored "Oh and Karim quit engineering…" and "还有，我换工作了…", and "What do you
    remember about me?" read them out so. Words that only join what is said to what was said before go; a name,
    a time or a place that opens the sentence stays."""
    from memory.language.junk import without_greeting

    said = fact.format(name.capitalize())
    assert without_greeting(f"{opening} {said}") == said
    assert without_greeting(f"{zh}我换工作了，现在在一家制药公司。") == "我换工作了，现在在一家制药公司。"
    for kept in (f"The {name.capitalize()} is sold.", f"In Paris {name.capitalize()} lives well.",
                 f"Yesterday {name.capitalize()} moved to Lisbon."):
        assert without_greeting(kept) == kept


_ZH_N = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]


@given(n=st.integers(1, 12), who=st.sampled_from(["我姐姐", "我", "我朋友小林", "我们公司"]),
       when=st.sampled_from(["明年", "今年", ""]), does=st.sampled_from(["结婚", "搬家", "去日本", "开新店"]))
def test_a_month_made_a_count_of_months_changes_the_meaning(n: int, who: str, when: str, does: str) -> None:
    """bench answers test zh-s-wedding: "…明年六月结婚" was extracted as "…明年六个月结婚" and answered as said."""
    message = f"{who}{when}{_ZH_N[n - 1]}月{does}。"
    assert changed_meaning(f"{who}{when}{_ZH_N[n - 1]}个月{does}。", message) is not None
    assert changed_meaning(f"{who}{when}{n}月{does}。", message) is None


@given(n=st.integers(2, 12), other=st.integers(2, 12), thing=st.sampled_from(["cats", "guitars", "bikes", "plants"]))
def test_a_number_said_in_figures_keeps_the_meaning_and_another_number_changes_it(n: int, other: int,
                                                                                  thing: str) -> None:
    from memory.language.words import EN_NUMERALS

    word = next(w for w, v in EN_NUMERALS.items() if v == n)
    message = f"I have {word} {thing}."
    assert changed_meaning(f"The user has {n} {thing}.", message) is None
    assert (changed_meaning(f"The user has {other} {thing}.", message) is None) is (other == n)


@pytest.mark.parametrize(("numeral", "value"), [("三十", 30), ("十二", 12), ("十", 10), ("两", 2), ("三千五", 3500),
                                                ("两百五", 250), ("三千零五", 3005), ("一万二", 12000),
                                                ("二零二六", 2026), ("三", 3), ("不", None), ("", None)])
def test_one_reader_of_chinese_numerals(numeral: str, value: int | None) -> None:
    """temporal's and meaning's readers were two; meaning's read "二零二六" as 6, so "二零二六年" was refused for
    "2026年" as a number the message does not say."""
    from memory.language.words import chinese_numeral

    assert chinese_numeral(numeral) == value
    if value is not None:
        assert changed_meaning(f"用户{value}年搬到了杭州。", f"我{numeral}年搬到了杭州。") is None
