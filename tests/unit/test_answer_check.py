"""A small model's answer as the user sees it (issue 25, items 3-5): nothing invented, never the user's voice,
never stuck, and the stream shows what is stored."""

from __future__ import annotations

import itertools
from datetime import datetime
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memory.language.answers import (
    NOT_TOLD,
    NOTED,
    RECALLED,
    RETIMED,
    WELCOME,
    SentenceGuard,
    asks_what_is_remembered,
    check_answer,
    clean_answer,
    clock_words,
    commentary,
    echoes_prompt,
    invented,
    off_topic,
    reaction,
    recites,
    repeats_a_question,
    replacements,
    second_person,
    speaks_as_user,
    stale,
    stuck,
    takes_over,
    unsupported,
)
from memory.language.text import language
from memory.language.words import content_units

TOLD = "I sold the Civic last week and bought a Tesla Model 3. My brother Tom works at Google."


@pytest.mark.parametrize(("sentence", "made_up"), [
    ("You sold your Civic for $10,000.", ["10,000"]),
    ("The weather in 2026-12-04 is sunny!", ["2026-12-04"]),
    ("Tom works at Microsoft now.", ["Microsoft"]),
    ("You drive a Tesla Model 3 now.", []),
    ("Your brother Tom works at Google.", []),
    ("Tesla is a fine choice.", []),  # a first word is a name only when it could be nothing else
    ("Your new iPhone is nice.", ["iPhone"]),
    ("你开的是Tesla Model 3。", []),
    ("你开的是BMW。", ["BMW"]),  # a Latin word in a Chinese answer that nothing said
    ("你今年35岁。", ["35"]),
])
def test_a_number_date_or_name_nothing_said_is_invented(sentence: str, made_up: list[str]) -> None:
    assert invented(sentence, TOLD) == made_up


@pytest.mark.parametrize(("said", "to_user"), [
    ("I live in Hangzhou.", "You live in Hangzhou."),
    ("I'm a teacher and my school is in Suzhou.", "You're a teacher and your school is in Suzhou."),
    ("I am vegetarian.", "You are vegetarian."),
    ("我是小学老师。", "你是小学老师。"),
    ("我们住在杭州。", "你们住在杭州。"),
])
def test_the_users_fact_is_said_to_the_user(said: str, to_user: str) -> None:
    assert second_person(said) == to_user


def test_only_a_restated_fact_speaks_as_the_user() -> None:
    facts = ["I live in Hangzhou.", "我是小学老师。"]
    assert speaks_as_user("I live in Hangzhou.", facts)
    assert speaks_as_user("我是小学老师。", facts)
    assert not speaks_as_user("I don't remember that.", facts)  # the assistant's own "I"
    assert not speaks_as_user("I'm glad to help!", facts)
    assert not speaks_as_user("You live in Hangzhou.", facts)


@given(st.sampled_from(["护士", "律师", "厨师", "记者", "飞行员", "牙医"]), st.sampled_from(["是一名", "是个", "做"]))
def test_a_short_chinese_restatement_in_the_users_voice_is_turned(job: str, verb: str) -> None:
    """bench updates (the 0.5B): "我是做什么工作的？" beside "我的工作是护士。" got "我是一名护士。", which shares only
    护士 and function characters (是, 一) with the memory: compared by content characters it is the user's voice."""
    question, memory = "我是做什么工作的？", f"我的工作是{job}。"
    answer = f"我{verb}{job}。"
    assert speaks_as_user(answer, [memory, question])
    assert check_answer(answer, question, sources=f"{question}\n{memory}", facts=[memory, question]).text == \
        f"你{verb}{job}。"
    for own in ("我不太确定。", "我不知道。"):  # the assistant's own first person
        assert not speaks_as_user(own, [memory, question])


def test_an_answer_is_stuck_when_it_repeats_an_earlier_one_to_another_message() -> None:
    earlier = [("I drive a Civic.", "You have always wanted a blue Honda Civic. I live in Suzhou.")]
    assert stuck("You have always wanted a blue Honda Civic. I live in Suzhou!", "Tom joined Microsoft.", earlier)
    assert not stuck("You drive a Civic.", "Tom joined Microsoft.", earlier)
    assert not stuck(earlier[0][1], "I drive a Civic.", earlier)  # the same message again: the same answer is fine


@pytest.mark.parametrize(("answer", "message", "facts", "plain"), [
    ("You are 25 years old.", "How old am I?", [], "You haven't told me that, so I don't know."),
    ("你的生日是5月3日。", "我的生日是哪天？", [], "你还没有告诉过我这件事，所以我不知道。"),
    ("You paid $30,000 for it.", "I bought a Tesla Model 3.", [], "Got it."),
    ("You drive a Tesla Model 3 that cost $30,000.", "What car do I drive?", ["I drive a Tesla Model 3."],
     "I'm not sure; what I remember is: You drive a Tesla Model 3."),
    ("You have 2 dogs.", "What car do I drive?", ["I have a cat."],  # a memory about something else: not it
     "You haven't told me that, so I don't know."),
])
def test_when_every_sentence_is_invented_the_answer_is_plain(answer: str, message: str, facts: list[str],
                                                             plain: str) -> None:
    checked = check_answer(answer, message, sources=" ".join([message, *facts]), facts=[*facts, message])
    assert checked.text == plain and checked.changes


def test_the_date_is_a_source_only_when_the_message_asks_about_time() -> None:
    now = "2026-12-04 10:00 Friday December"
    assert check_answer("Today is 2026-12-04.", "What's the date today?", sources="", facts=[""], now=now
                        ).changes == ()
    assert check_answer("It is Friday, 2026-12-04.", "I live in Hangzhou.", sources="I live in Hangzhou.",
                        facts=[""], now=now).text == "Got it."


def test_a_capable_model_keeps_its_knowledge() -> None:
    answer = "Paris is the capital of France, about 2,100,000 people live there."
    assert check_answer(answer, "What's the capital of France?", sources=None, facts=["x"]).text == answer


_PIECES = st.sampled_from(["You ", "drive ", "a ", "Tesla ", "Model ", "3", ". ", "It ", "cost ", "$30,000", "! ",
                           "I ", "live ", "in ", "Hangzhou", ".", "\n", "BMW ", "你", "住在", "杭州", "。"])


@given(st.lists(_PIECES, min_size=1, max_size=30, unique=True), st.integers(1, 7))
def test_the_stream_shows_what_is_stored(pieces: list[str], cut: int) -> None:
    """Any answer, in chunks of any size, streams as it is stored (nodes/respond.py: cleaned, then checked as a
    whole)."""
    answer = "".join(pieces)
    message, recalled = "Where do I live?", ["I live in Hangzhou.", "I bought a Tesla Model 3."]
    shown: list[str] = []
    guard = SentenceGuard(message, shown.append)
    guard.context(recalled=recalled, window=[])
    for i in range(0, len(answer), cut):
        guard(answer[i:i + cut])
    guard.flush()
    stored = check_answer(clean_answer(answer), message, sources="\n".join([message, *recalled]),
                          facts=[*recalled, message])
    assert "".join(shown).split() == stored.text.split()
    # nothing before the first word or after the last: the lines of cut sentences left blank ones (a new user's
    # trial)
    assert "".join(shown) == "".join(shown).strip()


def test_a_plain_answer_never_states_what_a_newer_memory_replaced() -> None:
    """The new-user trial: the answer was cut, and the plain answer picked "I live in Suzhou" (it shares "live"
    with the question) although recall marked it earlier, below the move that followed it."""
    recalled = [("我搬到杭州了", "now"), ("I live in Suzhou.", "earlier"), ("I have a cat.", "")]
    replaced = replacements(recalled, "Where do I live now?", windowed=False)
    assert replaced == {"I live in Suzhou.": "我搬到杭州了"}
    checked = check_answer("You live in Zurich.", "Where do I live now?", sources=" ".join(t for t, _ in recalled),
                           facts=[*(t for t, _ in recalled), "Where do I live now?"], replaced=replaced)
    assert "Suzhou" not in checked.text and "杭州" in checked.text


@given(st.lists(st.tuples(st.sampled_from("abcdefgh"), st.sampled_from(["", "now", "earlier"])), max_size=8,
                unique_by=lambda r: r[0]))
def test_only_what_was_marked_earlier_is_replaced_and_by_a_newer_one(recalled: list[tuple[str, str]]) -> None:
    replaced = replacements(recalled, "Where do I live?", windowed=False)
    assert all(c == "earlier" for t, c in recalled if t in replaced)
    assert set(replaced.values()) <= {t for t, c in recalled if c == "now"}


def test_an_answer_is_cut_into_sentences_as_the_users_text_is() -> None:
    """One sentence splitter: "72.5" and "Dr. Li" are no sentence ends in an answer either."""
    assert clean_answer("You weigh 72.5 kg. You weigh 72.5 kg.") == "You weigh 72.5 kg."
    assert check_answer("Dr. Li is your doctor.", "Who is my doctor?", sources="Dr. Li is my doctor.",
                        facts=["Dr. Li is my doctor."]).text == "Dr. Li is your doctor."


@given(st.text(alphabet=st.sampled_from("ab .!?。；\n5"), max_size=40))
def test_the_sentences_of_a_text_join_back_into_it(text: str) -> None:
    from memory.language.text import sentence_spans, sentences

    assert "".join(sentence_spans(text)) == text
    assert [s.strip() for s in sentence_spans(text) if s.strip()] == sentences(text)


# Generated subjects: values are random words (Latin, capitalised or not) or random Chinese characters, drawn
# from disjoint alphabets for the old and the new value, in templates of no particular subject.
_OLD_EN, _NEW_EN = st.text("bcdfg", min_size=4, max_size=9), st.text("klmnp", min_size=4, max_size=9)
_OLD_ZH, _NEW_ZH = st.text("甲乙丙丁戊己", min_size=2, max_size=4), st.text("子丑寅卯辰巳", min_size=2, max_size=4)
_VERBS_EN = st.sampled_from(["use", "keep", "drive", "prefer", "visit", "follow", "study", "own"])
_VERBS_ZH = st.sampled_from(["用", "养", "开", "喜欢", "去", "学", "住在", "拥有"])


def _told(old: str, new: str, verb: str, cap: bool, zh: bool) -> tuple[str, str, str, str, str]:
    """(older memory, newer memory, the question, an answer with the old value, one with the new value)."""
    if zh:
        return (f"我{verb}{old}。", f"我不再{verb}{old}了，换成了{new}。", f"我现在{verb}什么？",
                f"你{verb}{old}。", f"你现在{verb}{new}。")
    old, new = (old.capitalize(), new.capitalize()) if cap else (old, new)
    return (f"I {verb} {old}.", f"I stopped with {old} and switched to {new}.", f"What do I {verb} now?",
            f"You {verb} {old}.", f"You {verb} {new} now.")


@given(_OLD_EN, _NEW_EN, _OLD_ZH, _NEW_ZH, _VERBS_EN, _VERBS_ZH, st.booleans(), st.booleans())
def test_an_answer_about_now_never_states_what_a_newer_memory_replaced(
        old_en: str, new_en: str, old_zh: str, new_zh: str, verb_en: str, verb_zh: str, cap: bool, zh: bool) -> None:
    """Any subject, either language: recall ranked the newer memory above the older one it follows (marked
    earlier); a sentence restating the older value is cut and the plain answer states the newer memory; the new
    value stands, and so does a sentence naming both (the change itself)."""
    older, newer, question, says_old, says_new = _told(old_zh if zh else old_en, new_zh if zh else new_en,
                                                       verb_zh if zh else verb_en, cap, zh)
    recalled = [(newer, "now"), (older, "earlier")]
    replaced = replacements(recalled, question, windowed=False)
    sources, facts = f"{newer}\n{older}", [newer, older, question]
    assert stale(says_old, replaced) == older and stale(says_new, replaced) is None
    cut = check_answer(says_old, question, sources=sources, facts=facts, replaced=replaced)
    assert (new_zh if zh else new_en).lower() in cut.text.lower()  # the plain answer: the newer memory
    # said as the answer it is, not hedged: a new user's trial got "I'm not sure; what I remember is: You moved
    # from Porto to Lisbon." for "Where do I live now?"
    assert cut.text == second_person(newer)
    assert cut.changes and "replaced" in cut.changes[0]
    assert check_answer(says_new, question, sources=sources, facts=facts, replaced=replaced).text == says_new
    both = f"你不再{verb_zh}{old_zh}了，现在{verb_zh}{new_zh}。" if zh else \
        f"You stopped with {older.split()[-1].rstrip('.')} and switched to {new_en.capitalize() if cap else new_en}."
    assert check_answer(both, question, sources=sources, facts=facts, replaced=replaced).text == both


@pytest.mark.parametrize(("question", "windowed"), [("Where did I live before?", False),
                                                    ("我以前住在哪里？", False), ("去年我住在哪里？", True)])
def test_a_question_about_the_past_keeps_the_older_memory(question: str, windowed: bool) -> None:
    recalled = [("I moved to Hangzhou.", "now"), ("I live in Suzhou.", "earlier")]
    assert replacements(recalled, question, windowed=windowed) == {}
    answer = "You lived in Suzhou."
    assert check_answer(answer, question, sources="I moved to Hangzhou.\nI live in Suzhou.",
                        facts=["I moved to Hangzhou.", "I live in Suzhou.", question],
                        replaced=replacements(recalled, question, windowed=windowed)).text == answer


def test_the_stream_cuts_a_stale_sentence_as_the_stored_answer_does() -> None:
    """The streamed answer (SentenceGuard, given recall's chain marks) and the stored one agree: the restated
    older value is cut in both, and both fall back to the newer memory."""
    question, recalled, chains = "Where do I work now?", ["I quit Tencent and joined Microsoft.",
                                                          "I work at Tencent."], ["now", "earlier"]
    answer = "You work at Tencent. "
    shown: list[str] = []
    guard = SentenceGuard(question, shown.append)
    guard.context(recalled=recalled, window=[], chains=chains)
    guard(answer)
    guard.flush()
    stored = check_answer(answer, question, sources="\n".join([question, *recalled]), facts=[*recalled, question],
                          replaced=replacements(list(zip(recalled, chains, strict=True)), question, windowed=False))
    assert "".join(shown).split() == stored.text.split()
    assert "Microsoft" in stored.text and "You work at Tencent" not in stored.text


def test_the_stream_shows_the_stored_answer_when_every_sentence_was_cut() -> None:
    """When nothing the model said is shown, the stream shows the answer the turn stored (graph/api passes it on
    from the respond node's update), not one it worked out again; a sentence already shown is never followed by
    it; without the stored answer it falls back to the plain one, as before."""
    question, recalled = "Where do I work now?", ["I work at Tencent."]
    for stored, said, expected in [("You work at Tencent.", "You work at Huawei. ", "You work at Tencent."),
                                   ("You work at Tencent.", "You work at Tencent. ", "You work at Tencent."),
                                   (None, "You work at Huawei. ", None)]:
        shown: list[str] = []
        guard = SentenceGuard(question, shown.append)
        guard.context(recalled=recalled, window=[])
        guard(said)
        guard.boundary()
        if stored is not None:
            guard.stored(stored)
        guard.flush()
        plain = check_answer("", question, sources="\n".join([question, *recalled]), facts=[*recalled, question])
        assert "".join(shown).strip() == (expected or plain.text), (said, shown)
        assert len(shown) == 1


_WORDS = st.text("qrstvwxz", min_size=5, max_size=9)  # letters no source below uses: words nothing said


@given(_WORDS, _WORDS, st.sampled_from(["What's the weather like today?", "What's in the news today?",
                                        "How is the market doing now?", "今天天气怎么样？"]))
def test_a_sentence_nothing_supports_is_not_asserted(word: str, other: str, question: str) -> None:
    """Whatever the model says of a world it cannot see, in words no memory, turn or time hint holds, is cut;
    the plain answer says it was not told."""
    memories = ["I live in Hangzhou.", "My sister Mei works at Alibaba."]
    sources = "\n".join([question, *memories])
    sentence = f"It is {word} and {other} today."
    assert unsupported(sentence, question, sources, [*memories, question])
    checked = check_answer(sentence, question, sources=sources, facts=[*memories, question],
                           now="2026-12-04 22:13 Friday December")
    assert word not in checked.text and checked.changes


@pytest.mark.parametrize(("question", "answer", "memories"), [
    ("Where does my sister work now?", "Mei is at Alibaba these days.", ["My sister Mei works at Alibaba."]),
    ("What's the date today?", "Today is Friday, 2026-12-04.", []),
    ("我妹妹现在在哪里工作？", "她在阿里巴巴上班。", ["我妹妹梅在阿里巴巴工作。"]),
    ("What do I do for work now?", "You teach at a primary school.", ["我是小学老师。"]),  # a translation
    ("How are you today?", "I'm doing well, thanks.", []),  # the assistant's own first person
    ("What should I cook?", "How about a warm soup?", []),  # not about today: invented() judges names only
])
def test_a_sentence_a_source_supports_stands(question: str, answer: str, memories: list[str]) -> None:
    sources = "\n".join([question, *memories])
    checked = check_answer(answer, question, sources=sources, facts=[*memories, question],
                           now="2026-12-04 22:13 Friday December")
    assert checked.text == answer and not checked.changes


@pytest.mark.parametrize(("question", "answer"), [
    ("What do I drink in the morning?", "You drank a {w} cup in the morning."),
    ("Am I allergic to anything?", "You are allergic to {w}."),
    ("Where did I go to school?", "You studied at {w} college."),
    ("我开什么车？", "你开一辆{z}色的车。"),
    ("我养宠物吗？", "你养了一只{z}。"),
])
@given(word=_WORDS, chinese=st.text("鳄鲸鹦鹉貂獭", min_size=2, max_size=3))
def test_a_fact_of_the_user_nothing_told_is_not_asserted(question: str, answer: str, word: str,
                                                          chinese: str) -> None:
    """A question whose subject is the user ("What do I drink…", "我开什么车？") asks a fact of their life as "my X"
    does: an answer that states one in words no memory holds is cut and the user told it was not told (the
    new-user trial got "You drank a milk cup in the morning.")."""
    memories = (["我住在杭州。", "我妹妹梅在阿里巴巴工作。"] if language(question) == "zh" else
                ["I live in Hangzhou.", "My sister Mei works at Alibaba."])  # a memory in another language: not judged
    sentence = answer.format(w=word, z=chinese)
    checked = check_answer(sentence, question, sources="\n".join([question, *memories]), facts=[*memories, question])
    assert word not in checked.text and chinese not in checked.text and checked.changes


@pytest.mark.parametrize(("question", "answer"), [
    ("What should I cook tonight?", "How about a warm vegetable soup?"),
    ("Can I ask you something?", "Of course, go ahead."),
    ("我应该吃什么？", "试试清淡的粥吧。"),
    ("我们去哪里吃饭好呢？", "去吃火锅吧。"),
])
def test_advice_the_user_asks_for_is_not_judged_for_support(question: str, answer: str) -> None:
    """A modal question asks for advice or help, not a fact of the user's life: no memory has to support it."""
    checked = check_answer(answer, question, sources=question, facts=[question])
    assert checked.text == answer and not checked.changes


@given(st.text("安宁阳江山泉州南", min_size=2, max_size=2).map(lambda name: name + "市"),  # rare characters make
       st.from_regex(r"[BDFGKLMNPRSTVZ][aeiou][rlnst]{2}[aeiou]n", fullmatch=True))  # jieba take 你住在 as a name
def test_a_memorys_value_put_under_another_slot_is_cut(city: str, town: str) -> None:
    """The new-user trial: "我现在在哪里工作？" got "你现在在杭州工作。" from "我住在杭州。" (where the user lives, read
    as where they work). The slot tables are the evidence; a memory they do not read is never judged."""
    for question, answer, memory in [("我现在在哪里工作？", f"你现在在{city}工作。", f"我住在{city}。"),
                                     ("Where do I work now?", f"You work in {town}.", f"I live in {town}.")]:
        checked = check_answer(answer, question, sources=f"{question}\n{memory}", facts=[memory, question])
        assert city not in checked.text and town not in checked.text and checked.changes
    for question, answer, memory in [("我现在住在哪里？", f"你住在{city}。", f"我住在{city}。"),
                                     ("Where do I live now?", f"You live in {town}.", f"My home is in {town}."),
                                     ("Where does my sister work?", f"Your sister works at {town}.",
                                      f"My sister Mei works at {town}.")]:
        checked = check_answer(answer, question, sources=f"{question}\n{memory}", facts=[memory, question])
        assert checked.text == answer and not checked.changes


@pytest.mark.parametrize("answer", ["You drink 乌龙茶 every morning.", "Every morning you drink 乌龙茶."])
def test_an_english_answer_quoting_a_chinese_memory_keeps_the_english_rules(answer: str) -> None:
    """The new-user trial: "What do I drink in the morning?" beside "我每天早上喝乌龙茶。" was answered "You haven't
    told me that": the model's "You drink 乌龙茶 every morning." was read as a Chinese sentence, every Latin word a
    name nothing said ('You', 'every')."""
    question, memory = "What do I drink in the morning?", "我每天早上喝乌龙茶。"
    assert invented(answer, f"{question}\n{memory}") == []
    assert invented("你每天早上喝Starbucks。", f"{question}\n{memory}") == ["Starbucks"]  # Chinese: a name


def test_the_plain_answer_reads_out_no_memory_that_shares_only_the_time_asked_at() -> None:
    """The new-user trial: "我现在在哪里工作？" got "我不太确定；我记得的是：你女儿转学了，她现在在阳光小学读书。": the
    daughter's school shares only 现在 with the question."""
    question = "我现在在哪里工作？"
    memories = ["我女儿转学了，她现在在阳光小学读书。", "我住在杭州。"]
    checked = check_answer("你现在在火星工作。", question, sources="\n".join([question, *memories]),
                           facts=[*memories, question])
    assert "阳光小学" not in checked.text and checked.changes


@pytest.mark.parametrize("line", ["现在：你 moved to Hangzhou.", "earlier (2026-11-20): You lived in Suzhou.",
                                  "Now: you live in Hangzhou.", "以前（2026-11-20）：你住在苏州。"])
def test_a_memory_lines_mark_read_back_is_an_echo(line: str) -> None:
    """The new-user trial: "你女儿现在在阳光小学读书。现在：你 moved to Hangzhou." (the compact prompt's "now:" mark,
    translated, and another memory). "Now you live in Hangzhou." says the time, not the mark."""
    assert echoes_prompt(line)
    assert clean_answer(f"你女儿现在在阳光小学读书。{line}") == "你女儿现在在阳光小学读书。"
    assert not echoes_prompt("Now you live in Hangzhou.") and not echoes_prompt("现在你住在杭州。")


def test_a_statement_is_not_judged_for_support() -> None:
    """"I live in Hangzhou now." answered "Lovely." is an acknowledgement, not a claim about today."""
    assert not unsupported("Lovely.", "I live in Hangzhou now.", "I live in Hangzhou now.",
                           ["I live in Hangzhou now."])


@given(st.text("bcdfgkmnprt", min_size=3, max_size=6), st.text("abcdefghijklmnop", min_size=1, max_size=5))
def test_a_name_is_known_only_as_a_whole_word(name: str, tail: str) -> None:
    """A name the sources hold only inside a longer word ("Tom" in "tomorrow") was never said."""
    name = name.capitalize()
    assert invented(f"Your friend {name} called.", f"see you {name.lower()}{tail} at noon") == [name]
    assert invented(f"Your friend {name} called.", f"My friend {name} called me.") == []
    assert invented(f"{name}'s car is red.", f"My friend {name} has a red car.") == []


@pytest.mark.parametrize(("sentence", "facts", "as_user"), [
    ("我是一名建筑师。", ["我是建筑师。"], True),  # bench updates test zh-role-1: two bigrams of five, 4 of 6 chars
    ("我在一家医院当护士。", ["我转行当了护士，在一家医院。"], True),
    ("我记得你是建筑师。", ["我是建筑师。"], False),  # the assistant, speaking to the user
    ("I remember you live in Suzhou.", ["I live in Suzhou."], False),
    ("我不太确定。", ["我是建筑师。"], False),
])
def test_the_users_voice_in_chinese_is_found_by_characters_too(sentence: str, facts: list[str],
                                                               as_user: bool) -> None:
    assert speaks_as_user(sentence, facts) is as_user


@pytest.mark.parametrize(("sentence", "older", "newer", "restates"), [
    # the newer memory names the older value in a clause of its own: what only it says is its other clause
    ("你用三星Galaxy S23。", "我的手机是三星Galaxy S23。", "我把三星Galaxy S23送给了侄子，自己换了谷歌Pixel 8。", True),
    ("The Dell XPS 13 is used now.", "I do all my work on a Dell XPS.",
     "The Dell XPS 13 stopped charging, I bought a HP Spectre instead.", True),
    ("You use an HP Spectre now.", "I do all my work on a Dell XPS.",
     "The Dell XPS 13 stopped charging, I bought a HP Spectre instead.", False),
    ("你换了OPPO Find X7。", "我手机是小米14。", "我的小米14上周坏了，就买了OPPO Find X7。", False),
    # one clause naming both: its words the older lacks
    ("You live in Suzhou.", "I live in Suzhou.", "I moved from Suzhou to Hangzhou.", True),
    ("You live in Hangzhou.", "I live in Suzhou.", "I moved from Suzhou to Hangzhou.", False),
    ("你住在杭州。", "I live in Suzhou.", "我搬到杭州了", False),  # shares nothing with either: not judged
])
def test_a_restated_older_value_is_found_when_the_newer_memory_names_it_too(sentence: str, older: str, newer: str,
                                                                            restates: bool) -> None:
    assert (stale(sentence, {older: newer}) == older) is restates



_TOPIC = st.text("bcdfghjklm", min_size=4, max_size=8)  # the question's subject
_OTHER = st.text("npqrstvwxz", min_size=4, max_size=8)  # another memory's: no letter in common
_VALUE = st.text("aeiouy", min_size=4, max_size=8)


@given(_TOPIC, _OTHER, _VALUE)
def test_an_answer_about_another_memory_than_the_questions_gives_way_to_the_best_one(
        topic: str, other: str, value: str) -> None:
    """The 0.5B read out the other memories it was shown ("Your birthday is on March 14th." for "What do I drink
    in the morning?"): a sentence sharing no word with the question nor with recall's first memory is cut, and
    the plain answer states that memory."""
    question, best, aside = f"What is my {topic}?", f"My {topic} is {value}.", f"My {other} is great."
    facts = [best, aside, question]
    assert off_topic(f"Your {other} is great.", question, facts)
    assert not off_topic(f"Your {topic} is {value}.", question, facts)
    assert not off_topic(f"It is {value}.", question, facts)  # shares the best memory's word
    checked = check_answer(f"Your {other} is great.", question, sources="\n".join(facts), facts=facts)
    assert value in checked.text and other not in checked.text


@given(st.from_regex(r"[BDFGK][aeiou][bdfgk][aeiou][bdfgk]", fullmatch=True),  # made up, and no stem in common
       st.from_regex(r"[lmnprstvz][aeiou][lmnprstvz][aeiou]ed", fullmatch=True))
def test_a_question_about_the_user_is_about_recalls_first_memory_even_sharing_no_word(org: str,
                                                                                       trait: str) -> None:
    """bench updates (the 0.5B): "Where do I work?" beside "I quit Tencent last month and joined Microsoft." (no
    word in common) got "You are left-handed.", another memory read out."""
    question = "Where do I work?"
    facts = [f"I quit my old job last month and joined {org}.", f"I'm {trait}.", question]
    assert off_topic(f"You are {trait}.", question, facts)
    assert not off_topic(f"You joined {org} last month.", question, facts)
    assert not off_topic("How about pasta?", "What should I cook tonight?", facts)  # advice: about no memory


@pytest.mark.parametrize(("sentence", "question", "best"), [
    ("Sure.", "Can you help me?", "I live in Hangzhou."),  # a question about no memory
    ("You teach at a primary school.", "What do I do for work now?", "我是小学老师。"),  # a translation
    ("你住在杭州。", "Where do I live?", "I live in Hangzhou."),  # another language than the question
    ("I'm doing well, thanks.", "I live in Hangzhou.", "I live in Hangzhou."),  # not a question
    ("You lived in Suzhou.", "Where did I live before?", "I moved to Hangzhou."),  # 'live': a memory's word
])
def test_what_off_topic_does_not_judge(sentence: str, question: str, best: str) -> None:
    assert not off_topic(sentence, question, [best, "I live in Suzhou.", question])



@given(st.lists(st.text("qrstvwxz", min_size=4, max_size=8), min_size=3, max_size=6, unique=True))
def test_a_statement_is_acknowledged_not_lectured_on(words: list[str]) -> None:
    """The new-user trial: "I live in Hangzhou and I love green tea." got three sentences on green tea's health
    benefits. A remark on a statement whose words mostly come from nowhere is cut; the plain answer acknowledges."""
    message = "I live in Hangzhou and I love green tea."
    remark = "Green tea " + " ".join(words) + "."
    assert commentary(remark, message, message)
    assert check_answer(remark, message, sources=message, facts=[message]).text == "Got it."
    for kept in ("Got it, you live in Hangzhou and love green tea.", "Nice!", "好的。"):
        assert not commentary(kept, message, message)


@pytest.mark.parametrize(("message", "remark", "kept"), [
    ("I switched from oolong tea to coffee now.", "Oolong tea is now available at your local market.",
     "Got it, you switched from oolong tea to coffee."),
    ("I sold the Mazda and bought a Kia EV6.", "The Kia EV6 is a great electric crossover.",
     "Nice, you bought a Kia EV6."),
])
def test_a_remark_half_of_whose_words_come_from_nowhere_is_commentary(message: str, remark: str, kept: str) -> None:
    """The new-user trial: a statement got a sentence that says the message's words and as many of its own."""
    assert commentary(remark, message, message)
    assert not commentary(kept, message, message)


_SURNAMES = "王李张刘陈杨赵黄周吴徐孙马朱胡郭何高林罗"
_GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰"
_SHOP_CHARS = "味香居轩阁坊斋园楼庄堂记福源"


@given(st.sampled_from(_SURNAMES), st.text(alphabet=_GIVEN, min_size=1, max_size=2),
       st.text(alphabet=_SHOP_CHARS, min_size=3, max_size=3), st.booleans())
def test_a_chinese_name_nothing_said_is_invented(surname: str, given_name: str, shop: str, told: bool) -> None:
    """Chinese names have no capital: a person's name (generated, so in no table) or a quoted name the sources
    never say is invented; the same sentence with the name told is not."""
    person = surname + given_name
    sources = (f"我的西班牙语老师叫{person}。我常去一家叫“{shop}”的餐厅。" if told
               else "我在学西班牙语。我喜欢吃川菜。")
    said_person = f"你的西班牙语老师是{person}。"
    said_shop = f"你喜欢一家名为“{shop}”的餐厅。"
    if told:
        assert invented(said_person, sources) == []
        assert invented(said_shop, sources) == []
    else:
        assert shop in invented(said_shop, sources)


def test_most_chinese_persons_names_nothing_said_are_invented() -> None:
    """A person's name is found by jieba's parts of speech, which miss some ('高娜', '何刚': 98 % of 300 generated
    names found when this was written); a told name is never judged invented, and '谢谢' (tagged a person) is not
    judged in the answer to a statement."""
    import random

    rng = random.Random(7)
    found, told_flagged = 0, 0
    for _ in range(300):
        person = rng.choice(_SURNAMES) + "".join(rng.choice(_GIVEN) for _ in range(rng.choice([1, 2])))
        sentence = rng.choice(["你的西班牙语老师是{p}。", "{p}是你的同事。", "你哥哥的女朋友叫{p}。",
                               "你和{p}一起去爬山了。"]).format(p=person)
        found += bool(invented(sentence, "我在学西班牙语。我喜欢吃川菜。"))
        told_flagged += bool(invented(sentence, f"我在学西班牙语，老师叫{person}。我和哥哥去爬山了，同事也去了。"))
    assert found >= 0.9 * 300
    assert told_flagged == 0
    assert invented("谢谢！", "我们昨天去爬山了。", chinese=False) == []


@pytest.mark.parametrize("sentence", ["你哥哥李伟是一名飞行员。", "你哥在东航当飞行员。", "你住在杭州，喜欢喝龙井茶。"])
def test_a_chinese_name_said_in_other_words_is_not_invented(sentence: str) -> None:
    """jieba tags 哥哥 a place; a name whose every character was said (哥 of 我哥) is no invention."""
    assert invented(sentence, "我哥李伟在东航当飞行员。我住在杭州，喜欢喝龙井茶。") == []


def test_every_line_of_the_answer_prompts_read_back_is_an_echo() -> None:
    """Any sentence of the answer prompts' own text (five words or more), read back as an answer, is cut: the
    guard reads the prompt files, not a list of their lines ('Address the user as "you".' passed the list)."""
    from memory.language.answers import _ANSWER_PROMPTS, ECHO_WORDS, clean_answer, degenerate, echoes_prompt
    from memory.language.text import sentences
    from prompts import load

    checked = 0
    for name in _ANSWER_PROMPTS:
        for line in load(name).splitlines():
            for sentence in sentences(line):
                if "${" in sentence or len(sentence.split()) < ECHO_WORDS:
                    continue
                checked += 1
                assert echoes_prompt(sentence), sentence
                assert clean_answer(f"You live in Porto. {sentence}") == "You live in Porto."
                assert degenerate(f"You live in Porto. {sentence}", "Where do I live?") == "prompt echo"
    assert checked >= 10


def test_answers_from_the_users_facts_are_no_echo() -> None:
    """The told facts of every bench scenario, said to the user, share no five-word run with the prompts."""
    from bench.scenarios import SCENARIOS
    from memory.language.answers import echoes_prompt, second_person

    said = [second_person(fact) for sc in SCENARIOS for turn in getattr(sc, "facts", ()) for fact in turn[1:]
            if isinstance(fact, str)]
    assert len(said) >= 40
    assert [s for s in said if echoes_prompt(s)] == []


_CHATTER = st.sampled_from(["sweet", "lol ok", "cool", "quick question", "haha nice", "来了来了", "哈哈好的", "嗯嗯"])


@given(_TOPIC, _VALUE, st.text("山水花鸟鱼虫云雨", min_size=2, max_size=3),
       st.text("红绿蓝黄紫", min_size=2, max_size=3), _CHATTER)
def test_small_talk_is_not_answered_with_a_memory(topic: str, value: str, zh_topic: str, zh_value: str,
                                                  chatter: str) -> None:
    """helper-23's bench answers run: "sweet" got "It was a wonderful experience sailing around Crete!" and
    "来了来了" got "你哥哥李伟是一名飞行员。". A sentence that reads out a memory the message shares no word with is
    cut; the plain answer acknowledges."""
    if not chatter.isascii():
        topic, value = zh_topic, zh_value
    memory = f"My {topic} is {value}." if chatter.isascii() else f"我的{topic}是{value}。"
    read_out = f"Your {topic} is {value}!" if chatter.isascii() else f"你的{topic}是{value}！"
    facts = [memory, chatter]
    assert recites(read_out, chatter, facts)
    checked = check_answer(read_out, chatter, sources="\n".join(facts), facts=facts)
    assert value not in checked.text and checked.changes


@pytest.mark.parametrize(("sentence", "message"), [
    ("Got it, you moved to Hangzhou.", "I live in Hangzhou now."),  # shares the message's words
    ("Hi! How can I help?", "hi"),  # shares nothing with any memory
    ("Nice, Tom must be proud.", "Tom got promoted."),
    ("Where do you live?", "Where do I live?"),  # a question is off_topic's to judge
])
def test_what_recites_does_not_judge(sentence: str, message: str) -> None:
    assert not recites(sentence, message, ["I live in Hangzhou.", "My brother Tom works at Google.", "我住在杭州。",
                                           message])


@pytest.mark.parametrize(("sentence", "message"), [
    ("你住在杭州。", "lol ok"), ("你've played the cello for twelve years。", "我妹妹英格丽有两个孩子。"),
    ("You live in Porto.", "我妹妹英格丽有两个孩子。")])
def test_a_memory_read_out_in_the_other_language_is_recited(sentence: str, message: str) -> None:
    """A third new user's trial's replay: "我妹妹英格丽有两个孩子。" got "你've played the cello for twelve years。你
    live in Porto。": two memories read out, in English, to a Chinese statement. It shares no word with the message
    in any language; it was not judged, as another language than the message's."""
    facts = ["I live in Porto.", "I've played the cello for twelve years.", "我住在杭州。", message]
    assert recites(sentence, message, facts)


@pytest.mark.parametrize(("answer", "message", "plain"), [
    ("不客气！", "嗯嗯，懂了", "好的，知道了。"),
    ("You're welcome!", "ok cool", "Got it."),
    ("You're right!", "I live in Porto.", "Got it."),
])
def test_an_answer_that_is_only_a_hollow_opener_is_a_plain_acknowledgement(answer: str, message: str,
                                                                           plain: str) -> None:
    """helper-23's bench answers run: "嗯嗯，懂了" got "不客气！" (no thanks were given). An opener with nothing
    after it was kept (only a leading one was dropped); now it is cut and the plain answer acknowledges."""
    assert check_answer(answer, message, sources=message, facts=[message]).text == plain
    assert check_answer(answer, "谢谢！" if "不" in answer else "thanks!" if "welcome" in answer else "right?",
                        sources=message, facts=[message]).text == answer


_MONTHS_EN = ["January", "March", "May", "July", "September", "November"]


@given(_TOPIC, _VALUE, st.integers(1, 28), st.sampled_from(_MONTHS_EN), st.integers(1, 12), st.booleans())
def test_a_question_asking_when_is_answered_with_a_time_or_plainly(topic: str, value: str, day: int, month: str,
                                                                   zh_month: int, zh: bool) -> None:
    """helper-23's bench answers run: 'When is my cat's birthday?' got 'Your cat Pickles is a ginger tabby.' (a
    memory about the cat, no time). To a question asking when, a sentence that says no time is cut; the plain
    answer says what is remembered, unsure. A sentence with a date, a number or a time word stands."""
    if zh:
        question, memory = f"我的{topic}是哪天？", f"我的{topic}是{value}。"
        dated, undated = f"你的{topic}是{zh_month}月{day}日。", f"你的{topic}是{value}。"
    else:
        question, memory = f"When is my {topic}?", f"My {topic} is {value}."
        dated, undated = f"Your {topic} is on {month} {day}.", f"Your {topic} is {value}."
    facts = [memory, question]
    kept = check_answer(dated, question, sources="\n".join([*facts, dated]), facts=facts)
    assert kept.text == dated
    plain = check_answer(undated, question, sources="\n".join(facts), facts=facts)
    assert plain.text.startswith(("I'm not sure", "我不太确定")) and plain.changes
    # the same sentence to a question not asking when stands
    other = f"我的{topic}是什么？" if zh else f"What is my {topic}?"
    assert check_answer(undated, other, sources="\n".join([memory, other]), facts=[memory, other]).text == undated


@pytest.mark.parametrize(("answer", "message", "memory", "said"), [
    ("我们公司的办公地点是陆家嘴。", "我们公司在哪里？", "我们公司搬到了陆家嘴。", "你们公司的办公地点是陆家嘴。"),
    ("We are reading Middlemarch!", "What is our book club reading?", "Our book club is reading Middlemarch.",
     "You are reading Middlemarch!"),
    ("Our flat is on the fourth floor.", "Which floor is our flat on?", "Our flat is on the fourth floor.",
     "Your flat is on the fourth floor."),
    ("我的二胡老师姓王。", "我的二胡老师姓什么？", "我的二胡老师姓王。", "你的二胡老师姓王。"),
])
def test_the_users_we_and_the_questions_own_words_are_the_users_voice(answer: str, message: str, memory: str,
                                                                      said: str) -> None:
    """helper-23's bench answers dev run: 'We are running the book club!', '我们公司的办公地点是陆家口。' (to
    '我们公司在哪里？', sharing too few characters with the memory to count as restating it). "We" is the user's
    plural; an answer opening with the question's own first-person words goes on in the user's voice."""
    facts = [memory, message]
    assert check_answer(answer, message, sources="\n".join(facts), facts=facts).text == said


def test_the_assistants_own_first_person_is_not_the_users() -> None:
    facts = ["My doctor said I'm allergic to mango.", "What is my doctor called?"]
    assert not speaks_as_user("I am not sure what your doctor is called.", facts)
    assert not speaks_as_user("我不知道你的医生叫什么。", ["我的医生姓什么？"])
    assert not speaks_as_user("Let me think.", ["We moved to Leeds.", "Where do we live?"])


@pytest.mark.parametrize(("answer", "message", "memory", "expected"), [
    ("My waist size is not specified.", "What is my waist size?", "I wear size 44 shoes.",
     "Your waist size is not specified."),  # the question's own 'my waist size'
    ("你的医生姓周。", "我的医生姓什么？", "医生说我对芒果过敏。", "我不太确定；我记得的是：医生说你对芒果过敏。"),
    ("你的医生姓周。", "我的医生姓什么？", "我的医生姓周。", "你的医生姓周。"),
])
def test_the_questions_own_phrase_and_a_surname_told_nowhere(answer: str, message: str, memory: str,
                                                             expected: str) -> None:
    """helper-23's bench answers dev run: 'My waist size is not specified in the given facts.' and '你的医生姓周。'
    (never told; a surname is one character, too short for jieba's tags)."""
    facts = [memory, message]
    assert check_answer(answer, message, sources="\n".join(facts), facts=facts).text == expected


@given(st.sampled_from(["brother", "sister", "wife", "boss", "neighbour"]),
       st.sampled_from(["Tom", "Anna", "Kofi", "Mei", "Lars"]), st.sampled_from(["Google", "Siemens", "Tata", "Nokia"]),
       st.sampled_from(["哥哥", "姐姐", "老婆", "老板", "邻居"]), st.sampled_from(["志强", "小梅", "阿杰"]),
       st.sampled_from(["谷歌", "西门子", "华为"]), st.booleans())
def test_another_persons_fact_said_as_the_users_is_cut_not_turned(kin: str, name: str, org: str, zh_kin: str,
                                                                  zh_name: str, zh_org: str, zh: bool) -> None:
    """The new-user trial: "My brother Tom works at Google as a designer." was answered "You work at Google as a
    Designer." (the model said "I work…", and it was turned to the user). Whose fact it is decides: restating
    only another person's fact in the first person is cut; the user's own fact is turned."""
    if zh:
        told, mine = f"我{zh_kin}{zh_name}在{zh_org}工作。", f"我在{zh_org}工作。"
        said = f"我在{zh_org}工作。"
    else:
        told, mine = f"My {kin} {name} works at {org} as a designer.", f"I work at {org} as a designer."
        said = f"I work at {org} as a designer."
    assert takes_over(said, [told])
    assert check_answer(said, told, sources=told, facts=[told]).text in ("Got it.", "好的，知道了。")
    assert not takes_over(said, [mine])
    assert check_answer(said, mine, sources=mine, facts=[mine]).text == second_person(said)


@given(_WORDS, st.sampled_from([("What's my favourite restaurant?", "Your favourite restaurant is {w}."),
                                ("Where do I take my bike for repairs?", "You take it to a {w} shop."),
                                ("我最喜欢的餐厅是哪家？", "你最喜欢的餐厅是{w}。")]))
def test_a_detail_of_the_users_life_nothing_said_is_not_asserted(word: str, pair: tuple[str, str]) -> None:
    """A question about something of the user's ("my bike", "我最喜欢的…") answered with a word no memory, turn or
    hint holds: the model's guess at a life it was not told about ("西餐", "a local bike shop"). Cut; the plain
    answer says it was not told (no memory shares a word with the question)."""
    question, template = pair
    memories = ["I live in Hangzhou.", "My sister Mei works at Alibaba."]
    sources = "\n".join([question, *memories])
    checked = check_answer(template.format(w=word), question, sources=sources, facts=[*memories, question])
    assert word not in checked.text and checked.changes


@pytest.mark.parametrize(("question", "answer", "memories"), [
    ("What's my job?", "You work as a nurse.", ["My name is Lena and I work as a nurse in Leeds."]),
    ("What's my job?", "You haven't told me that.", []),  # the model's own abstention: its first person
    ("我的车是什么牌子的？", "你开的是马自达。", ["我开一辆红色的马自达3。"]),
    ("What should I bake for a party?", "How about a lemon drizzle cake?", []),  # advice: nothing of theirs asked
])
def test_an_answer_about_the_user_that_a_memory_supports_stands(question: str, answer: str,
                                                               memories: list[str]) -> None:
    sources = "\n".join([question, *memories])
    checked = check_answer(answer, question, sources=sources, facts=[*memories, question])
    assert checked.text == answer and not checked.changes


@given(st.from_regex(r"[A-Z]{1,3}[0-9]{1,3}", fullmatch=True), st.sampled_from(["en", "zh"]))
def test_a_model_name_with_digits_that_a_memory_says_is_not_invented(name: str, lang: str) -> None:
    """"Kia EV6", "Volvo XC40", "Galaxy S23": a name keeps its digits on both sides. The trial's "You sold the
    Mazda last month and bought a Kia EV6." was cut as inventing 'EV6' beside the memory that says it."""
    memory = f"I sold the Mazda last month and bought a Kia {name}."
    sentence = f"You drive a Kia {name} now." if lang == "en" else f"你现在开的是Kia {name}。"
    assert invented(sentence, memory) == []
    other = name[:-1] + str((int(name[-1]) + 1) % 10)
    assert other in invented(sentence.replace(name, other), memory)


@pytest.mark.parametrize(("question", "answer", "memory", "expected"), [
    ("What car did I drive before?", "I'm not sure; what I remember is: I drove a red Mazda 3.",
     "I drive a red Mazda 3.", "I'm not sure; what I remember is: You drove a red Mazda 3."),
    ("What car did I drive before?", "I'm not sure; what I remember is: You drove a red Mazda 3.",
     "I drive a red Mazda 3.", "I'm not sure; what I remember is: You drove a red Mazda 3."),
    ("我以前开什么车？", "我不太确定；我记得的是：我开一辆红色的马自达3。", "我开一辆红色的马自达3。",
     "我不太确定；我记得的是：你开一辆红色的马自达3。"),
])
def test_the_plain_answers_own_words_copied_by_the_model_stay_the_assistants(question: str, answer: str,
                                                                               memory: str, expected: str) -> None:
    """The 0.5B copies the plain answer of an earlier turn. The trial got " what you remember is: You lived in
    Porto." ("I'm not sure;" cut as off topic, "I remember" turned to the user, "You" after the colon taken for
    an invented name); the opening is the assistant's, the rest is judged. Streamed and stored agree."""
    # the session's earlier plain answer to another question: its words are the assistant's, not a copied answer
    earlier = [{"role": "user", "content": "What's my job?"},
               {"role": "assistant", "content": "I'm not sure; what I remember is: You work as a nurse."}]
    for said in (answer, answer.replace("'", "’").replace("what I", "What I")):
        shown: list[str] = []
        guard = SentenceGuard(question, shown.append)
        guard.context(recalled=[memory], window=earlier, chains=[""])
        guard(said)
        guard.flush()
        stored = check_answer(said, question, sources="\n".join([question, memory]), facts=[memory, question])
        assert stored.text.replace("’", "'").lower() == expected.lower()
        assert "".join(shown).split() == stored.text.split()


@given(st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)))
def test_the_time_it_is_said_from_the_clock_is_kept_in_both_languages(when: datetime) -> None:
    """A fresh look at the time questions: "It is 10:04 now." for "What time is it?" and "现在是10点04分。" for
    "现在几点？" were cut as unsupported (their "now", 点 and 分 are in no source), and the user was told they had
    never said. The time it is, read from the clock, is the answer; a wrong weekday is still made up."""
    now = clock_words(when)
    weekday = "一二三四五六日"[when.weekday()]
    for answer, message in [(f"It is {when:%H:%M} now.", "What time is it?"),
                            (f"Today is {when:%A}, {when:%B} {when.day}.", "What day is it today?"),
                            (f"现在是{when.hour}点{when.minute}分。", "现在几点？"),
                            (f"今天是{when.month}月{when.day}日，星期{weekday}。", "今天几号？")]:
        assert check_answer(answer, message, sources=message, facts=[message], now=now).text == answer
    wrong = "一二三四五六日"[(when.weekday() + 1) % 7]
    said = check_answer(f"今天是星期{wrong}。", "今天星期几？", sources="今天星期几？", facts=["今天星期几？"], now=now)
    assert f"星期{wrong}" not in said.text and f"星期{weekday}" in said.text  # the clock's, plainly
    # a new user's trial: "What time is it?" got "You haven't told me that"; cut, the clock answers it
    for message in ("What time is it?", "What is the date today?", "今天几号？", "现在几点？"):
        plain = check_answer("It is 99:99 in Zorgland.", message, sources=message, facts=[message], now=now).text
        assert f"{when:%H:%M}" in plain and f"{when:%Y-%m-%d}" in plain, plain
    for message in ("What's the weather like today?", "What time do I start work?"):
        plain = check_answer("It is sunny in Zorgland.", message, sources=message, facts=[message], now=now).text
        assert plain == NOT_TOLD["en"], plain
    twelve = f"It is {when.hour % 12 or 12}:{when:%M} {when:%p}."  # "5:46 AM" for 05:46, "The current time is"
    for kept in (twelve, f"The current time is {when:%H:%M}."):
        assert check_answer(kept, "What time is it?", sources="", facts=[""], now=now).text == kept


@given(st.datetimes(min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31)),
       st.sampled_from(["start work", "get up", "leave the office", "go to the gym"]))
def test_the_clocks_time_is_no_answer_to_a_time_of_the_users_life(when: datetime, doing: str) -> None:
    """bench answers (the 0.5B, test split): "What time do I start work?" (never told) got "I start working at 10:04
    (Thursday)." — the prompt's clock, copied. A question about a time of the user's life may read the date from the
    clock, not its time of day."""
    message = f"What time do I {doing}?"
    answer = f"You {doing} at {when:%H:%M} ({when:%A})."
    checked = check_answer(answer, message, sources=message, facts=[message], now=clock_words(when))
    assert checked.text == NOT_TOLD["en"]


_PLACE_EN = st.from_regex(r"[A-Z][aeiou][bdfgkmnprst][aeiou][bdfgklmnprst]{1,2}", fullmatch=True)  # made up
_PLACE_ZH = st.text("澜栖梧岚汐", min_size=2, max_size=3)


@given(st.from_regex(r"[bdfgkmprst][aeiou][bdfgkmprst][aeiou]", fullmatch=True), _PLACE_EN,
       _PLACE_ZH, st.sampled_from(["bought", "found", "got"]),
       st.sampled_from(["at", "in", "from", "near"]), st.booleans())
def test_a_question_asking_where_is_answered_with_a_place_or_plainly(thing: str, place: str, place_zh: str,
                                                                    verb: str, prep: str, zh: bool) -> None:
    """bench answers (the 0.5B): "Where did I buy my bike?" (never told where) got "You bought your bike by bike, a
    green Brompton." (what is known of the bike, no place). To a question asking where, a sentence that says no
    place is cut and the plain answer says what is remembered, unsure; a sentence with a place stands, and the
    sentence without one stands to a question not asking where."""
    if zh:
        question, placed = f"我的{thing}是在哪里买的？", f"你的{thing}是在{place_zh}馆买的。"
        plain_memory = f"我的{thing}是绿色的。"
        unplaced, other = f"你的{thing}是绿色的。", f"我的{thing}是什么颜色？"
    else:
        question, placed, plain_memory = (f"Where did I buy my {thing}?", f"You {verb} your {thing} {prep} {place}.",
                                          f"I {verb} a green {thing}.")
        unplaced, other = f"You {verb} a green {thing}.", f"What colour is my {thing}?"
    memory = placed.replace("你", "我").replace("You", "I").replace("your", "my")
    facts = [memory, question]
    assert check_answer(placed, question, sources="\n".join(facts), facts=facts).text == placed
    facts = [plain_memory, question]
    plain = check_answer(unplaced, question, sources="\n".join(facts), facts=facts)
    assert plain.text.startswith(("I'm not sure", "我不太确定", NOT_TOLD["en"], NOT_TOLD["zh"])) and plain.changes
    facts = [plain_memory, other]
    assert check_answer(unplaced, other, sources="\n".join(facts), facts=facts).text == unplaced


# made up; never a function word the checks skip ("Were", drawn once, is no name: "I'm Were Park." reads as "Park")
_NAME_EN = st.from_regex(r"[A-Z][aeiou][bdfgklmnprst][aeiou][bdfgklmnprst]?", fullmatch=True).filter(content_units)


@given(st.sampled_from(["mum", "cat", "dentist", "boss", "street", "band"]), _NAME_EN, _PLACE_EN,
       st.sampled_from(["{x}'s name is {n}.", "{x} is called {n}.", "{x} {n} lives in {p}.", "{x}, {n}, is in {p}."]),
       st.sampled_from(["What is my {x}'s name?", "What's my {x} called?", "What is my {x} called?"]))
def test_a_question_asking_a_name_is_answered_with_one_or_plainly(thing: str, name: str, place: str, said: str,
                                                                  asked: str) -> None:
    """bench answers (the 0.5B, dev split): "What is my mum's name?" (never told) got "Your mum lives in Cork and
    loves gardening.": what is known of her, no name. To a question asking a name, a sentence that gives none is
    cut and the plain answer says what is remembered, unsure; one that gives it stands, as does the sentence
    without one to a question not asking a name."""
    question = asked.format(x=thing)
    named = "Your " + said.format(x=thing, n=name, p=place)
    facts = [named.replace("Your ", "My ", 1), question]
    assert check_answer(named, question, sources="\n".join(facts), facts=facts).text == named
    unnamed = f"Your {thing} is in {place} and loves gardening."
    facts = [unnamed.replace("Your ", "My ", 1), question]
    plain = check_answer(unnamed, question, sources="\n".join(facts), facts=facts)
    assert plain.text.startswith(("I'm not sure", NOT_TOLD["en"])) and plain.changes, plain
    other = f"Where is my {thing}?"
    facts = [unnamed.replace("Your ", "My ", 1), other]
    assert check_answer(unnamed, other, sources="\n".join(facts), facts=facts).text == unnamed


@given(st.sampled_from([("organised the book club", "组织了读书会", "读书会是谁组织的？"),
                        ("fixed my bike", "修好了我的自行车", "谁修好了我的自行车？"),
                        ("painted the kitchen", "刷了厨房", "厨房是谁刷的？")]), _NAME_EN, st.booleans())
def test_a_question_asking_who_is_not_answered_in_the_first_person(done: tuple[str, str, str], name: str,
                                                                   zh: bool) -> None:
    """bench answers (the 0.5B, dev split): "读书会是谁组织的？" (never told) got "我组织的书籍是《活着》，好虐。": the
    user's voice, or the assistant naming itself. Nobody the user asks about is the assistant: such a sentence is
    cut; one naming someone to the user stands."""
    question = done[2] if zh else f"Who {done[0]}?"
    memory = (f"我们最近很忙，{done[1].replace('我的', '')}的事我也记不清。" if zh else
              f"We were busy when someone {done[0]}.")
    mine = f"我{done[1]}。" if zh else f"I {done[0].replace('my ', 'your ')}."
    facts = [memory, question]
    checked = check_answer(mine, question, sources="\n".join(facts), facts=facts)
    assert checked.text != mine and checked.changes, checked
    theirs = f"你的朋友{name}{done[1].replace('我的', '你的')}。" if zh else \
        f"Your friend {name} {done[0].replace('my ', 'your ')}."
    facts = [theirs.replace("你的", "我的").replace("Your", "My").replace("your", "my"), question]
    assert check_answer(theirs, question, sources="\n".join(facts), facts=facts).text == theirs
    assert check_answer("I am your memory assistant.", "Who are you?", sources="Who are you?",
                        facts=["Who are you?"]).text == "I am your memory assistant."


@given(st.sampled_from(["waist size", "blood type", "favourite film", "dentist's name"]),
       st.sampled_from(["specified", "mentioned", "provided", "stated"]),
       st.sampled_from(["the given facts", "the provided information", "the memories", "the context"]),
       st.sampled_from(["腰围", "血型", "牙医"]), st.sampled_from(["提供的信息中没有提到", "给出的资料里并未"]))
def test_a_not_told_said_in_the_prompts_words_is_said_plainly(slot: str, verb: str, where: str, slot_zh: str,
                                                              said_zh: str) -> None:
    """bench answers (the 0.5B, dev split): "What is my waist size?" got "Your waist size is not specified in the
    given facts.": an abstention that talks about a prompt the user never saw. It becomes the plain answer."""
    question = f"What is my {slot}?"
    answer = f"Your {slot} is not {verb} in {where}."
    assert check_answer(answer, question, sources=question, facts=[question]).text == NOT_TOLD["en"]
    question = f"我的{slot_zh}是什么？"
    answer = f"{said_zh}你的{slot_zh}。"
    assert check_answer(answer, question, sources=question, facts=[question]).text == NOT_TOLD["zh"]


@pytest.mark.parametrize(("answer", "message", "memory", "kept"), [
    ("You have a Pixel phone.", "What's my phone number?", "I have a Pixel phone.", False),  # bench answers, test
    ("You have a cat named Tom.", "How many cats do I have?", "I have a cat named Tom.", False),
    ("你的手机是华为的。", "我的手机号码是多少？", "我的手机是华为的。", False),
    ("Your number is 555-0134.", "What's my phone number?", "My number is 555-0134.", True),
    ("You have two cats.", "How many cats do I have?", "I have two cats.", True),
    ("你养了一只猫。", "我养了几只猫？", "我养了一只猫。", True),
    ("你今年三十岁。", "我几岁？", "我今年三十岁。", True),
])
def test_a_question_asking_a_number_is_not_answered_by_a_sentence_without_one(answer: str, message: str,
                                                                              memory: str, kept: bool) -> None:
    facts = [memory, message]
    assert (check_answer(answer, message, sources="\n".join(facts), facts=facts).text == answer) is kept


_OBJ_EN = st.from_regex(r"[bdfgkmprst][aeiou][bdfgkmprst][aeiou]s", fullmatch=True)  # made up: "bakos"
_OBJ_ZH = st.text("琴笛棋笙篆鼓瑟瑶", min_size=2, max_size=3)


@given(_OBJ_EN, st.sampled_from(["play", "collect", "grow", "repair", "sell"]))
def test_a_statement_said_back_with_its_negation_changed_is_cut(thing: str, verb: str) -> None:
    """A trial with PALACE_LOCAL_MEMORY_MODEL=1.5b (the 0.5B answering): "我会弹钢琴，已经学了十年。" got "你不会弹
    钢琴。": the acknowledgement said the opposite. A clause restating the statement with another number of
    negations than the clause it restates is cut; the plain acknowledgement is left."""
    message = f"I {verb} {thing}, and I love it."
    facts = [message]
    for flipped in (f"You don't {verb} {thing}.", f"Got it, you never {verb} {thing}."):
        assert check_answer(flipped, message, sources=message, facts=facts).text == "Got it."
    for kept in (f"Got it, you {verb} {thing}.", f"You {verb} {thing} and love it. Nice!"):
        assert check_answer(kept, message, sources=message, facts=facts).text == kept
    no = f"I don't {verb} {thing}, but I love tea."  # its other clause, said back alone, keeps its own
    assert check_answer("Got it, you love tea.", no, sources=no, facts=[no]).text == "Got it, you love tea."


@given(_OBJ_ZH, st.sampled_from(["会弹", "喜欢", "收集", "在学"]))
def test_a_chinese_statement_said_back_with_its_negation_changed_is_cut(thing: str, verb: str) -> None:
    message = f"我{verb}{thing}，已经三年了。"
    assert check_answer(f"你不{verb}{thing}。", message, sources=message, facts=[message]).text == "好的，知道了。"
    assert check_answer(f"你{verb}{thing}，真好！", message, sources=message, facts=[message]).text == (
        f"你{verb}{thing}，真好！")
    ended = f"我不{verb}{thing}了。"  # a state that ended: said back as it is, or as a plain "not", both stand
    said = f"好的，你不{verb}{thing}。"
    assert check_answer(said, ended, sources=ended, facts=[ended]).text == said


@pytest.mark.parametrize(("said", "moved"), [
    ("We painted the living room yellow last weekend.", "You painted the living room yellow yesterday."),
    ("I'm flying to Tokyo next Friday.", "You are flying to Tokyo tomorrow."),
    ("上周末我们把客厅刷成了黄色。", "你昨天把客厅刷成了黄色。"),
    ("我下周五要去东京。", "你明天要去东京。"),
])
def test_a_relative_time_nothing_said_is_invented(said: str, moved: str) -> None:
    """bench answers (the 0.5B, test split): "We painted the living room yellow last weekend." was acknowledged as
    "You painted the living room yellow yesterday.": a time word that moves the user's fact. Said back with the
    user's own time word, or with "today" to a question about the date, it stands."""
    assert check_answer(moved, said, sources=said, facts=[said]).text != moved
    assert invented(moved, said)
    noted = "Noted: " if said.isascii() else "好的："
    own = check_answer(noted + said, said, sources=said, facts=[said])  # the user's own time word stands
    assert not any(why.startswith("cut") for why in own.changes), own
    question = "What did we do?" if said.isascii() else "我们做了什么？"
    kept = check_answer(moved, question, sources=f"{said}\n{question}", facts=[said, question]).text
    assert kept != moved
    assert invented("Today is Thursday, December 3.", "What's the date?\n" + clock_words(datetime(2026, 12, 3))) == []


@given(st.sampled_from(["wild, right?", "really?", "crazy, huh?", "真的吗？", "是吧？", "离谱吧？"]),
       st.from_regex(r"[a-z]{5,9}", fullmatch=True))
def test_a_reaction_put_as_a_question_is_not_lectured_on(message: str, word: str) -> None:
    """bench answers (the 0.5B, test split): "wild, right?" got "Wild is indeed a term that can refer to various
    animals or plants. If you have any other questions…": a reaction asks for no fact; the model's lecture is cut
    and the plain answer acknowledges it (never "You haven't told me that")."""
    lecture = (f"The {word} is a species that lives in many habitats around the world and feeds on various plants."
               if message.isascii() else f"{word}是一种生活在世界各地草原上的动物，以各种植物为食。")
    checked = check_answer(lecture, message, sources=message, facts=[message])
    assert checked.text in ("Got it.", "好的，知道了。"), checked
    for kept in (("Yes, it is!", "I'm doing well, thanks.") if message.isascii() else ("对啊！", "是真的！")):
        assert check_answer(kept, message, sources=message, facts=[message]).text == kept


@given(st.from_regex(r"[BDFGK][aeiou][bdfgk][aeiou][bdfgk]ton", fullmatch=True),
       st.sampled_from(["commute by bike", "cycle to the office", "go by bicycle"]))
def test_an_answer_mostly_unsaid_is_cut_and_the_memory_it_drew_on_is_quoted(brand: str, act: str) -> None:
    """bench answers (test split): the 1.5B said "You bought your Brompton at a local bike shop." to "Where did I buy
    my bike?" (never told): one word of a memory, three of its own, and it stood. And the 0.5B's answer to "How do I
    get to work?" was cut with nothing sharing a word with the question left to say, so the user was told they
    never said. An answer about the user most of whose words no source has is cut; the plain answer quotes the
    memory the cut answer drew on, when it drew on one."""
    memory = f"I {act}, a green {brand}."
    facts = [memory, "Where did I buy my bike?"]
    shop = check_answer(f"You bought your {brand} at a local bike shop.", facts[-1], sources="\n".join(facts),
                        facts=facts)
    assert "shop" not in shop.text and brand in shop.text and shop.text.startswith("I'm not sure")
    facts = [memory, "How do I get to work?"]
    drew = check_answer(f"You ride your {brand} to work every day.", facts[-1], sources="\n".join(facts), facts=facts)
    assert drew.text == f"I'm not sure; what I remember is: You {act}, a green {brand}.", drew
    for stands in (f"You {act} on your green {brand}.", f"You {act}."):
        assert check_answer(stands, facts[-1], sources="\n".join(facts), facts=facts).text == stands
    age = ["How old am I?"]
    assert check_answer("You are 35 years old.", age[0], sources=memory, facts=[memory, *age]).text == NOT_TOLD["en"]


@given(st.from_regex(r"[BDFGKLMNPRSTVZ][aeiou][bdklmnrstvz][aeiou][nrs]?", fullmatch=True),
       st.sampled_from(["I know that.", "I already know!", "I remember that.", "Yes, I know."]))
def test_a_new_statement_is_not_claimed_as_known(name: str, claim: str) -> None:
    """A new user's trial: "My friend Nadia is getting married in May." (said the first time) -> "I know that."
    The claim stands only beside a recalled memory that holds the statement."""
    message = f"My friend {name} is getting married in May."
    assert check_answer(claim, message, sources=message, facts=[message]).text == "Got it."
    told = f"My friend {name} is getting married in May"
    assert check_answer(claim, message, sources=message, facts=[told, message]).text == claim
    zh = f"我朋友{name}下个月结婚。"
    assert check_answer("我早就知道了。", zh, sources=zh, facts=[zh]).text == "好的，知道了。"


def test_an_english_answer_quoting_chinese_is_spaced_and_a_quoted_memory_ends_its_sentence() -> None:
    """A new user's trial: "Your cat's name is豆豆." and "I'm not sure; what I remember is: You moved from Chengdu
    to Shanghai" (no full stop: the memory has none)."""
    facts = ["我养了一只猫，叫豆豆。", "What's my cat's name?"]
    assert check_answer("Your cat's name is豆豆.", facts[-1], sources="\n".join(facts), facts=facts).text == (
        "Your cat's name is 豆豆.")
    zh = [facts[0], "我的猫叫什么？"]
    assert check_answer("你的猫叫豆豆。", zh[-1], sources=facts[0], facts=zh).text == "你的猫叫豆豆。"
    facts = ["I live in Shanghai, near the river", "Where do I live?"]
    plain = check_answer("You live in Beijing, a lovely place.", facts[-1], sources="\n".join(facts), facts=facts)
    assert plain.text == "I'm not sure; what I remember is: You live in Shanghai, near the river."


@pytest.mark.parametrize(("answer", "message", "memory", "expected"), [
    ("You haven't told me that, so I don't know. Your sister Anika just got engaged in Toronto.",
     "What's my sister's news?", "My sister Anika just got engaged in Toronto.",
     "Your sister Anika just got engaged in Toronto."),
    ("你还没有告诉过我这件事，所以我不知道。你妹妹订婚了。", "我妹妹有什么消息？", "我妹妹订婚了。", "你妹妹订婚了。"),
    ("You haven't told me that, so I don't know.", "How tall am I?", "I live in Leeds.",
     "You haven't told me that, so I don't know."),
])
def test_an_answer_says_not_told_only_when_it_answers_nothing(answer: str, message: str, memory: str,
                                                              expected: str) -> None:
    """A new user's trial: "What's my sister's news?" -> "You haven't told me that, so I don't know. Your sister
    Anika just got engaged in Toronto." (the plain answer copied from the session, then the answer). Stored and
    streamed alike."""
    facts = [memory, message]
    assert check_answer(answer, message, sources="\n".join(facts), facts=facts).text == expected
    shown: list[str] = []
    guard = SentenceGuard(message, shown.append)
    guard.context(recalled=[memory], window=[])
    guard(answer)
    guard.flush()
    assert "".join(shown).strip() == expected


@given(_NEW_EN, _NEW_ZH, _VERBS_EN, _VERBS_ZH, st.sampled_from(["will", "might", "may", "is going to"]),
       st.sampled_from(["将", "将要", "想", "可能会", "打算"]), st.booleans())
def test_a_memory_said_back_with_a_later_time_or_a_modality_it_lacks_is_cut(
        thing_en: str, thing_zh: str, verb_en: str, verb_zh: str, mark_en: str, mark_zh: str, zh: bool) -> None:
    """A new user's trial: "你将弹钢琴。" for "我会什么乐器？" beside "我会弹钢琴": what the user does became what the
    user will do. Any subject, either language: the memory said back with a later time or a modality it lacks is
    cut, and the plain answer states the memory; said back as it is, it stands; a question with the mark allows it."""
    if zh:
        memory, question = f"我{verb_zh}{thing_zh}。", f"我{verb_zh}什么？"
        changed, same, marked_question = f"你{mark_zh}{verb_zh}{thing_zh}。", f"你{verb_zh}{thing_zh}。", \
            f"我{mark_zh}{verb_zh}什么？"
    else:
        be = "are" if mark_en == "is going to" else ""
        memory, question = f"I {verb_en} {thing_en}.", f"What do I {verb_en}?"
        changed = f"You {(be + ' going to') if be else mark_en} {verb_en} {thing_en}."
        same, marked_question = f"You {verb_en} {thing_en}.", f"What {mark_en if not be else 'am I going to'} " \
            f"{'I ' if not be else ''}{verb_en}?"
    facts = [memory, question]
    cut = check_answer(changed, question, sources=memory, facts=facts)
    assert RETIMED in cut.changes and (thing_zh if zh else thing_en) in cut.text
    assert check_answer(same, question, sources=memory, facts=facts).text == same
    assert RETIMED not in check_answer(changed, marked_question, sources=memory,
                                       facts=[memory, marked_question]).changes


@given(st.from_regex(r"[A-Z][aeiou][bdklmnrst][aeiou][bdklmnrst]", fullmatch=True),
       st.sampled_from(["teaches at a school", "flies planes for an airline", "repairs bikes in a shop",
                        "studies law in Porto", "plays cello in an orchestra"]),
       st.sampled_from(["sister", "brother", "friend", "neighbour"]))
def test_another_persons_fact_said_to_the_user_as_theirs_is_cut(name: str, doing: str, who: str) -> None:
    """A new user's trial: "What does Ines do now?" beside "Ines quit flying, she teaches at a school now." got
    "You teach at a school now."; "My sister Ines is a pilot in Lisbon." got "…so you are a pilot too!". A clause
    speaking to the user that restates only another person's facts is cut; the person's fact said of them, and
    the user's own fact said to the user, stand."""
    verb, rest = doing.split(" ", 1)
    base = verb[:-2] if verb.endswith("es") and verb[-3] in "hsx" else verb[:-1]
    fact, question = f"My {who} {name} {doing}.", f"What does {name} do?"
    facts = [fact, "I work as a nurse.", question]
    cut = check_answer(f"You {base} {rest}.", question, sources=" ".join(facts), facts=facts)
    assert "another person" in " ".join(cut.changes) and f"You {base}" not in cut.text, cut
    theirs = f"Your {who} {name} {doing}."
    assert check_answer(theirs, question, sources=" ".join(facts), facts=facts).text == theirs
    mine = check_answer("You work as a nurse.", "What do I do?", sources=" ".join(facts),
                        facts=["I work as a nurse.", fact, "What do I do?"])  # recall's first: the user's job
    assert mine.text == "You work as a nurse."


def test_the_plain_answer_is_not_the_newer_memory_of_a_chain_the_question_is_not_about() -> None:
    """A new user's trial: "我现在住在哪里？" got the stale job said back ("你在一家医院当护士。", recall's fifth),
    and the plain answer stated its newer job, unhedged: "你换工作了，现在在一家书店上班。". The chain of a stale
    sentence is what the question was about only when recall put it first."""
    recalled = [("I moved from Lisbon to Madrid", "now"), ("I live in Lisbon", "earlier"),
                ("我养了一只猫，三岁了。", ""), ("我换工作了，现在在一家书店上班。", "now"),
                ("我在一家医院当护士。", "earlier")]
    question = "我现在住在哪里？"
    replaced = replacements(recalled, question, windowed=False)
    facts = [*(t for t, _ in recalled), question]
    checked = check_answer("你在一家医院当护士。", question, sources="\n".join(facts), facts=facts, replaced=replaced)
    assert "书店" not in checked.text and "护士" not in checked.text, checked
    # shared words cannot tell across languages: recall's first, unsure
    assert checked.text == "我不太确定；你跟我说过：“I moved from Lisbon to Madrid.”", checked  # as said, quoted
    # recall put the job's chain first: the question was about it
    first = [recalled[3], recalled[4], *recalled[:3]]
    job = check_answer("你在一家医院当护士。", "我现在在哪里上班？", sources="\n".join(t for t, _ in first),
                       facts=[*(t for t, _ in first), "我现在在哪里上班？"],
                       replaced=replacements(first, "我现在在哪里上班？", windowed=False))
    assert job.text == "你换工作了，你现在在一家书店上班。" or "书店" in job.text, job


@given(st.from_regex(r"[A-Z][aeiou][bdklmnrst][aeiou][bdklmnrst]", fullmatch=True),
       st.text("甲乙丙丁戊己庚辛", min_size=2, max_size=3), st.booleans())
def test_the_questions_own_words_given_back_are_no_answer(name: str, zh_name: str, zh: bool) -> None:
    """bench answers: "What is Priya's surname?" (never told) got "Priya.". A sentence all of whose words are the
    question's is cut; the plain answer says what is remembered, unsure. An answer that adds a word (a time, a
    place) stands, and so does one to a yes-or-no question."""
    if zh:
        memory, question = f"我哥哥{zh_name}是一名飞行员。", f"{zh_name}在哪家航空公司？"
        echo = f"{zh_name}在航空公司。"
        adds, yes_no = f"{zh_name}是一名飞行员。", (f"{zh_name}是飞行员吗？", f"{zh_name}是飞行员。")
    else:
        memory, question, echo = f"My cousin {name} just moved to Lisbon.", f"What is {name}'s surname?", f"{name}."
        adds, yes_no = f"{name} moved to Lisbon.", (f"Did {name} move to Lisbon?", f"{name} moved to Lisbon.")
    facts = [memory, question]
    cut = check_answer(echo, question, sources="\n".join(facts), facts=facts)
    assert cut.text.startswith(("I'm not sure", "我不太确定")), cut
    where = f"Where did {name} move?" if not zh else f"{zh_name}是做什么的？"
    assert check_answer(adds, where, sources="\n".join([memory, where]), facts=[memory, where]).text == adds
    asked, said = yes_no
    assert check_answer(said, asked, sources="\n".join([memory, asked]), facts=[memory, asked]).text == said


@given(st.text("甲乙丙丁戊己庚辛壬癸", min_size=2, max_size=4),
       st.from_regex(r"[bdgkv][aeiou][bdklmnrst][aeiou][bdklmnrst]", fullmatch=True), st.booleans())
def test_the_users_voice_saying_what_nobody_said_is_cut(thing_zh: str, thing_en: str, zh: bool) -> None:
    """bench answers: "我最喜欢哪家餐厅？" (never told) got "我喜欢北京烤鸭。": the user's voice, taking up the
    question's "喜欢", so no assistant's "I", and what it adds nobody said. It is judged as the user's life: cut,
    and the answer says it was not told. The assistant's own "I" is not judged."""
    memory = "我从2019年开始吃素。" if zh else "I have been vegetarian since 2019."
    question = "我最喜欢哪家餐厅？" if zh else "Which restaurant do I like most?"
    answer = f"我喜欢{thing_zh}。" if zh else f"I like {thing_en} most."
    facts = [memory, question]
    checked = check_answer(answer, question, sources="\n".join(facts), facts=facts)
    assert checked.text == NOT_TOLD["zh" if zh else "en"], checked
    own, asked = "I'm glad!", "Can you help me?"
    assert check_answer(own, asked, sources=memory, facts=[memory, asked]).text == own


@given(st.from_regex(r"[A-Z][aeiou][bdklmnrst][aeiou][bdklmnrst]", fullmatch=True),
       st.sampled_from(["sister", "brother", "neighbour", "boss"]), st.sampled_from(["a pilot", "a nurse", "a chef"]))
def test_the_name_of_the_person_a_memory_is_about_is_the_answer_to_their_name(name: str, who: str, job: str) -> None:
    """A new user's trial: "What's my sister's name?" beside "My sister Ines is a pilot in Lisbon." got "Your
    sister's name is Ines." cut as a value put under another thing (the name is no slot's value), and hedged."""
    facts = [f"My {who} {name} is {job} in Lisbon.", f"What's my {who}'s name?"]
    answer = f"Your {who}'s name is {name}."
    assert check_answer(answer, facts[-1], sources="\n".join(facts), facts=facts).text == answer


@pytest.mark.parametrize(("message", "lang"), [("What do you remember about me?", "en"), ("你记得我什么？", "zh"),
                                               ("What else do you know about me?", "en"), ("你还记得我哪些事？", "zh")])
def test_what_is_remembered_about_the_user_is_answered_from_the_memories(message: str, lang: str) -> None:
    """A new user's trial: "What do you remember about me?" got "I've also been teaching at a school in Lisbon since
    last month. You can find more information about me on my website or social media accounts." (a life pieced
    together from Ines's job and the user's move, in the assistant's voice, then a website nobody named). Both
    sentences are cut, and the plain answer to a question about the user in general says recall's first three."""
    facts = ["Ines quit flying, she teaches at a school now.", "I moved from Lisbon to Madrid last month.",
             "I play the cello.", "I have a cat.", message]
    answer = ("I've also been teaching at a school in Lisbon since last month. You can find more information about "
              "me on my website or social media accounts.")
    checked = check_answer(answer, message, sources="\n".join(facts), facts=facts)
    assert checked.text.startswith(RECALLED[lang]), checked
    moved = "You moved from Lisbon to Madrid last month." if lang == "en" else \
        "“I moved from Lisbon to Madrid last month.”"  # the user's words, quoted: not turned in another language
    assert moved in checked.text and "cello" in checked.text
    assert "cat" not in checked.text and "website" not in checked.text
    assert not asks_what_is_remembered("Do you remember my name?")
    assert not asks_what_is_remembered("What do you know about my sister?")


@given(st.sampled_from(["Oslo", "Lyon", "Porto", "Graz"]), st.sampled_from(["Kyiv", "Turin", "Bergen"]),
       st.sampled_from(["a nurse", "a pilot", "an architect"]), st.sampled_from(["a teacher", "a baker", "a chef"]),
       st.sampled_from([("What do you remember about me?", "en"), ("你记得我什么？", "zh")]))
def test_what_is_remembered_skips_replaced_memories_small_talk_and_repeats(old_city: str, city: str, old_job: str,
                                                                           job: str, asked: tuple[str, str]) -> None:
    """What is remembered about the user is what is true now: a memory a newer one replaced, small talk a store
    kept ("感谢听我说这些") and a memory said twice are not among the three said back."""
    message, lang = asked
    facts = [f"I moved from {old_city} to {city}.", f"I live in {old_city}.", "thanks for listening to me!",
             f"I changed jobs, I'm {job} now.", f"I work as {old_job}.", f"I moved from {old_city} to {city}.",
             "I play the cello.", message]
    replaced = {f"I live in {old_city}.": f"I moved from {old_city} to {city}.",
                f"I work as {old_job}.": f"I changed jobs, I'm {job} now."}
    checked = check_answer("I am an astronaut on Mars.", message, sources="\n".join(facts), facts=facts,
                           replaced=replaced)
    told = [f"You moved from {old_city} to {city}.", f"You changed jobs, you're {job} now.", "You play the cello."]
    if lang == "zh":  # the user's words, quoted
        told = [f"“I moved from {old_city} to {city}.”", f"“I changed jobs, I'm {job} now.”", "“I play the cello.”"]
    assert checked.text == RECALLED[lang] + " ".join(told), checked


def test_the_users_own_fact_in_the_users_voice_is_not_pieced_together() -> None:
    facts = ["I live in Oslo.", "I work as a nurse at a hospital.", "Where do I live and work?"]
    checked = check_answer("I live in Oslo and work as a nurse.", facts[-1], sources="\n".join(facts), facts=facts)
    assert checked.text == "You live in Oslo and work as a nurse.", checked


def test_a_memory_in_the_other_language_is_no_answer_unless_it_is_the_newest_word_of_a_change() -> None:
    """A new user's trial: "How old am I, do you know?" (never told) beside "感谢听我说这些" must not quote it; and a
    dangling "I'm not sure;" is no answer."""
    facts = ["感谢听我说这些", "How old am I, do you know?"]
    for answer in ("I'm not sure; I can't tell how old you are.", "I'm not sure;"):
        checked = check_answer(answer, facts[-1], sources="\n".join(facts), facts=facts)
        assert checked.text == NOT_TOLD["en"], checked


@pytest.mark.parametrize("question", ["What time is it right now?", "Can you tell me the date?", "请问现在几点了？",
                                      "Do you know what day it is today?"])
def test_a_time_question_with_courtesy_words_is_answered_from_the_clock(question: str) -> None:
    """A new user's trial: "What time is it right now?" got "You haven't told me that" ("right" left over)."""
    facts = ["I live in Oslo.", question]
    checked = check_answer("It is 25:99 on Blursday.", question, sources="\n".join(facts), facts=facts,
                           now="2026-12-07 13:20 Monday December")
    assert "13:20" in checked.text or "2026-12-07" in checked.text, checked


@pytest.mark.parametrize("answer", ["I'm not sure; I can't tell how old you are.", "I'm not sure;",
                                    "I'm not sure; what I remember is: You live in Oslo."])
def test_the_stream_holds_a_plain_answers_opening_until_what_it_opens(answer: str) -> None:
    """A new user's trial showed "I'm not sure;" alone: what it opened was cut. Streamed and stored alike."""
    question, recalled = "How old am I?", ["I live in Oslo."]
    shown: list[str] = []
    guard = SentenceGuard(question, shown.append)
    guard.context(recalled=recalled, window=[])
    for i in range(0, len(answer), 3):
        guard(answer[i:i + 3])
    guard.flush()
    stored = check_answer(answer, question, sources="\n".join([question, *recalled]), facts=[*recalled, question])
    assert "".join(shown) == stored.text and stored.text.rstrip()[-1:] not in (";", ":"), (shown, stored)


@pytest.mark.parametrize(("answer", "question", "lang"), [
    ("你的生日是12月7日。", "我的生日是几月几号？", "zh"),
    ("Your birthday is on December 7.", "When is my birthday?", "en"),
    ("My email address is you@yourdomain.com.", "What's my email address?", "en"),
    ("你的网站是www.kenji-home.jp。", "我的网站是什么？", "zh"),
])
def test_todays_date_and_an_address_nobody_gave_are_no_answer_about_the_users_life(answer: str, question: str,
                                                                                  lang: str) -> None:
    """A second new user's trial: "我的生日是几月几号？" (never told) got today's date, "你的生日是12月7日。", and
    "What's my email address?" got "My email address is you@yourdomain.com.". Today's date answers a question
    about the user's life only when it names now; an address is a name, whatever its case."""
    from datetime import datetime

    facts = ["感谢听我说这些", "I play the flute.", question]
    checked = check_answer(answer, question, sources="\n".join(facts), facts=facts,
                           now=clock_words(datetime(2026, 12, 7, 13, 8)))
    assert checked.text == NOT_TOLD[lang], checked


@pytest.mark.parametrize(("told", "answer"), [
    ("I moved to Sapporo last month.", "You moved to Sapporo this month."),
    ("我上周换了工作。", "你这周换了工作。"),
])
def test_a_time_of_now_for_what_was_dated_away_from_now_is_invented(told: str, answer: str) -> None:
    """A second new user's trial: "…moved to Sapporo last month." got "…moved back to Sapporo this month."."""
    assert invented(answer, told) and not invented(answer.replace("this month", "last month").replace("这周", "上周"),
                                                   told)


def test_a_right_answer_thrown_away_as_stuck_leaves_its_memory_to_the_plain_answer() -> None:
    """bench answers at dad3679: "How do I get to work?" got "You haven't told me that": the model's words were
    those of its (wrong) answer to "Where did I buy my bike?" the turn before, so they were thrown away as stuck,
    and no word of the question is in the Brompton memory. What the thrown-away answer drew on is the plain
    answer's, when it passed every check; streamed and stored alike."""
    memory, question = "I commute by bike, a green Brompton", "How do I get to work?"
    said = "You commute by bike, a green Brompton."
    window = [{"role": "user", "content": "Where did I buy my bike?"}, {"role": "assistant", "content": said}]
    facts = [memory, question]
    stored = check_answer("", question, sources="\n".join(facts), facts=facts, drew_on=said)
    assert stored.text == "I'm not sure; what I remember is: You commute by bike, a green Brompton.", stored
    assert check_answer("", question, sources="\n".join(facts), facts=facts).text == NOT_TOLD["en"]
    shown: list[str] = []
    guard = SentenceGuard(question, shown.append)
    guard.context(recalled=[memory], window=window)
    guard(said)
    guard.flush()
    assert "".join(shown) == stored.text


@given(st.sampled_from(["Tromsø", "Zürich", "Málaga", "Kraków", "São Paulo", "Reykjavík", "Łódź", "Besançon"]),
       st.sampled_from(["sister", "brother", "friend"]), st.booleans())
def test_a_place_with_accented_letters_is_the_place_a_memory_names(place: str, who: str, zh: bool) -> None:
    """A third new user's trial: "Your sister Ingrid lives in Tromsø…" was cut as naming 'Tromsø' that nothing
    said (the words of the sources were read up to the 'ø'), and hedged."""
    memory = f"My {who} Ingrid lives in {place} and works as a radiologist."
    question = f"我的{ {'sister': '妹妹', 'brother': '哥哥', 'friend': '朋友'}[who]}住在哪里？" if zh else \
        f"Where does my {who} live?"
    facts = [memory, question]
    answer = f"你的{question[2:4]}Ingrid住在{place}。" if zh else f"Your {who} Ingrid lives in {place}."
    checked = check_answer(answer, question, sources="\n".join(facts), facts=facts)
    assert not any("nothing said" in c for c in checked.changes), checked


_PSEUDO_NAME = st.from_regex(r"[A-Z][aeiou][bdklmnrstv][aeiou][bdklmnrstv]", fullmatch=True)


@given(st.sampled_from(["restaurant", "colour", "film", "book", "drink"]),
       st.sampled_from(["instrument do I play", "car do I drive", "city do I live in"]), _PSEUDO_NAME)
def test_the_users_earlier_questions_said_back_are_cut(favourite: str, asked: str, name: str) -> None:
    """A third new user's trial: "Oh and I sold the Skoda and bought a white Kia Niro." got "Got it. What's my
    favourite restaurant? What instrument do I play?": the session's earlier questions, copied from the window."""
    window = [f"What's my favourite {favourite}?", "You haven't told me that.", f"What {asked}?"]
    message = f"I adopted a dog called {name}."
    answer = f"Got it. What's my favourite {favourite}? What {asked}?"
    checked = check_answer(answer, message, sources="\n".join([message, *window]), facts=[message])
    assert checked.text == "Got it.", checked
    # the assistant's own question is its own
    assert repeats_a_question(f"Shall I remember {name} for you?", "\n".join([message, *window])) is False


@given(st.sampled_from(["an old blue Skoda", "an old red bike", "an old piano", "an old grey Volvo"]),
       st.sampled_from([("How old am I?", "en"), ("我几岁了？", "zh"), ("What's my name?", "en"),
                        ("我叫什么名字？", "zh")]))
def test_the_words_that_ask_for_an_age_or_a_name_find_no_memory_by_themselves(thing: str,
                                                                             asked: tuple[str, str]) -> None:
    """A third new user's trial: "How old am I?" (never told) got "I'm not sure; what I remember is: You drive an
    old blue Skoda octavia.": "old" asks for an age and says nothing of what the answer is about."""
    message, lang = asked
    memory = f"I drive {thing}, its name is Rusty." if "name" not in message and "名字" not in message else \
        f"I drive {thing}."
    facts = [memory, message]
    invented_answer = {"How old am I?": "You are 40 years old.", "我几岁了？": "你今年40岁。",
                       "What's my name?": "Your name is Zed Quill.", "我叫什么名字？": "你叫Zed。"}[message]
    checked = check_answer(invented_answer, message, sources="\n".join(facts), facts=facts)
    assert checked.text == NOT_TOLD[lang], checked


@given(_PSEUDO_NAME, _PSEUDO_NAME, st.sampled_from(["cat", "dog", "parrot", "tortoise"]),
       st.sampled_from(["cello", "oboe", "banjo", "harp"]), st.sampled_from(["nurse", "pilot", "baker", "chemist"]))
def test_the_user_is_never_said_to_be_one_of_their_own_things(pet: str, me: str, animal: str, instrument: str,
                                                              job: str) -> None:
    """A third new user's trial: "You're Pistachio from Porto" (the cat), "You're a cello from Porto.", "You're an
    octavia…" (the car). Who the user said they are stays: their name, their job."""
    from memory.language.answers import equates_the_user

    assume(pet != me)
    sources = (f"I have a grey {animal} called {pet}, and I've played the {instrument} for years.\n"
               f"I'm {me} Holt and I work as a {job} in Porto.")
    assert equates_the_user(f"You're {pet} from Porto!", sources)
    assert equates_the_user(f"You're a {instrument} from Porto.", sources)
    assert not equates_the_user(f"You're {me} Holt from Porto.", sources)
    assert not equates_the_user(f"You are a {job}.", sources)
    assert not equates_the_user("You're in Porto.", sources) and not equates_the_user("You're welcome!", sources)
    assert not equates_the_user("You're a Porto resident now.", sources)  # what the user is, said of a place
    # a phrase ends in the thing: "You're a white Kia Niro." (the replay of a third new user's trial)
    car = f"{pet} {me}X"
    said = sources + f"\nI sold my old car and bought a white {car}.\nI'm {me} Holt, a marine {job} from Porto."
    assert equates_the_user(f"You're a white {car}.", said)
    assert not equates_the_user(f"You're a marine {job}.", said)
    assert not equates_the_user(f"You are going to drive a white {car}.", said)
    message = f"I have a grey {animal} called {pet}."
    checked = check_answer(f"You're {pet} from Porto!", message, sources=sources + "\n" + message, facts=[message])
    assert pet not in checked.text, checked


@given(st.sampled_from(["sister", "brother", "cousin"]), _PSEUDO_NAME,
       st.sampled_from(["a radiologist", "a welder", "an actuary"]),
       st.sampled_from(["a marine biologist", "a librarian", "a tram driver"]))
def test_another_persons_job_said_in_the_users_voice_is_not_turned_into_the_users(who: str, name: str, theirs: str,
                                                                                 mine: str) -> None:
    """A third new user's trial: "…where I work as a radiologist." (the sister's job) was turned to "…where you work
    as a radiologist.": the user's own job memory shares "work" with it, and was taken for what it restated."""
    facts = [f"My {who} {name} lives in Tromsø and works as {theirs}.", f"I work as {mine} at the city aquarium.",
             f"What does my {who} do?"]
    checked = check_answer(f"I work as {theirs}.", facts[-1], sources="\n".join(facts), facts=facts)
    assert f"you work as {theirs}" not in checked.text.lower(), checked
    asked = [*facts[:2], "What do I do?"]
    assert check_answer(f"I work as {mine}.", asked[-1], sources="\n".join(asked), facts=asked).text == \
        f"You work as {mine}."


@given(st.sampled_from(["sister", "brother", "neighbour"]), _PSEUDO_NAME,
       st.sampled_from(["Lyon", "Tromsø", "Graz", "Bergen"]), st.sampled_from(["Porto", "Kyiv", "Turin"]))
def test_the_plain_answer_to_a_question_about_the_user_quotes_the_users_memory(who: str, name: str, theirs: str,
                                                                              mine: str) -> None:
    """A third new user's trial: "Hey, where am I living these days?" got "I'm not sure; what I remember is: Your
    sister Ingrid lives in Tromsø…", recall's first memory sharing "live", over the user's own move."""
    facts = [f"My {who} {name} lives in {theirs} and works as a radiologist.", f"I moved to {mine} last month!",
             "Hey, where am I living these days?"]
    checked = check_answer(f"You're {name}, living in {theirs}.", facts[-1], sources="\n".join(facts), facts=facts)
    assert theirs not in checked.text and mine in checked.text, checked


@given(st.sampled_from(["Lyon", "Graz", "Bergen", "Kyiv"]), st.sampled_from(["clear and mild", "rainy and cold",
                                                                          "sunny and warm"]),
       st.sampled_from(["我妹妹有两个孩子。", "我在一家报社当数据记者。", "我养了一只猫。"]))
def test_the_weather_is_not_asserted_beside_a_memory_in_the_other_language(city: str, weather: str,
                                                                           memory: str) -> None:
    """A third new user's trial: "What's the weather like in Lyon today?" got "The weather is clear and mild.": the
    check stood down because a recalled memory was in Chinese (it could have been what the sentence translates)."""
    facts = [memory, f"I moved to {city} last month!", f"What's the weather like in {city} today?"]
    checked = check_answer(f"The weather is {weather}.", facts[-1], sources="\n".join(facts), facts=facts)
    assert weather not in checked.text, checked


@given(st.sampled_from([("今天有什么新闻？", "zh"), ("What's the news today?", "en")]),
       st.sampled_from([("我妹妹英格丽有两个孩子。", "你妹妹英格丽有两个孩子。", "My sister Ingrid has two kids.",
                         "Your sister Ingrid has two kids."),
                        ("我养了一只灰猫叫开心果。", "你养了一只灰猫叫开心果。", "I have a grey cat called Pistachio.",
                         "You have a grey cat called Pistachio.")]))
def test_a_memory_read_out_to_a_question_about_the_world_is_cut(asked: tuple[str, str],
                                                                said: tuple[str, str, str, str]) -> None:
    """A third new user's trial: "今天有什么新闻？" got "你妹妹英格丽有两个孩子。"."""
    message, lang = asked
    memory, answer = (said[0], said[1]) if lang == "zh" else (said[2], said[3])
    facts = [memory, message]
    checked = check_answer(answer, message, sources="\n".join(facts), facts=facts)
    assert checked.text == NOT_TOLD[lang], checked


@given(st.integers(2, 12), st.sampled_from(["年", "个月", "岁"]))
def test_an_english_number_word_in_a_chinese_answer_is_said_in_figures(n: int, unit: str) -> None:
    """A third new user's trial: "我拉大提琴多久了？" got "你拉大提琴的时间是 twelve年。" from "I've played the cello
    for twelve years."."""
    from memory.language.words import EN_NUMERALS

    word = next(w for w, v in EN_NUMERALS.items() if v == n)
    facts = [f"I've played the cello for {word} years.", "我拉大提琴多久了？"]
    checked = check_answer(f"你拉大提琴的时间是 {word}{unit}。", facts[-1], sources="\n".join(facts), facts=facts)
    assert word not in checked.text and f"{n}{unit}" in checked.text, checked


@given(st.sampled_from(["英格丽", "安娜", "小林"]), st.sampled_from(["滑雪教练", "厨师", "飞行员"]),
       st.sampled_from(["拉大提琴多久了？", "住在哪里？", "开什么车？"]))
def test_a_markdown_list_of_recited_memories_invented_reasons_and_echoed_questions_is_cut(name: str, job: str,
                                                                                          asked: str) -> None:
    """A third new user's trial's replay: "英格丽不当放射科医生了，她现在是滑雪教练。" got a markdown list: "**现在**：
    你不在水族馆工作了。" (the user's own job read out: it shares only 现在 with the message), "3. **英格丽…**：她在
    工作中被诊断为“不健康”，因此…" (a quoted reason nobody gave) and "**拉大提琴多久了？" (a piece of the user's
    earlier question)."""
    message = f"{name}不当放射科医生了，她现在是{job}。"
    facts = ["我不在水族馆工作了，现在在一家报社当数据记者", f"我妹妹{name}有两个孩子。", message]
    answer = (f"你妹妹{name}不当放射科医生，她现在是{job}。\n**现在**：你不在水族馆工作了。\n3. **{name}不当放射科"
              f"医生**：她在工作中被诊断为“不健康”，因此她现在是{job}。\n**{asked}")
    checked = check_answer(answer, message, sources="\n".join([message, f"我{asked}", *facts]), facts=facts)
    assert checked.text == f"你妹妹{name}不当放射科医生，她现在是{job}。", checked


def test_markdown_marks_go_and_the_sentences_stay() -> None:
    facts = ["I moved to Lyon.", "I bought a Kia.", "What do you know about where I live and what I drive?"]
    checked = check_answer("1. You live in **Lyon**.\n2. You drive a Kia.", facts[-1], sources="\n".join(facts),
                           facts=facts)
    assert checked.text == "You live in Lyon.\nYou drive a Kia.", checked


_ZH_DIGIT = ["一", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二"]


@given(st.integers(1, 12), st.integers(1, 9), st.sampled_from(["I've played the cello for twelve years.",
                                                               "I drive an old blue Skoda Octavia."]))
def test_a_date_in_chinese_numerals_nobody_gave_is_invented(month: int, day: int, memory: str) -> None:
    """"我的生日是哪天？" (never told) beside English memories: "你的生日是五月三日。" passed (no figure to check, and a
    memory in the other language made the check stand down)."""
    facts = [memory, "我妹妹有两个孩子。", "我的生日是哪天？"]
    answer = f"你的生日是{_ZH_DIGIT[month - 1]}月{_ZH_DIGIT[day - 1]}日。"
    checked = check_answer(answer, facts[-1], sources="\n".join(facts), facts=facts)
    assert checked.text == NOT_TOLD["zh"], checked
    told = [*facts[:2], f"我的生日是{month}月{day}日。", facts[-1]]
    assert check_answer(answer, told[-1], sources="\n".join(told), facts=told).text == answer


@given(st.sampled_from(["巴黎", "柏林", "奥斯陆"]), st.sampled_from(["I have a grey cat called Pistachio.",
                                                              "I've played the cello for twelve years."]))
def test_a_memory_in_the_other_language_that_holds_nothing_asked_does_not_stand_the_check_down(city: str,
                                                                                              memory: str) -> None:
    """A third new user's trial's replay: "我最喜欢吃什么？" (never told) got "你喜欢吃滑面和烤肉。": the check stands
    down beside a memory in the other language (it could be what the answer translates). Where the question asks a
    slot of the bilingual table ("我住在哪里？": where the user lives), only a memory holding it can be."""
    facts = [memory, "我住在哪里？"]
    checked = check_answer(f"你住在{city}。", facts[-1], sources="\n".join(facts), facts=facts)
    assert city not in checked.text, checked


@pytest.mark.parametrize("answer", ["You're not sure;", "你不太确定；", "Here is what I know:", "The answer is："])
def test_a_sentence_that_opens_what_never_comes_is_no_answer(answer: str) -> None:
    """The final replay of a third new user's trial: "Oh and I sold the Skoda and bought a white Kia Niro." got
    "You're not sure;" and nothing else: an opening, like the plain answer's own "I'm not sure;", left alone."""
    facts = ["I drive an old blue Skoda Octavia.", "Oh and I sold the Skoda and bought a white Kia Niro."]
    checked = check_answer(answer, facts[-1], sources="\n".join(facts), facts=facts)
    assert checked.text == "Got it.", checked


@given(_NAME_EN, st.sampled_from([("a quality manager at a pharmaceutical company", "在一家制药公司做质量经理"),
                                  ("a teacher at a primary school", "在一所小学当老师"),
                                  ("a nurse at a clinic", "在一家诊所当护士")]))
def test_an_answer_about_the_user_in_the_first_person_is_said_to_the_user(name: str,
                                                                          job: tuple[str, str]) -> None:
    """A fourth new user's trial: "What's my job at the moment?" beside the Chinese memory of the change got "I'm a
    quality manager at a pharmaceutical company." (the user's voice: a translation shares no word with the memory,
    so it was not recognised as a restatement). To a question about the user's life not asked of the assistant,
    a first-person sentence that says nothing of the assistant's own knowing is the user's voice."""
    facts = [f"还有，我换工作了，现在{job[1]}。", f"I am {name} Rahimi.", "What's my job at the moment?"]
    checked = check_answer(f"I'm {job[0]}.", facts[-1], sources="\n".join(facts), facts=facts)
    assert checked.text == f"You're {job[0]}.", checked
    for own in ("I don't know what you do now.", "I remember you changed jobs.", "I'm not sure."):
        assert check_answer(own, facts[-1], sources="\n".join(facts), facts=facts).text == own
    ask = "Can you help me plan my trip?"  # asked of the assistant: its own "I"
    assert check_answer("I can help with that.", ask, sources=ask, facts=[ask]).text == "I can help with that."


@given(_NAME_EN, st.sampled_from(["cat", "dog", "parrot"]),
       st.sampled_from(["{n} is your {x}.", "It's {n}.", "{n}.", "Your {x}'s called {n}."]))
def test_a_name_said_first_or_after_its_is_an_answer_to_a_question_asking_it(name: str, pet: str, said: str) -> None:
    """A fourth new user's trial: "What's my cat called?" got a cut answer (its sentence opened with the name) and
    the plain one, unsure. A sentence that opens with a name, or gives it after "it's", names."""
    question = f"What's my {pet} called?"
    answer = said.format(n=name, x=pet)
    facts = [f"I have a {pet} called {name}.", question]
    assert check_answer(answer, question, sources="\n".join(facts), facts=facts).text == answer


@given(_NAME_EN, _NAME_EN, st.sampled_from([("sister", "妹妹"), ("brother", "哥哥"), ("wife", "妻子")]))
def test_the_users_own_name_is_not_given_to_a_relative(me: str, them: str, kin: tuple[str, str]) -> None:
    """A new-user check: "我妹妹叫什么名字？" (no sister ever mentioned) got "你妹妹叫 Lena Park。", the user's own
    name ("I'm Lena Park."). A fact of the user's said of a relative is cut; the relative's own name stands."""
    assume(me != them)
    question = f"我{kin[1]}叫什么名字？"
    facts = [f"I'm {me} Park.", "I work as a nurse in Busan.", question]
    checked = check_answer(f"你{kin[1]}叫 {me} Park。", question, sources="\n".join(facts), facts=facts)
    assert me not in checked.text and checked.changes, checked
    facts = [f"I'm {me} Park.", f"My {kin[0]} is called {them}.", question]
    assert check_answer(f"你{kin[1]}叫{them}。", question, sources="\n".join(facts), facts=facts).text == \
        f"你{kin[1]}叫{them}。"


@pytest.mark.parametrize(("message", "answer"), [
    (m, a) for m in ("What's my dog called?", "Where did I buy my bike?", "Who fixed my bike?")
    for a in ("I don't remember that.", "I'm not sure.")] + [
    (m, a) for m in ("我的狗叫什么名字？", "我的自行车是在哪里买的？", "谁修好了我的自行车？")
    for a in ("我不记得了。", "我不确定。")])
def test_the_assistant_saying_it_does_not_know_answers_a_where_name_or_who_question(message: str,
                                                                                    answer: str) -> None:
    """The place, name and who checks judge answers, not the assistant saying it does not know (the full suite's
    "What's my dog called?" -> "I don't remember that." had become the plain "not told")."""
    checked = check_answer(answer, message, sources=message, facts=[message])  # nothing recalled
    assert checked.text in (answer, NOT_TOLD["en"], NOT_TOLD["zh"]), checked  # it says it does not know either way
    assert not any(why in c for c in checked.changes for why in ("no place", "no name", "who in the first person"))
    if answer.isascii():
        assert checked.text == answer


@pytest.fixture(scope="module")
def e5_restates() -> Any:
    from memory.embeddings import E5Embeddings, restates

    judge = restates(E5Embeddings())
    assert judge is not None
    return judge


# told facts (the user's words) and a sentence of an answer in the other language: what one of them says, or what
# none says (facts, subjects and phrasings not among those TRANSLATION_COSINE was measured on)
_TOLD_EN = ["I teach chemistry at a high school in Ghent.", "My husband Luca restores old motorbikes.",
            "I have two rabbits called Momo and Juno.", "I go climbing every Thursday evening."]
_TOLD_ZH = ["我在成都的一家出版社做编辑。", "我女儿小雨在学芭蕾。", "我每天骑电动车上班。", "我对猫毛过敏。"]


@pytest.mark.parametrize(("facts", "message", "answer"), [
    (_TOLD_EN, "我是做什么工作的？", "你在根特的一所高中教化学。"),
    (_TOLD_EN, "我老公平时喜欢做什么？", "你丈夫Luca喜欢修复旧摩托车。"),
    (_TOLD_EN, "我每周四晚上做什么？", "你每周四晚上去攀岩。"),
    (_TOLD_ZH, "What do I do for a living?", "You work as an editor at a publisher in Chengdu."),
    (_TOLD_ZH, "What is my daughter learning?", "Your daughter Xiaoyu is learning ballet."),  # 小雨 in pinyin
    (_TOLD_ZH, "How do I get to work?", "You ride an electric scooter to work every day."),
])
def test_an_answer_that_says_a_memory_in_the_other_language_stands(facts: list[str], message: str, answer: str,
                                                                   e5_restates: Any) -> None:
    """A translation shares no word with what it translates: it stands when it says what a memory says by meaning
    (the bundled e5, :func:`memory.embeddings.restates`)."""
    told = [*facts, message]
    checked = check_answer(answer, message, sources="\n".join(told), facts=told, restates=e5_restates)
    assert checked.text == answer, checked


@pytest.mark.parametrize(("facts", "message", "answer"), [
    (_TOLD_EN, "我是什么血型？", "你是红血型。"),  # a fourth new user's trial
    (_TOLD_EN, "我多大了？", "你今年三十二岁。"),
    (_TOLD_EN, "我喜欢吃什么？", "你喜欢吃火锅。"),
    (_TOLD_ZH, "What's my blood type?", "You are a male."),  # a fourth new user's trial
    (_TOLD_ZH, "What's my favourite sport?", "You love playing tennis."),
    (_TOLD_ZH, "Where did I grow up?", "You grew up in a small village by the sea."),
])
def test_an_answer_about_the_user_that_no_memory_in_the_other_language_says_is_cut(
        facts: list[str], message: str, answer: str, e5_restates: Any) -> None:
    """A fourth new user's trial: "你是红血型。" and "You are a male." to a blood type never told stood, because the
    check stood down beside any memory in the other language (it could be what the sentence translates). Judged by
    meaning, they say none of them: the plain answer says it was not told."""
    told = [*facts, message]
    checked = check_answer(answer, message, sources="\n".join(told), facts=told, restates=e5_restates)
    assert checked.text == NOT_TOLD[language(message)], checked


@pytest.mark.parametrize(("memory", "answer", "made_up"), [
    ("我住在成都。", "You live in Chengdu.", []),
    ("我女儿小雨在学芭蕾。", "Your daughter Xiaoyu is learning ballet.", []),
    ("我老家在重庆。", "Your hometown is Chongqing.", []),  # 重 read "chong" in the word, not "zhong"
    ("我住在成都。", "You live in Chengdu with Xiaoming.", ["Xiaoming"]),
    ("我没有养宠物。", "Your dog is called Mei.", ["Mei"]),  # one syllable (没) is in most Chinese text: no name
])
def test_a_chinese_name_in_pinyin_is_what_the_memory_says(memory: str, answer: str, made_up: list[str]) -> None:
    """An English answer writes a Chinese memory's names in pinyin: "Chengdu" of 成都 is no name the model made up,
    "Xiaoming" (小明, said nowhere) is."""
    assert invented(answer, memory) == made_up


@pytest.mark.parametrize(("told", "message", "answer", "kept"), [
    ("我朋友Karim住在温哥华。", "Where does Karim work?", "Karim is a doctor.", False),  # a fourth user's trial
    ("我朋友Karim住在温哥华。", "Where does Karim work?", "Karim works at a bank in Vancouver.", False),
    ("My friend Karim lives in Vancouver.", "Karim在哪里工作？", "Karim在温哥华的一家银行工作。", False),
    ("My friend Karim lives in Vancouver.", "Karim现在做什么工作？", "Karim是一名律师。", False),
    ("My friend Karim lives in Hamburg.", "Karim现在住在哪里？", "Karim住在汉堡。", True),  # 汉堡 is Hamburg (e5)
])
def test_an_answer_about_a_person_the_user_told_of_is_judged_as_their_life(told: str, message: str, answer: str,
                                                                          kept: bool, e5_restates: Any) -> None:
    """A question about a person by a name a memory gives ("Karim…?") asks what the user told, as "my friend"
    does: a detail no memory says is cut, across languages too."""
    facts = [told, "I'm a quality manager in Rotterdam.", message]
    checked = check_answer(answer, message, sources="\n".join(facts), facts=facts, restates=e5_restates)
    assert (checked.text == answer) is kept, checked


@given(st.sampled_from([("brother", "哥哥"), ("sister", "姐姐"), ("friend", "朋友"), ("neighbour", "邻居")]),
       st.sampled_from([("Vancouver", "温哥华"), ("Leeds", "利兹"), ("Porto", "波尔图"), ("Osaka", "大阪")]),
       st.sampled_from([("lives", "works", "住在{p}", "在{p}工作"), ("works", "lives", "在{p}工作", "住在{p}"),
                        ("teaches", "studies", "在{p}教书", "在{p}读书")]))
def test_a_statement_said_back_with_a_word_swapped_is_cut(kin: tuple[str, str], place: tuple[str, str],
                                                         verbs: tuple[str, str, str, str]) -> None:
    """A fourth new user's trial: "他住在温哥华" was acknowledged "在温哥华工作" (lives became works). Said back, a
    statement keeps its words; a remark or a word added ("now") stands."""
    said, swapped, said_zh, swapped_zh = verbs
    message = f"My {kin[0]} {said} in {place[0]}."
    checked = check_answer(f"Got it, your {kin[0]} {swapped} in {place[0]}.", message, sources=message, facts=[message])
    assert checked.text == "Got it.", checked
    for kept in (f"Got it, your {kin[0]} {said} in {place[0]} now.", f"Nice, {place[0]} is lovely!"):
        assert check_answer(kept, message, sources=message, facts=[message]).text == kept
    message = f"我{kin[1]}{said_zh.format(p=place[1])}。"
    answer = f"好的，你{kin[1]}{swapped_zh.format(p=place[1])}。"
    checked = check_answer(answer, message, sources=message, facts=[message])
    assert place[1] not in checked.text, checked
    kept = f"好的，你{kin[1]}{said_zh.format(p=place[1])}。"
    assert check_answer(kept, message, sources=message, facts=[message]).text == kept


@given(st.sampled_from([("Mazda 3", "马自达"), ("Skoda Octavia", "斯柯达"), ("Toyota Corolla", "丰田卡罗拉")]),
       st.sampled_from([("Kia EV6", "起亚"), ("Volkswagen ID.3", "大众"), ("Tesla Model 3", "特斯拉")]))
def test_two_memories_put_in_the_wrong_time_order_are_cut(old: tuple[str, str], new: tuple[str, str]) -> None:
    """My own new-user check: "What car did I have before the Kia?" got "You had a grey Kia EV6 before the Mazda 3."
    (recall put the Mazda first; the answer reversed the order). A sentence ordering two recalled memories' things
    ("before", "after", "之前", "之后") is judged by the memories' times; the plain answer is recall's first."""
    assume(old[0].split()[-1] != new[0].split()[-1])
    for first, then, message, right, wrong in (
            (f"I drive a {old[0]}.", f"I sold the car and bought a {new[0]}.",
             f"What car did I have before the {new[0].split()[0]}?",
             f"You had the {old[0]} before the {new[0]}.", f"You had the {new[0]} before the {old[0]}."),
            (f"我开一辆{old[1]}。", f"我把车卖了，买了一辆{new[1]}。", f"我在{new[1]}之前开的是什么车？",
             f"在{new[1]}之前你开的是{old[1]}。", f"在{old[1]}之前你开的是{new[1]}。")):
        facts = [first, then, message]
        times = {first: 1_700_000_000_000, then: 1_710_000_000_000}
        checked = check_answer(wrong, message, sources="\n".join(facts), facts=facts, times=times)
        assert checked.text.endswith(second_person(first)), checked  # the plain answer: recall's first
        assert check_answer(right, message, sources="\n".join(facts), facts=facts, times=times).text == right
        after = f"You got the {old[0]} after the {new[0]}." if first.isascii() else f"在{old[1]}之后你买了{new[1]}。"
        flipped = check_answer(after, message, sources="\n".join(facts), facts=facts, times=times)
        assert (flipped.text == after) is (not first.isascii()), flipped


@given(_NAME_EN, st.sampled_from([("温哥华", "Vancouver"), ("鹿特丹", "Rotterdam"), ("大阪", "Osaka")]),
       st.sampled_from(["which is a city near the sea", "where the weather is always mild", "and loves it there"]))
def test_a_sentence_in_the_other_language_with_words_of_its_own_is_cut(name: str, place: tuple[str, str],
                                                                       more: str) -> None:
    """A fourth new user's trial: "Karim现在住在哪里？" got "Karim lives in 温哥华, which is a city near Rotterdam."
    (English, and a relation nobody said). A sentence in the other language than the message's stands only as a
    memory's words said back ("Your cat is called Pepper." to "我的猫叫什么？")."""
    facts = [f"我朋友{name}住在{place[0]}。", "I'm a quality manager.", f"{name}现在住在哪里？"]
    checked = check_answer(f"{name} lives in {place[0]}, {more}.", facts[-1], sources="\n".join(facts), facts=facts)
    assert more not in checked.text and place[0] in checked.text, checked  # the plain answer: the memory
    facts = [f"My friend {name} lives in {place[1]}.", f"{name}住在哪里？"]
    quoted = f"{name} lives in {place[1]}."
    assert check_answer(quoted, facts[-1], sources="\n".join(facts), facts=facts).text == quoted


@given(_NAME_EN, st.sampled_from([("friend", "朋友"), ("brother", "哥哥"), ("colleague", "同事")]),
       st.sampled_from([("blood type", "血型"), ("shoe size", "鞋码"), ("favourite colour", "幸运数字")]))
def test_a_thing_never_told_said_of_the_user_by_way_of_a_person_is_not_told(name: str, kin: tuple[str, str],
                                                                              thing: tuple[str, str]) -> None:
    """My own check of a fourth new user's trial: "What's my blood type?" got "Your blood type is the same as your
    friend Karim." (it shares "friend" and "Karim" with a memory: it stood), and when cut, the plain answer read out
    the friend's memory, which the cut sentence drew on only by the person. No memory names a blood type: it was not
    told. A thing the user did tell in other words ("my hobby" beside "I go bouldering") is still recalled."""
    for facts, message, answer, lang in (
            ([f"My {kin[0]} {name} lives in Vancouver.", f"My name is {name}a Rahimi."], f"What's my {thing[0]}?",
             f"Your {thing[0]} is the same as your {kin[0]} {name}'s.", "en"),
            ([f"我{kin[1]}{name}住在成都。", "我叫林小雨。"], f"我的{thing[1]}是什么？",
             f"你的{thing[1]}和{name}一样。", "zh")):
        told = [*facts, message]
        checked = check_answer(answer, message, sources="\n".join(told), facts=told)
        assert checked.text == NOT_TOLD[lang], checked
    told = ["On weekends I go bouldering.", f"My {kin[0]} {name} lives in Vancouver.", "What's my hobby?"]
    checked = check_answer("Your hobby is bouldering.", told[-1], sources="\n".join(told), facts=told)
    assert "bouldering" in checked.text, checked


@pytest.mark.parametrize(("memory", "message", "answer", "kept"), [
    ("我上个月搬到汉堡了，不再住慕尼黑。", "Where do I live now?", "You live in Hamburg now.", True),  # a fifth trial
    ("我上个月搬到汉堡了，不再住慕尼黑。", "Where do I live now?", "You live in Berlin now.", False),
    ("Tomas opened his own restaurant in Paris.", "Tomas现在在哪里工作？", "Tomas在巴黎开了自己的餐厅。", True),
    ("Tomas opened his own restaurant in Graz.", "Tomas现在在哪里工作？", "Tomas在维也纳开了自己的餐厅。", False),
    ("I go climbing every Thursday evening.", "我每周四晚上做什么？", "你每周四晚上去攀岩。", True),
])
def test_a_name_written_in_the_other_language_is_the_memorys_or_invented(memory: str, message: str, answer: str,
                                                                        kept: bool, e5_restates: Any) -> None:
    """A fifth new user's trial: "Where do I live now?" beside "我上个月搬到汉堡了…" got the plain answer (the model's
    "Hamburg" was a name nothing said). A name is a memory's written in the other language when e5 puts the two
    words close (:data:`memory.embeddings.NAME_COSINE`); a translation that names another place than its memory
    ("维也纳" for "Graz") is no translation. A weekday is a time, not a name to render."""
    facts = [memory, "My sister has two kids.", message]
    checked = check_answer(answer, message, sources="\n".join(facts), facts=facts, restates=e5_restates)
    assert (checked.text == answer) is kept, checked


@given(st.sampled_from([("I gave up climbing. I play chess now instead.", "en"), ("I moved to Graz last week.", "en"),
                        ("我不爬山了，现在下棋。", "zh"), ("我上个月搬到汉堡了。", "zh")]),
       st.sampled_from([("I don't know.", "我不知道。"), ("You don't know.", "你不知道。"),
                        ("I'm not sure.", "我不确定。")]))
def test_not_knowing_is_no_answer_to_a_statement(said: tuple[str, str], claim: tuple[str, str]) -> None:
    """A fifth new user's trial: "I gave up climbing, my knee hurts too much. I play chess now instead." got "Got it.
    You don't know.". Nothing was asked: a claim of not knowing is cut; to a question it is an answer."""
    message, lang = said
    answer = ("Got it. " if lang == "en" else "好的。") + claim[0 if lang == "en" else 1]
    assert check_answer(answer, message, sources=message, facts=[message]).text in (NOTED[lang], answer.split()[0],
                                                                                    "好的。")
    question = "Do I still go climbing?" if lang == "en" else "我还爬山吗？"
    own = claim[0] if lang == "en" else claim[1]
    if not own.startswith(("You", "你")):
        assert check_answer(own, question, sources=question, facts=[question]).text == own


@pytest.mark.parametrize(("before", "now", "same"), [
    ("Hi again! Where do I live now?", "Where do I live now?", True),  # a fifth new user's trial
    ("你好！我现在住在哪里？", "我现在住在哪里？", True),
    ("Thanks! What's my locker code?", "What's my locker code?", True),
    ("Hi again! Where do I live now?", "Where does Tomas live now?", False),
    ("我现在住在哪里？", "我女儿几岁了？", False),
])
def test_the_same_question_asked_again_is_not_a_stuck_answer(before: str, now: str, same: bool) -> None:
    """A fifth new user's trial: "Where do I live now?" after "Hi again! Where do I live now?" got the same right
    answer, which was taken for stuck (another message), generated again and answered plainly, unsure."""
    assert stuck("You live in Berlin.", now, [(before, "You live in Berlin.")]) is not same


@given(_NAME_EN, st.sampled_from([("sister", "妹妹"), ("brother", "哥哥"), ("mother", "妈妈")]),
       st.sampled_from([("Prague", "teaches maths", "quit teaching, works as a baker now"),
                        ("Lyon", "is a nurse", "left nursing, works as a pilot now")]))
def test_the_plain_answer_across_languages_is_the_memory_holding_the_slot_asked(
        name: str, kin: tuple[str, str], told: tuple[str, str, str]) -> None:
    """My own new-user check: "我妹妹住在哪里？" (the model's answer cut: no place) got the plain answer from "Hana quit
    teaching, she's a baker now." (recall's first: it follows the memory of where she lives) instead of that
    memory. Shared words cannot find it across languages; the slot the question asks, read from the memories, can."""
    place, job, change = told
    facts = [f"{name} {change}.", f"My {kin[0]} {name} lives in {place} and {job}.", "I drive a blue Skoda.",
             f"我{kin[1]}住在哪里？"]
    checked = check_answer(f"你{kin[1]}是面包师。", facts[-1], sources="\n".join(facts), facts=facts)
    assert place in checked.text, checked


@given(st.sampled_from([("Skoda Octavia", "斯柯达"), ("Mazda 3", "马自达")]),
       st.sampled_from([("Tesla", "特斯拉"), ("Volvo", "沃尔沃")]))
def test_an_answer_naming_only_what_the_question_orders_against_is_cut(old: tuple[str, str],
                                                                       new: tuple[str, str]) -> None:
    """My own new-user check: "What car did I have before the Tesla?" got "You had a Tesla before it was sold.": the
    thing asked against is no answer to what came before it; the plain answer is recall's first (the older one)."""
    for first, then, message, wrong, right in (
            (f"I drive a {old[0]}.", f"I sold the car and bought a {new[0]}.",
             f"What car did I have before the {new[0]}?",
             f"You had a {new[0]} before it was sold.", f"You had a {old[0]} before the {new[0]}."),
            (f"我开一辆{old[1]}。", f"我把{old[1]}卖了，买了一辆{new[1]}。", f"我在{new[1]}之前开的是什么车？",
             f"你在{new[1]}之前开的是{new[1]}。", f"你在{new[1]}之前开的是{old[1]}。")):
        facts = [first, then, message]
        checked = check_answer(wrong, message, sources="\n".join(facts), facts=facts)
        assert checked.text == second_person(first) or old[0] in checked.text or old[1] in checked.text, checked
        assert check_answer(right, message, sources="\n".join(facts), facts=facts).text == right


@given(_PLACE_EN, _PLACE_ZH, st.sampled_from([
    ("I moved to {en} last month.", "我上个月搬到{zh}了。", "Where do I live now?", "我现在住在哪里？"),
    ("I work as a pharmacist in {en}.", "我在{zh}当药剂师。", "What's my job?", "我做什么工作？")]))
def test_a_memory_in_the_other_language_is_quoted_as_the_user_told_it(en: str, zh: str,
                                                                      said: tuple[str, str, str, str]) -> None:
    """A fifth new user's trial: "I'm not sure; what I remember is: 你上个月搬到汉堡了…" to an English question (the
    memory turned to "you" in the other language). A plain answer quotes such a memory as the user told it, after
    "You told me:" / "你跟我说过："; a memory in the message's language is still said to the user."""
    memory_en, memory_zh, ask_en, ask_zh = said
    memory_en, memory_zh = memory_en.format(en=en), memory_zh.format(zh=zh)
    for memory, question, opening in ((memory_zh, ask_en, "You told me: "), (memory_en, ask_zh, "你跟我说过：")):
        facts = [memory, question]
        text = check_answer("", question, sources="\n".join(facts), facts=facts).text
        assert text.lower().endswith(f"{opening}“{memory}”".lower()), text  # unsure: "I'm not sure; you told me:"
        assert second_person(memory) not in text  # not said to the user in a language the question was not in
    facts = [memory_en, ask_en]
    text = check_answer("", ask_en, sources="\n".join(facts), facts=facts).text
    assert second_person(memory_en) in text and "“" not in text, text


@pytest.mark.parametrize(("question", "memory", "answers"), [
    ("What's my job?", "I work as a pharmacist in Graz.", True),
    ("What do I do for a living?", "I'm a nurse at a clinic.", True),
    ("我做什么工作？", "我在一家药店当药剂师。", True),
    ("What's my job?", "My sister works as a pharmacist.", False),  # the sister's
])
def test_the_plain_answer_is_the_memory_holding_the_asked_slot_in_other_words(question: str, memory: str,
                                                                            answers: bool) -> None:
    """My own check of the quoted answers: "What's my job?" beside "I work as a pharmacist in Graz." (no word in
    common: job, work) was answered "not told" when the model's answer was cut. The slot a question asks is read
    from the memories in either language, not only in the other one."""
    facts = [memory, question]
    text = check_answer("", question, sources="\n".join(facts), facts=facts).text
    assert (second_person(memory).rstrip(".。") in text) is answers, text
    assert (text == NOT_TOLD[language(question)]) is not answers


@given(_PLACE_ZH, st.sampled_from([("我住在哪个城市？", "你住在{d}。"), ("我现在住在哪里？", "你现在住在{d}。"),
                                   ("Which city do I live in?", "You live {e}.")]),
       st.sampled_from([("那里", "there"), ("这里", "here"), ("那儿", "there")]))
def test_a_demonstrative_is_no_place_to_a_question_asking_which(place: str, asked: tuple[str, str],
                                                               here: tuple[str, str]) -> None:
    """A sixth new user's trial: "我住在哪个城市？" got "你住在那里。", copied from the memory "我上个月搬到了马尔默，
    现在住在那里。". A demonstrative says no place; the plain answer gives the memory, which names it."""
    question, answer = asked
    facts = [f"我上个月搬到了{place}，现在住在那里。", question]
    checked = check_answer(answer.format(d=here[0], e=here[1]), question, sources="\n".join(facts), facts=facts)
    assert place in checked.text and checked.changes, checked


@given(st.sampled_from([("brother", "哥哥"), ("sister", "妹妹"), ("mother", "妈妈"), ("friend", "朋友")]),
       st.sampled_from([("climbing", "攀岩"), ("yoga", "瑜伽"), ("the guitar", "吉他"), ("tennis", "网球")]),
       _NAME_EN)
def test_what_the_user_says_of_themselves_is_not_given_to_another(kin: tuple[str, str], thing: tuple[str, str],
                                                                  name: str) -> None:
    """A sixth new user's trial: "我已经不拉大提琴了，现在开始学攀岩。" got "…你哥哥叫Erik，他住在斯德哥尔摩，是一名
    软件工程师，现在正在学习攀岩。": the user's new hobby given to the brother. To a statement about the user, a
    sentence about someone else that says what the statement says is cut; one that says it of the user stands."""
    en_kin, zh_kin = kin
    en, zh = thing
    message = f"我现在开始学{zh}了。"
    facts = [f"我{zh_kin}叫{name}，他住在斯德哥尔摩。", message]
    checked = check_answer(f"你{zh_kin}叫{name}，现在正在学习{zh}。", message, sources="\n".join(facts), facts=facts)
    assert zh_kin not in checked.text and checked.changes, checked
    message = f"I started {en} last week."
    facts = [f"My {en_kin} {name} lives in Oslo.", message]
    checked = check_answer(f"Your {en_kin} {name} is learning {en} too.", message, sources="\n".join(facts),
                           facts=facts)
    assert en_kin not in checked.text, checked
    assert check_answer(f"Nice, you're learning {en}.", message, sources="\n".join(facts), facts=facts).text == \
        f"Nice, you're learning {en}."


def test_a_translation_that_swaps_what_the_memory_says_is_cut() -> None:
    """A sixth new user's trial: "What does my brother do for work?" beside "我哥哥叫Erik…是一名软件工程师" got "Your
    brother works as a teacher at school.": a memory in the other language holding the asked slot (the brother's
    work) made the check stand down. With the judge across languages it is judged by meaning (0.77-0.79 for a
    swapped job beside a brother or a sister, 0.81 beside a friend: the judge's limit at 0.80, so 6 of the 9 below
    are cut); every right translation stands. And a name given after 叫 ("我哥哥叫Erik") is that relative's: "Your
    brother is a chef now." restates "Erik quit his job, he's a chef now."."""
    from memory.embeddings import E5Embeddings, restates

    judge = restates(E5Embeddings())
    cut = 0
    for (en_kin, zh_kin), (right, zh, wrong) in itertools.product(
            [("brother", "哥哥"), ("sister", "妹妹"), ("friend", "朋友")],
            [("a software engineer", "软件工程师", "a teacher at a school"), ("a nurse", "护士", "a lawyer at a firm"),
             ("a pilot", "飞行员", "a baker in a bakery")]):
        question = f"What does my {en_kin} do for work?"
        facts = [f"我{zh_kin}叫Aaba，他是一名{zh}。", question]
        checked = check_answer(f"Your {en_kin} works as {wrong}.", question, sources="\n".join(facts), facts=facts,
                               restates=judge)
        cut += wrong not in checked.text
        kept = check_answer(f"Your {en_kin} works as {right}.", question, sources="\n".join(facts), facts=facts,
                            restates=judge)
        assert kept.text == f"Your {en_kin} works as {right}.", kept
        facts = ["Aaba quit his job, he's a chef in a restaurant now.", f"我{zh_kin}叫Aaba，他是一名{zh}。", question]
        now = check_answer(f"Your {en_kin} is a chef in a restaurant now.", question, sources="\n".join(facts),
                           facts=facts, restates=judge)
        assert now.text == f"Your {en_kin} is a chef in a restaurant now.", now
    assert cut >= 6, cut


@pytest.mark.parametrize(("message", "said"), [("thanks!", "en"), ("ok thank you", "en"), ("谢谢", "zh"),
                                               ("好的，谢谢", "zh")])
def test_thanks_are_answered_as_thanks(message: str, said: str) -> None:
    """A sixth new user's trial: "谢谢" got "好的，知道了。" (the plain acknowledgement of a statement)."""
    assert check_answer("", message, sources=message, facts=[message]).text == WELCOME[said]
    assert check_answer("", "Thanks, I moved to Lyon.", sources="x", facts=["Thanks, I moved to Lyon."]).text == \
        NOTED["en"]


@pytest.mark.parametrize(("message", "small_talk"), [
    ("The weather is so grey today, isn't it?", True), ("That film was long, wasn't it?", True),
    ("今天好冷，对吧？", True), ("I live in Oslo, right?", False), ("我住在杭州，对吧？", False),
    ("What's the weather like today?", False)])
def test_a_remark_with_a_tag_question_is_small_talk(message: str, small_talk: bool) -> None:
    """A seventh new user's trial: "The weather is so grey today, isn't it?" got "You haven't told me that, so I
    don't know." A remark with a tag question asks no fact; one about the user asks to confirm it."""
    assert reaction(message) is small_talk
    if small_talk:
        assert check_answer("", message, sources=message, facts=[message]).text == NOTED[language(message)]


@given(_NAME_EN, st.sampled_from(["I'm {n}", "My name is {n}"]),
       st.sampled_from(["What do you remember about me?", "What do you know about me?"]))
def test_the_assistant_saying_it_is_the_user_by_name_speaks_as_the_user(name: str, told: str, question: str) -> None:
    """A seventh new user's trial: "What do you remember about me?" got "I'm Jonas and I have been to several places
    in the world." (the user's name as the assistant's, then a life nobody told). A sentence whose speaker is the
    user by a name the memories give the user is the user's voice: said to the user, and judged as the user's life."""
    facts = [told.format(n=name), "I work as a civil engineer.", question]
    checked = check_answer(f"I'm {name} and I have been to several places in the world.", question,
                           sources="\n".join(facts), facts=facts)
    assert "several places" not in checked.text and f"I'm {name}" not in checked.text, checked
    assert check_answer(f"I'm {name}.", question, sources="\n".join(facts), facts=facts).text == f"You're {name}."
