"""Memories over time: links between memories about one subject (memory/language/links.py), the newest of a chain first
(memory/recall.py), and memories that stand alone (memory/language/standalone.py). Subjects and names here are in no
slot table: the mechanisms must hold for what nobody listed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memory.language.answers import replacements
from memory.language.links import (
    LINKS_BY_EMBEDDER,
    common_words,
    content_words,
    entities,
    holders,
    link,
    links_for,
    links_to,
    same_holder,
)
from memory.language.slots import aliases, slots_as
from memory.language.standalone import fragment_reason, standalone
from memory.language.words import spelled
from memory.long_term import Memory
from memory.ranking import RankingConfig, ScoreBreakdown
from memory.recall import Recalled, answer_set, mark_chains, newest_first, question_links
from tests.data.link_pairs import PAIRS, split


@pytest.fixture(scope="module")
def e5() -> Any:
    from memory.embeddings import E5Embeddings

    return E5Embeddings()


def _rates(rows: list[tuple[str, str, str]], e5: Any) -> tuple[float, float]:
    """Precision and recall of the links on ``rows``. Each pair is judged as it would be in a user's store: among
    the other statements of the file (a word the two share that no other one has counts as an entity)."""
    old = e5.embed_documents([r[0] for r in rows])
    new = e5.embed_documents([r[1] for r in rows])
    texts = sorted({t for r in PAIRS for t in r[:2]})
    config = links_for("e5")
    tp = fp = fn = 0
    for (a, b, label), x, y in zip(rows, old, new, strict=True):
        common = common_words([a, *(t for t in texts if t not in (a, b))])
        linked = link(b, a, sum(p * q for p, q in zip(x, y, strict=True)), config, common).follows
        tp += linked and label == "follows"
        fp += linked and label == "other"
        fn += not linked and label == "follows"
    return tp / max(1, tp + fp), tp / max(1, tp + fn)


@pytest.mark.parametrize("part", ["dev", "test"])
def test_links_are_calibrated_on_the_labelled_pairs(part: str, e5: Any) -> None:
    """The thresholds were chosen on the dev half (precision 0.90, recall 0.95); the test half was never tuned on
    and gives precision 0.86, recall 0.86 with the bundled e5 (recall 0.90 before the pairs that share only a verb
    were added: "我喜欢喝铁观音" → "我现在更喜欢喝普洱茶" is missed, cosine 0.914 and no noun in common)."""
    rows = [r for r in PAIRS if split(r) == part]
    assert len(rows) >= 25 and {r[2] for r in rows} == {"follows", "other"}
    precision, recall = _rates(rows, e5)
    assert precision >= 0.85, precision
    assert recall >= (0.9 if part == "dev" else 0.85), recall


def test_entities_are_names_products_places_in_either_language() -> None:
    assert {"civic"} <= entities("I sold the Civic last week and bought a Tesla Model 3.")
    assert {"tesla", "model", "3"} <= entities("I sold the Civic last week and bought a Tesla Model 3.")
    assert "zorblax" in entities("Zorblax is my favourite board game.")  # a capitalised first word that names
    assert "i" not in entities("I live here.") and "the" not in entities("The cat sleeps.")
    assert "思域" in content_words("上周我把思域卖了，买了一辆特斯拉。")  # found as a word no other memory has
    assert not {"我的", "我最"} & content_words("我的笔记本电脑是我最喜欢的")
    assert "p40" in entities("我用的是华为P40手机。")
    assert not entities("我住在这里。") & entities("我在这里工作。") - {"这里"}


def test_holders_keep_people_apart() -> None:
    assert holders("I live in Hangzhou.") == {"self"}
    assert holders("My sister lives in Beijing.") == {"sister"}
    assert holders("我妹妹住在北京。") == {"sister"}
    assert {"brother", "tom"} <= holders("My brother Tom works at a bakery.")
    assert holders("Tom works at a bakery.") == {"tom"}
    assert same_holder("Tom works at a bakery.", "My brother Tom works at a bakery.")
    assert not same_holder("I live in Hangzhou.", "My sister lives in Beijing.")
    assert not same_holder("Lily goes to Maple Elementary.", "Jack goes to Pine Middle School.")
    assert same_holder("Max passed away.", "I have a dog named Max.")  # the other one names him
    # a Chinese name is found as written (no word breaks): the manager who left is the manager named before
    assert same_holder("刘洋调去别的部门了，所以我现在向杨帆汇报。", "我的领导是刘洋。")
    assert not same_holder("刘洋调走了，我现在向杨帆汇报。", "我妹妹住在北京。")


@pytest.mark.parametrize(("new", "old"), [
    ("我两周前搬到上海了。", "用户居住在杭州。"),  # bench answers, the 1.5B doing the memory work
    ("The user moved to Shanghai two weeks ago.", "I live in Hangzhou."),
    ("用户刚刚搬到厦门。", "用户居住在南京。"),
    ("The user's new job is at Tencent.", "My job is at Alibaba."),
])
def test_a_memory_worded_about_the_user_is_the_users(new: str, old: str) -> None:
    """With PALACE_LOCAL_MEMORY_MODEL=1.5b, "我住在杭州。" was stored as "用户居住在杭州。": about nobody holders()
    knew, so "我两周前搬到上海了。" linked to nothing, the old residence ranked first and the answer was stale."""
    assert "self" in holders(new) and "self" in holders(old)
    [found] = links_to(new, [(old, 0.88)], LINKS_BY_EMBEDDER["e5"])
    assert found.follows, found


_THINGS = st.sampled_from(["Quorvex", "Brindle", "Talvora", "Mextin", "Oskaby", "Vennic"])


@given(old=_THINGS, new=_THINGS)
def test_a_named_thing_in_common_links_whatever_it_is(old: str, new: str) -> None:
    """Invented names (in no table, in no model's vocabulary): the shared one is the evidence."""
    config = links_for("e5")
    said = f"I sold my {old} and got a {new} instead."
    assert link(said, f"I use a {old} every day.", 0.82, config).follows
    if old != new:
        assert not link(said, "I have a cat.", 0.82, config).follows


def test_followed_picks_the_neighbours_about_the_same_subject() -> None:
    near = [("I drive a blue Honda Civic.", 0.864), ("I live in Suzhou.", 0.84), ("My wife drives a Kia.", 0.88)]
    found = links_to("I sold the Civic last week and bought a Tesla Model 3.", near, links_for("e5"))
    assert [k.follows for k in found] == [True, False, False]


def test_a_word_no_other_memory_has_is_as_good_as_a_name() -> None:
    """"accountant" is in the old memory and in no other near the new one: the same subject. "work" is in many."""
    config = links_for("e5")
    said = "I stopped being an accountant in March and retrained as a data analyst."
    near = [("I work as an accountant.", 0.85), ("I work from home on Fridays.", 0.84),
            ("My sister works at a bank.", 0.83), ("I walk to work.", 0.82)]
    found = links_to(said, near, config)
    assert found[0].follows and found[0].named
    assert not any(k.follows for k in found[1:])


def _recalled(mid: str, score: float, cosine: float, *, follows: tuple[str, ...] = (),
              followed_by: tuple[str, ...] = (), on_topic: bool | None = None, boost: float = 1.0,
              at: int = 0, replaces: bool = False) -> Recalled:
    """``replaces``: it superseded the first of ``follows`` when it was written."""
    memory = Memory(id=mid, text=mid, user_id="u", session_id="s", timestamp=at, follows=list(follows),
                    followed_by=list(followed_by), replaces=list(follows[:1]) if replaces else [])
    return Recalled(memory=memory, breakdown=ScoreBreakdown(cosine=cosine, age_days=0, decay=1, weight=1,
                                                            boost=boost, score=score, on_topic=on_topic))


def test_a_follower_about_the_question_ranks_above_what_it_follows() -> None:
    old = _recalled("civic", 1.2, 0.84, followed_by=("tesla",), boost=1.19)  # use lifted it
    other = _recalled("tea", 0.9, 0.78)
    new = _recalled("tesla", 0.5, 0.826, follows=("civic",), at=1)
    ranked = mark_chains(newest_first([old, other, new], [], RankingConfig()))
    assert [r.memory.id for r in ranked] == ["tesla", "civic", "tea"]
    assert [r.chain for r in ranked] == ["now", "earlier", ""]
    assert ranked[0].breakdown.score >= ranked[1].breakdown.score


def test_a_follower_far_from_the_question_stays_where_it_is() -> None:
    """A wrong link cannot put an unrelated memory first: the follower must be about the question as much."""
    old = _recalled("coffee", 1.0, 0.85, followed_by=("running",))
    new = _recalled("running", 0.6, 0.80, follows=("coffee",), at=1)
    ranked = mark_chains(newest_first([old, new], [], RankingConfig()))
    assert [(r.memory.id, r.chain) for r in ranked] == [("coffee", ""), ("running", "")]


def test_a_question_about_the_user_in_general_marks_a_follower_at_any_rank() -> None:
    """A fifth new user's trial: "你记得我什么？" got the move to Hamburg said back beside the later move to Berlin,
    which followed it from a rank below. Every memory is about such a question as much: the chain is marked at
    any rank, and the plain answer's "true now" leaves the earlier one out (answers.replacements maps it to the
    follower below it)."""
    old = _recalled("hamburg", 1.0, 0.85, followed_by=("berlin",))
    other = _recalled("cat", 0.9, 0.84)
    new = _recalled("berlin", 0.6, 0.80, follows=("hamburg",), at=1)
    ranked = mark_chains([old, other, new], any_rank=True)
    assert [(r.memory.id, r.chain) for r in ranked] == [("hamburg", "earlier"), ("cat", ""), ("berlin", "now")]
    assert replacements([(r.memory.id, r.chain) for r in ranked], "你记得我什么？", windowed=False) == {
        "hamburg": "berlin"}
    assert [r.chain for r in mark_chains([old, other, new])] == ["", "", ""]  # another question: as before


@given(st.integers(min_value=2, max_value=7), st.randoms(use_true_random=False))
def test_every_chain_is_newest_first(n: int, rnd: Any) -> None:
    """A chain m0 <- m1 <- ... (each follows the one before, all about the question): whatever order the scores
    gave them, the newest ranks first and the rest follow in order, each marked."""
    ids = [f"m{i}" for i in range(n)]
    items = [_recalled(mid, rnd.random(), 0.85, follows=(ids[i - 1],) if i else (),
                       followed_by=(ids[i + 1],) if i + 1 < n else (), at=i) for i, mid in enumerate(ids)]
    rnd.shuffle(items)
    ranked = mark_chains(newest_first(items, [], RankingConfig()))
    assert [r.memory.id for r in ranked] == ids[::-1]
    assert [r.chain for r in ranked] == ["now"] + ["earlier"] * (n - 1)
    scores = [r.breakdown.score for r in ranked]
    assert scores == sorted(scores, reverse=True)


def test_a_fetched_follower_takes_its_place() -> None:
    from memory.long_term import Hit

    old = _recalled("old", 1.0, 0.84, followed_by=("new",))
    far = Hit(memory=Memory(id="new", text="new", user_id="u", session_id="s", timestamp=1, follows=["old"]),
              cosine=0.83)
    ranked = mark_chains(newest_first([old], [far], RankingConfig()))
    assert [(r.memory.id, r.chain) for r in ranked] == [("new", "now"), ("old", "earlier")]
    gone = Hit(memory=far.memory, cosine=0.70)  # not about the question: not brought in
    assert [r.memory.id for r in newest_first([old], [gone], RankingConfig())] == ["old"]


@pytest.mark.parametrize(("fragment", "message", "earlier", "expected"), [
    ("and bought a Tesla Model 3", "I sold the Civic last week and bought a Tesla Model 3.", [],
     "I sold the Civic last week and bought a Tesla Model 3."),
    ("he joined Microsoft last month", "Tom just left Google, he joined Microsoft last month.", [],
     "Tom just left Google, he joined Microsoft last month."),
    ("He joined Vextra.", "My cousin Arvo works at Quillon. He joined Vextra.", [], "My cousin Arvo joined Vextra."),
    ("She plays the oboe now.", "She plays the oboe now.", ["My aunt teaches chemistry."],
     "My aunt plays the oboe now."),
    ("Her new flat is in Lyon.", "Her new flat is in Lyon.", ["My friend Odile moved out."],
     "My friend Odile's new flat is in Lyon."),
    ("她毕业了，现在在深圳工作。", "她毕业了，现在在深圳工作。", ["我女儿在北京读大学。"],
     "我女儿毕业了，现在在深圳工作。"),
    ("他的新车是蔚来。", "他的新车是蔚来。", ["我表哥以前开大众。"], "我表哥的新车是蔚来。"),
    ("然后买了一辆比亚迪", "我把旧车卖了，然后买了一辆比亚迪。", [], "我把旧车卖了，然后买了一辆比亚迪。"),
    # the one person the sentence before names, wherever it names them (bench updates dev, the pronoun variant:
    # kept as two sentences, the move was the user's by its slots and retired nothing)
    ("He left Lhasa, he lives in Sanya now.", "I talked to my dad yesterday. He left Lhasa, he lives in Sanya now.",
     [], "My dad left Lhasa, he lives in Sanya now."),
    ("她现在住在温哥华。", "周末和我老婆聊了聊。她现在住在温哥华。", [], "我老婆现在住在温哥华。"),
    ("她现在在蚂蚁集团上班。", "昨天和韩梅梅通了电话。她现在在蚂蚁集团上班。", [], "韩梅梅现在在蚂蚁集团上班。"),
    ("他在厦门大学读书。", "周末和小王聊了聊。他在厦门大学读书。", [], "小王在厦门大学读书。"),
])
def test_fragments_become_statements_that_stand_alone(fragment: str, message: str, earlier: list[str],
                                                      expected: str) -> None:
    assert fragment_reason(fragment)
    said = standalone(fragment, message, earlier)
    assert said == expected
    assert fragment_reason(said) is None


@pytest.mark.parametrize(("fragment", "message", "expected"), [
    ("He moved to Chicago.", "I caught up with Dawit over the weekend. He moved to Chicago.",
     "I caught up with Dawit over the weekend. He moved to Chicago."),
    # two people named: no guess
    ("She moved to Oslo.", "I had lunch with my sister and my aunt. She moved to Oslo.",
     "I had lunch with my sister and my aunt. She moved to Oslo."),
    ("他搬到长沙了。", "周末和张伟、李娜吃饭。他搬到长沙了。", "周末和张伟、李娜吃饭。他搬到长沙了。"),
])
def test_a_person_named_but_not_as_the_subject_keeps_the_two_sentences_together(fragment: str, message: str,
                                                                               expected: str) -> None:
    assert standalone(fragment, message) == expected


def test_a_pronoun_opening_a_message_is_the_one_person_the_users_memories_name() -> None:
    assert standalone("他转到厦门大学了。", "他转到厦门大学了。", (), ["李雷在南开大学读书", "我对海鲜过敏"]) == (
        "李雷转到厦门大学了。")


def test_a_pronoun_nothing_resolves_keeps_the_users_sentence() -> None:
    """Nothing names the person: the user's words are kept (never dropped), not a guess."""
    assert standalone("she moved to Oslo", "She moved to Oslo.") == "She moved to Oslo."
    # the user's memories name one person: the only candidate
    assert standalone("She moved to Oslo.", "She moved to Oslo.", (), ["My niece studies law."]) == (
        "My niece moved to Oslo.")
    # two people: no guess
    assert standalone("She moved to Oslo.", "She moved to Oslo.", (),
                      ["My niece studies law.", "My aunt sings."]) == "She moved to Oslo."


def test_statements_that_stand_alone_are_kept_as_they_are() -> None:
    for text in ("I live in Hangzhou.", "Tom joined Microsoft.", "我住在杭州。", "小雨毕业了。", "Andrew plays golf."):
        assert fragment_reason(text) is None
        assert standalone(text, text) == text


def _prompt(question: str, *, compact: bool) -> str:
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from langchain_core.messages import HumanMessage

    from nodes.respond import build_prompt

    tz = ZoneInfo("Asia/Shanghai")

    def mem(text: str, day: int, chain: str) -> dict[str, Any]:
        ms = int(datetime(2026, 11, day, tzinfo=tz).timestamp() * 1000)
        return {"id": text, "text": text, "timestamp": ms, "event_time": None, "score": 1.0, "relevance": 1.0,
                "cosine": 1.0, "lexical": None, "decay": 1.0, "weight": 1.0, "boost": 1.0, "chain": chain}

    recalled = [mem("I switched to a Kia Niro", 28, "now"), mem("I drive a Volvo XC40", 2, "earlier")]
    prompt = build_prompt(now=datetime(2026, 12, 4, 10, tzinfo=tz), recalled=recalled, tasks=[], window=[],
                          turn_messages=[HumanMessage(question)], time_window=None, budget=3000,
                          encoding="o200k_base", compact=compact)
    return str(prompt.messages[0].content)


def test_the_prompt_marks_now_and_earlier_and_a_small_model_sees_only_now_unless_asked_about_the_past() -> None:
    """Measured on the bundled 0.5B: with the earlier line shown it answered the earlier value to 10 of 10 "now"
    questions; without it, 7 of 10 right."""
    full = _prompt("What car do I drive?", compact=False)
    assert '"holds": "now"' in full and '"holds": "earlier"' in full
    small = _prompt("What car do I drive?", compact=True)
    assert "- now: You switched to a Kia Niro" in small and "Volvo" not in small
    past = _prompt("What did I drive before?", compact=True)
    assert "- now: You switched to a Kia Niro" in past and "- earlier (2026-11-02): You drive a Volvo XC40" in past


# A stated change that names nothing it replaces: nearness guesses what it replaces, and the guess only orders.

def test_a_stated_change_with_nothing_in_common_follows_the_nearest_memory_about_the_same_person() -> None:
    config = links_for("e5")
    said = "I switched my subscription to Paramount+."  # no word, no entity in common with what it replaces
    near = [("I pay for Peacock every month.", 0.858), ("My sister pays for Hulu.", 0.87),
            ("I'm afraid of heights.", 0.83)]
    found = links_to(said, near, config)
    assert [k.follows for k in found] == [True, False, False]
    assert found[0].weak and not found[0].named
    # the same words without a change: nothing is guessed
    assert not any(k.follows for k in links_to("I subscribe to Paramount+.", near, config))
    # too far from everything: no guess either
    assert not any(k.follows for k in links_to(said, [("I'm afraid of heights.", 0.7)], config))


def test_a_change_linked_by_evidence_guesses_nothing_more() -> None:
    config = links_for("e5")
    near = [("I'm afraid of heights.", 0.9), ("I drive a blue Honda Civic.", 0.864)]
    found = links_to("I sold the Civic and I drive a Tesla now.", near, config)
    assert [k.follows for k in found] == [False, True] and not found[1].weak


def _cand(text: str, detail: str | None = None) -> Any:
    return {"text": text, "detail": detail or text, "event_time": None, "important": False}


def _near(mid: str, text: str, cosine: float) -> Any:
    from memory.long_term import Hit

    return Hit(memory=Memory(id=mid, text=text, user_id="u", session_id="s", timestamp=0), cosine=cosine)


def test_a_verifier_update_linked_by_nearness_only_keeps_both_and_follows() -> None:
    """The model's "update" is a guess of the subject: it may link (recall orders the newer first), never retire."""
    from memory.language.links import Link
    from nodes.fact_check import with_links

    config = links_for("e5")
    cand = _cand("I'm learning the oboe.")
    near = [_near("m1", "I'm learning the bassoon.", 0.91), _near("m2", "My brother is learning the oboe.", 0.9)]
    found = [Link(False, "not near enough"), Link(False, "about different people")]
    update = {"candidate": cand, "decision": "update", "memory_id": "new", "target": "m1",
              "target_text": near[0].memory.text, "reason": "a newer instrument"}
    (v,) = with_links([update], [near], [found], config.entity_cosine)
    assert v["decision"] == "add" and v["follows"] == ["m1"] and v["follows_named"] == []
    assert "only nearness" in v["note"]
    # the verifier named the other person's memory: no link, an add
    (w,) = with_links([{**update, "target": "m2"}], [near], [found], config.entity_cosine)
    assert w["decision"] == "add" and w["follows"] == []
    # linked by evidence: the update stands
    named = [Link(True, "the same 'bassoon'", named=True), Link(False, "about different people")]
    (u,) = with_links([update], [near], [named], config.entity_cosine)
    assert u["decision"] == "update" and u["target"] == "m1"


def test_a_change_cut_in_two_is_put_back_whatever_nearness_guessed() -> None:
    from memory.language.links import Link
    from nodes.fact_check import whole_changes

    message = "The Pentax K-1 broke, I got a Leica SL2."
    cands = [_cand("The Pentax K-1 broke", message), _cand("I got a Leica SL2", message)]
    links = [[Link(True, "the same 'pentax'", named=True)], [Link(True, "a stated change, nearest", weak=True)]]
    (whole,) = whole_changes(cands, links, max_tokens=200, encoding="cl100k_base")
    assert whole["text"] == message


def test_another_attribute_of_the_same_kind_is_another_subject() -> None:
    """"favourite" is shared by every favourite: a favourite colour never follows a favourite film (the films of
    the `bench updates` kept@1 questions were answered with the season the user likes)."""
    config = links_for("e5")
    assert not link("My favourite colour is dark green.", "My favourite film is Spirited Away.", 0.91, config).follows
    assert not link("我最喜欢的颜色是墨绿色。", "我最喜欢的电影是《千与千寻》。", 0.93, config).follows
    # the same attribute: the same subject, whatever the value
    assert link("My favourite colour is teal now.", "My favourite colour is dark green.", 0.9, config).follows


def _told(text: str, cosine: float, at: int) -> Recalled:
    """A recalled memory whose score is its cosine (the ranking's order before links)."""
    return _recalled(text, cosine, cosine, at=at)


def _implied(ranked: list[Recalled], config: RankingConfig | None = None) -> dict[str, dict[str, float]]:
    return question_links(ranked, 5, config or RankingConfig())[0]


# (older, newer): nothing in common to link them when the newer was written
UNLINKED_CHANGES = [
    ("My next holiday will be in New Zealand", "Change of plans: I'm now going to Peru"),
    ("I race a Hobie 16 catamaran on Sundays", "I switched to windsurfing this year"),
    ("我在阿里巴巴工作，做支付相关的业务", "我跳槽到腾讯了"),
    ("我每周三去陶艺课", "我不上陶艺课了，现在改成周三打羽毛球"),
]


@pytest.mark.parametrize(("old", "new"), UNLINKED_CHANGES)
def test_a_stated_change_recalled_beside_what_it_changed_ranks_first(old: str, new: str) -> None:
    """Nothing linked them when ``new`` was written (no entity in common); the question names their subject:
    both are recalled for it, and the stated change ranks first, the older one marked earlier."""
    ranked = [_told(old, 0.86, 1), _told(new, 0.845, 3), _told("I'm allergic to shellfish", 0.80, 2)]
    implied, changes = question_links(ranked, 5, RankingConfig())
    out = mark_chains(newest_first(ranked, [], RankingConfig(), implied), changes)
    assert [(r.memory.id, r.chain) for r in out][:2] == [(new, "now"), (old, "earlier")]


@pytest.mark.parametrize(("job", "move"), [
    ("我不在水族馆工作了，现在在一家报社当数据记者", "I just moved to Lyon last month!"),
    ("I quit the bakery, I'm a bus driver now", "我上个月搬到了成都"),
    ("I switched from oolong tea to coffee now", "I moved from Oslo to Bergen"),
])
def test_a_change_that_found_its_subject_when_written_takes_no_other_from_the_question(job: str, move: str) -> None:
    """A third new user's trial: "我不在水族馆工作了…" retired the English job memory when it was written; for "Where
    do I live now?" it still took every older memory recalled beside it as what it changed, ranked above the move
    and marked it earlier, and the answer was the job. A change linked when written has its subject."""
    ranked = [_told("I live in Porto", 0.809, 1), _recalled(move, 0.80, 0.80, follows=("I live in Porto",), at=2),
              _recalled(job, 0.79, 0.826, follows=("an older job, not recalled",), at=3, replaces=True),
              _told("I am Maren Holt", 0.78, 1)]
    implied, changes = question_links(ranked, 5, RankingConfig(), present=True)
    assert job not in implied and job not in changes
    out = mark_chains(newest_first(ranked, [], RankingConfig(), implied), changes)
    assert [(r.memory.id, r.chain) for r in out][:2] == [(move, "now"), ("I live in Porto", "earlier")]
    assert {r.memory.id: r.chain for r in out}[job] == ""
    # linked by nearness alone when written (no memory superseded, no name shared), a change still takes the
    # question's subject: bench updates zh-employer-0 ("我跳槽到腾讯了")
    weak = [ranked[0], ranked[1], _recalled(job, 0.79, 0.826, follows=("an older job, not recalled",), at=3)]
    assert job in question_links(weak, 5, RankingConfig(), present=True)[1]


def test_a_change_about_someone_else_or_far_from_the_question_stays_below() -> None:
    mine = _told("I drink green tea every morning", 0.88, 1)
    sisters = _told("My sister switched to coffee now", 0.87, 3)  # about another person
    far = _told("I switched gyms this year", 0.80, 4)  # about the user, not about the question
    ranked = [mine, sisters, far, _told("My star sign is Leo", 0.79, 2)]
    out = newest_first(ranked, [], RankingConfig(), _implied(ranked))
    assert out[0].memory.id == mine.memory.id


def test_a_plain_restatement_that_stands_out_ranks_first_unmarked() -> None:
    """"我的笔记本电脑是小米笔记本" then "我用戴尔XPS": no change word, nothing in common; both stand out from
    the rest for "我用什么笔记本电脑？" (e5's cosines), and the newer ranks first. Nothing says the old one was
    replaced: no marks. Off by default (RankingConfig.restatements: it cost LoCoMo far more than it gave)."""
    ranked = [_told("我的笔记本电脑是小米笔记本", 0.923, 1), _told("我用戴尔XPS", 0.906, 5),
              _told("我是狮子座", 0.853, 2), _told("我最喜欢的电影是《千与千寻》", 0.832, 3)]
    on = RankingConfig(restatements=True)
    out = mark_chains(newest_first(ranked, [], on, _implied(ranked, on)))
    assert [(r.memory.id, r.chain) for r in out][:2] == [("我用戴尔XPS", ""), ("我的笔记本电脑是小米笔记本", "")]
    off = newest_first(ranked, [], RankingConfig(), _implied(ranked))
    assert off[0].memory.id == "我的笔记本电脑是小米笔记本"


def test_a_newer_memory_that_does_not_stand_out_stays_below() -> None:
    ranked = [_told("I play the cello", 0.90, 1), _told("I'm left-handed", 0.85, 5),
              _told("My star sign is Leo", 0.85, 2), _told("I hate coriander", 0.84, 3),
              _told("I sleep badly when it's hot", 0.84, 4)]
    assert answer_set(ranked, 5) == []
    assert newest_first(ranked, [], RankingConfig(), _implied(ranked))[0].memory.id == "I play the cello"


_GENDERED_EN = {"f": ("sister", "wife", "mother", "aunt", "niece", "daughter", "grandmother", "girlfriend"),
                "m": ("brother", "husband", "father", "uncle", "nephew", "son", "grandfather", "boyfriend")}
_GENDERED_ZH = {"f": ("妹妹", "姐姐", "女儿", "妈妈", "奶奶", "阿姨", "表姐", "老婆"),
                "m": ("哥哥", "弟弟", "儿子", "爸爸", "爷爷", "叔叔", "表哥", "老公")}


@pytest.mark.parametrize("seed", range(24))
def test_a_pronoun_is_the_nearest_person_of_its_gender(seed: int) -> None:
    """Generated: two people of either gender named in the session's earlier turns, in either order and either
    language; "she" / "她" is the woman, "he" / "他" the man, however near the other one was named."""
    import random

    rng = random.Random(seed)
    zh = seed % 2 == 1
    kin = _GENDERED_ZH if zh else _GENDERED_EN
    woman, man = rng.choice(kin["f"]), rng.choice(kin["m"])
    places = ["Lisbon", "Tallinn", "Quito", "Hobart"] if not zh else ["昆明", "大连", "厦门", "兰州"]
    first, second = rng.sample(places, 2)
    told = ([f"我{woman}住在{first}。", f"我{man}住在{second}。"] if zh
            else [f"My {woman} lives in {first}.", f"My {man} lives in {second}."])
    rng.shuffle(told)
    pronoun, who = rng.choice([("她", woman), ("他", man)] if zh else [("She", woman), ("He", man)])
    fact = f"{pronoun}换工作了。" if zh else f"{pronoun} changed jobs."
    said = standalone(fact, fact, told)
    assert said == (f"我{who}换工作了。" if zh else f"My {who} changed jobs.")


def test_a_name_takes_its_gender_from_what_the_user_said() -> None:
    """"Tom" is nobody's "she": the user called him a brother, or went on about him with "he"."""
    earlier = ["Tom just left Google, he joined Microsoft last month."]
    assert standalone("她毕业了，现在在深圳工作。", "她毕业了，现在在深圳工作。", earlier,
                      ["我女儿在北京读大学。", "My brother Tom works at Google."]) == "我女儿毕业了，现在在深圳工作。"
    assert standalone("She graduated.", "She graduated.", ["Tom works at Google."],
                      ["My brother Tom works at Google.", "My niece studies law."]) == "My niece graduated."
    # nothing says who she is: the user's words are kept
    assert standalone("She graduated.", "She graduated.", ["Tom left, he joined Microsoft."]) == "She graduated."


def test_a_shared_chinese_word_links_only_when_it_names_something() -> None:
    """By the lexicon's part of speech, not a list: a place, a thing, a time name; a verb, an adverb or the
    person's kinship word does not ("我喜欢秋天" and "我最喜欢的颜色是墨绿色" share only 喜欢)."""
    from memory.language.words import names_something

    assert all(names_something(w) for w in ("南京", "自行车", "秋天", "思域", "Civic"))
    assert not any(names_something(w) for w in ("喜欢", "经常", "打算", "讨厌"))
    config = links_for("e5")
    assert not link("我最喜欢的颜色是墨绿色。", "我喜欢秋天。", 0.92, config).follows
    assert not link("我妈妈喜欢看京剧。", "我妈妈喜欢养兰花。", 0.93, config).follows
    assert link("我把思域卖了，买了一辆特斯拉。", "我开一辆本田思域。", 0.85, config).named


def test_a_phrase_that_opens_with_a_preposition_and_names_no_one_keeps_its_sentence() -> None:
    """The 0.5B cut "On the payments team" from "I've been at Stripe …, on the payments team." and it ranked first
    for "Where do I work?". Structure, not subjects: a preposition first and no person in it."""
    from memory.language.standalone import fragment_reason, standalone

    said = "I've been at Stripe for about two years, on the payments team."
    assert standalone("On the payments team", said) == said
    assert standalone("在字节跳动上班", "我去年换了工作，在字节跳动上班。") == "我去年换了工作，在字节跳动上班。"
    assert fragment_reason("In May I moved to Berlin.") is None
    assert fragment_reason("Since 2019 my sister has lived in Oslo.") is None
    assert standalone("At Quillon, Arvo leads design.", "At Quillon, Arvo leads design.") == \
        "At Quillon, Arvo leads design."  # kept as written when nothing better exists


# (older, newer) turns of one speaker: the newer states a change, about something else than the question asks
SPEAKER_TURNS = [
    ("Caroline: I researched adoption agencies last week", "Caroline: I switched to a pottery class on Fridays"),
    ("Melanie: We camped by the lake with the kids", "Melanie: I moved my painting studio to the garage"),
    ("小林：我上个月去了趟敦煌看壁画", "小林：我换了一家健身房，现在去城东那家"),
]


@pytest.mark.parametrize(("old", "new"), SPEAKER_TURNS)
def test_a_stated_change_that_does_not_stand_out_orders_only_a_question_about_now(old: str, new: str) -> None:
    """Every turn of a conversation says whom, so a stated change is "about the same person" as every older
    turn of its speaker. For a question naming no time it follows only what stands out for the question with
    it: here only the older turn does, which stays first (LoCoMo R@5 on its first conversation: 64.0 with every
    stated change linked, 68.2 with this rule). For a question about now the change still ranks first."""
    ranked = [_told(old, 0.88, 1), _told(new, 0.86, 4), _told("Caroline: The weather was lovely", 0.85, 2),
              _told("Melanie: Thanks for asking", 0.85, 3), _told("小林：好的", 0.84, 5)]
    implied, _ = question_links(ranked, 5, RankingConfig())
    assert newest_first(ranked, [], RankingConfig(), implied)[0].memory.id == old
    implied, changes = question_links(ranked, 5, RankingConfig(), present=True)
    assert old in changes[new]
    assert newest_first(ranked, [], RankingConfig(), implied)[0].memory.id == new


def test_english_words_are_compared_by_their_stems() -> None:
    """The Snowball stemmer, not a suffix rule of our own: "moved" is "move", and "planes" is not "plans" (the rule
    linked "Change of plans: I'm going to Vietnam" to "I want a window seat on planes")."""
    from memory.language.words import grounding_units

    assert grounding_units("I moved to Oslo.") & grounding_units("We move a lot.")
    assert grounding_units("She lives here.") & grounding_units("living")
    assert not grounding_units("Change of plans.") & grounding_units("window seats on planes")
    assert "上海" in grounding_units("我住在上海。")  # Chinese units are left as they are


def test_mutually_nearest_pairs() -> None:
    from memory.recall import mutually_nearest

    vectors = {"phone-old": [1.0, 0.0, 0.0], "phone-new": [0.95, 0.31, 0.0], "dessert": [0.0, 0.6, 0.8],
               "allergy": [0.0, 0.8, 0.6]}
    assert mutually_nearest(vectors) == {frozenset(("phone-old", "phone-new")), frozenset(("dessert", "allergy"))}
    # a memory nearest to one that has a nearer partner of its own pairs with nobody
    assert mutually_nearest({"a": [1.0, 0.0], "b": [0.99, 0.14], "c": [0.9, 0.44]}) == {frozenset(("a", "b"))}
    assert mutually_nearest({"a": [1.0, 0.0]}) == set()


def test_an_untimed_restatement_ranks_first_when_the_two_are_each_others_nearest() -> None:
    """"我的笔记本电脑是小米笔记本" then "我用戴尔XPS" for "我用什么笔记本电脑？" (no time named): both stand out, and
    their stored vectors are nearer each other than either is to the rest, so the newer ranks first and the older
    is marked earlier (a small model is shown only the newer). Two memories that stand out but are each nearer
    something else keep the question's order, unmarked."""
    from dataclasses import replace

    from memory.recall import question_links

    def in_session(r: Recalled) -> Recalled:  # each told in a conversation of its own
        return replace(r, memory=r.memory.model_copy(update={"session_id": f"s{r.memory.timestamp}"}))

    ranked = [in_session(r) for r in (_told("我的笔记本电脑是小米笔记本", 0.923, 1), _told("我用戴尔XPS", 0.906, 5),
                                      _told("我是狮子座", 0.853, 2), _told("我最喜欢的电影是《千与千寻》", 0.832, 3))]
    pair = {"我的笔记本电脑是小米笔记本": [1.0, 0.0, 0.0], "我用戴尔XPS": [0.92, 0.39, 0.0],
            "我是狮子座": [0.0, 0.6, 0.8], "我最喜欢的电影是《千与千寻》": [0.0, 0.8, 0.6]}
    implied, changes = question_links(ranked, 5, RankingConfig(), vectors=lambda: pair)
    out = mark_chains(newest_first(ranked, [], RankingConfig(), implied), changes)
    assert [(r.memory.id, r.chain) for r in out][:2] == [("我用戴尔XPS", "now"),
                                                         ("我的笔记本电脑是小米笔记本", "earlier")]
    apart = {**pair, "我用戴尔XPS": [0.0, 0.75, 0.66]}  # nearest to the star sign, not to the laptop
    implied, changes = question_links(ranked, 5, RankingConfig(), vectors=lambda: apart)
    assert newest_first(ranked, [], RankingConfig(), implied)[0].memory.id == "我的笔记本电脑是小米笔记本"
    assert not changes
    # told in one conversation, the later one goes on about the subject: no restatement
    one = [replace(r, memory=r.memory.model_copy(update={"session_id": "s"})) for r in ranked]
    implied, changes = question_links(one, 5, RankingConfig(), vectors=lambda: pair)
    assert newest_first(one, [], RankingConfig(), implied)[0].memory.id == "我的笔记本电脑是小米笔记本"
    assert not changes


def test_a_change_in_other_words_joins_a_present_questions_topic_only_as_a_restatement() -> None:
    """"我目前在坚持哪种饮食？": "我一直坚持纯素" shares 坚持 (on topic), "我改吃素食了" shares nothing but is as near
    the question, and the two are each other's nearest memory: it joins the topic. Yesterday's lunch, as near the
    question, is nobody's nearest: it stays off (the issue's "where do I live now?" answered with a lunch)."""
    from dataclasses import replace

    from memory.recall import tied_restatements

    def told(text: str, cosine: float, on: bool, session: str) -> Recalled:
        r = _recalled(text, cosine, cosine, on_topic=on)
        return replace(r, memory=r.memory.model_copy(update={"session_id": session}))

    kept, changed = told("我一直坚持纯素", 0.892, True, "s1"), told("我改吃素食了", 0.892, False, "s2")
    lunch, other = told("我昨天午饭吃了牛肉面", 0.889, False, "s3"), told("我对海鲜过敏", 0.857, False, "s1")
    vectors = {"我一直坚持纯素": [1.0, 0.0, 0.0], "我改吃素食了": [0.92, 0.39, 0.0],
               "我昨天午饭吃了牛肉面": [0.0, 0.6, 0.8], "我对海鲜过敏": [0.0, 0.8, 0.6]}
    assert tied_restatements([kept, changed, lunch, other], vectors, RankingConfig()) == {"我改吃素食了"}
    # the same conversation: the later turn goes on about it, no restatement; nothing on topic: nothing to join
    same = replace(changed, memory=changed.memory.model_copy(update={"session_id": "s1"}))
    assert tied_restatements([kept, same, lunch, other], vectors, RankingConfig()) == set()
    off = replace(kept, breakdown=replace(kept.breakdown, on_topic=False))
    assert tied_restatements([off, changed, lunch, other], vectors, RankingConfig()) == set()
    # not as near the question as the nearest of all (0.02 below): not joined, whatever its vector
    far = replace(changed, breakdown=replace(changed.breakdown, cosine=0.872))
    assert tied_restatements([kept, far, lunch, other], vectors, RankingConfig()) == set()


def test_the_first_memorys_restatement_is_marked_even_when_it_does_not_stand_out() -> None:
    """bench updates dev en-team-3 / en-manager-2: the answer and an older memory are each other's nearest, told in
    different conversations, but the older is as far from the question as the rest (nothing stands out). The older
    is marked earlier, so a small model is not shown it as current; for a question about now the newer also ranks
    first. For a question naming no time the order stays the question's."""
    from dataclasses import replace

    from memory.recall import question_links

    def in_session(r: Recalled) -> Recalled:
        return replace(r, memory=r.memory.model_copy(update={"session_id": f"s{r.memory.timestamp}"}))

    vectors = {"My team is Liverpool": [1.0, 0.0, 0.0], "I support Juventus": [0.9, 0.43, 0.0],
               "I'm terrible at remembering names": [0.0, 0.6, 0.8],
               "My favourite dessert is tiramisu": [0.0, 0.8, 0.6]}
    # the newer first: marked, order kept
    ranked = [in_session(r) for r in (_told("My team is Liverpool", 0.842, 4), _told("I support Juventus", 0.771, 2),
                                      _told("I'm terrible at remembering names", 0.768, 1),
                                      _told("My favourite dessert is tiramisu", 0.760, 3))]
    implied, changes = question_links(ranked, 5, RankingConfig(), vectors=lambda: vectors)
    out = mark_chains(newest_first(ranked, [], RankingConfig(), implied), changes)
    assert [(r.memory.id, r.chain) for r in out][:2] == [("My team is Liverpool", "now"),
                                                         ("I support Juventus", "earlier")]
    # the older first, no time named: nothing moves, nothing is marked
    older_first = [in_session(r) for r in (_told("My team is Liverpool", 0.842, 2),
                                           _told("I support Juventus", 0.771, 4), *ranked[2:])]
    implied, changes = question_links(older_first, 5, RankingConfig(), vectors=lambda: vectors)
    assert not changes
    assert newest_first(older_first, [], RankingConfig(), implied)[0].memory.id == "My team is Liverpool"
    # the older first, a question about now: the newer ranks first, the older marked earlier
    implied, changes = question_links(older_first, 5, RankingConfig(), present=True, vectors=lambda: vectors)
    out = mark_chains(newest_first(older_first, [], RankingConfig(), implied), changes)
    assert [(r.memory.id, r.chain) for r in out][:2] == [("I support Juventus", "now"),
                                                         ("My team is Liverpool", "earlier")]
    # told in one conversation: the later goes on about the earlier's subject
    one = [replace(r, memory=r.memory.model_copy(update={"session_id": "s"})) for r in ranked]
    assert not question_links(one, 5, RankingConfig(), present=True, vectors=lambda: vectors)[1]
    # about another person: nothing
    sisters = [ranked[0], in_session(_told("My sister supports Juventus", 0.771, 2)), *ranked[2:]]
    theirs = {**vectors, "My sister supports Juventus": vectors["I support Juventus"]}
    assert not question_links(sisters, 5, RankingConfig(), present=True, vectors=lambda: theirs)[1]


def test_memories_of_one_message_follow_each_other_in_the_order_the_user_told_them() -> None:
    """The new-user trial: the extractor listed the move before the call it was told after; the call then "followed"
    the move, ranked as the newer, and the answer check cut "My sister moved to Lisbon." as replaced."""
    from nodes.fact_check import told_in_order

    message = "I talked to my sister yesterday. She moved to Lisbon."
    moved = {"candidate": _cand("My sister moved to Lisbon.", message), "decision": "add", "memory_id": "moved",
             "follows": ["porto"], "follows_named": [], "links": []}
    talked = {"candidate": _cand("I talked to my sister yesterday", message), "decision": "add",
              "memory_id": "talked", "follows": ["porto"], "follows_named": [], "links": []}
    out = told_in_order([moved, talked])  # type: ignore[list-item]
    assert [v["memory_id"] for v in out] == ["moved", "talked"]  # the verdicts keep their own order
    assert out[0]["follows"] == ["porto", "talked"] and out[1]["follows"] == ["porto"]


def test_a_change_linked_by_name_when_written_follows_nothing_else_the_question_recalls() -> None:
    """The new-user trial: "I switched from oolong tea to coffee now" (linked to the tea when written) ranked above
    "I drive a grey Mazda 3." for "What car do I drive now?": a stated change of the same person recalled beside
    it. Its subject is the tea: the question links it to nothing else."""
    from dataclasses import replace

    car = _told("I drive a grey Mazda 3", 0.86, 1)
    coffee = _told("I switched from oolong tea to coffee now", 0.83, 3)  # within the margin, not standing out
    ranked = [car, coffee, _told("I'm allergic to shellfish", 0.825, 2), _told("My star sign is Leo", 0.82, 2)]
    implied, changes = question_links(ranked, 5, RankingConfig(), present=True)
    assert car.memory.id in changes[coffee.memory.id]  # unlinked: the question's guess
    linked = replace(coffee, memory=coffee.memory.model_copy(update={"follows": ["tea"], "follows_named": ["tea"]}))
    ranked = [car, linked, *ranked[2:]]
    implied, changes = question_links(ranked, 5, RankingConfig(), present=True)
    assert not changes
    assert newest_first(ranked, [], RankingConfig(), implied)[0].memory.id == car.memory.id


@pytest.mark.parametrize(("message", "parts"), [
    ("I live in Porto and I work as a marine biologist at the aquarium.",
     ["I live in Porto", "I work as a marine biologist at the aquarium."]),
    ("我住在成都，我在一家儿童医院当护士。", ["我住在成都", "我在一家儿童医院当护士。"]),
])
def test_a_sentence_of_two_subjects_stays_cut_though_one_part_follows_a_memory(message: str,
                                                                               parts: list[str]) -> None:
    """Two new users' trials: "I live in Porto and I work as a marine biologist at the aquarium." after "I live in
    Hangzhou" was stored whole (the residence followed Hangzhou by its word, the job followed nothing, so it was
    taken for a change cut in two), and neither the later move nor the new job could retire it. A part about
    another one-valued subject that says no change stays its own memory; a change cut in two is still put back."""
    from memory.language.links import Link
    from nodes.fact_check import whole_changes

    cands = [_cand(p, message) for p in parts]
    links = [[Link(True, "the same 'live'", named=True)], [Link(False, "no entity in common")]]
    assert [c["text"] for c in whole_changes(cands, links, max_tokens=200, encoding="cl100k_base")] == parts
    change = "I'm not at the bakery any more, I work as a welder now."
    cands = [_cand("I'm not at the bakery any more", change), _cand("I work as a welder now", change)]
    links = [[Link(True, "the same 'bakery'", named=True)], [Link(False, "no entity in common")]]
    (whole,) = whole_changes(cands, links, max_tokens=200, encoding="cl100k_base")
    assert whole["text"] == change


def test_a_links_reason_names_the_word_as_written() -> None:
    """A new user's trial: `palace memories history` showed "[the same 'ine']" for Ines (the stem)."""
    from memory.language.links import LinkConfig, link

    found = link("Ines quit flying, she teaches at a school now.", "My sister Ines is a pilot in Lisbon.", 0.9,
                 LinkConfig(near_cosine=0.95, near_cosine_zh=0.97, word_cosine=0.9, entity_cosine=0.8))
    assert found.follows and "'ines'" in found.why, found


@pytest.mark.parametrize(("text", "change"), [
    ("On weekends I go bouldering, been doing it for 6 years now", False),
    ("I have played the oboe for two years now.", False), ("I live in Oslo now.", True),
    ("I now work at Google.", True), ("I've been vegan for a few years now, and I live in Oslo now.", True),
])
def test_now_closing_how_long_a_state_lasted_is_no_change(text: str, change: bool) -> None:
    """A second new user's trial: "On weekends I go bouldering, been doing it for 6 years now" was taken for a stated
    change and followed the job memory (nearest), lifted above it in recall and marking it earlier."""
    from memory.language.change import says_change

    assert says_change(text) is change


@given(zh=st.sampled_from(["英格丽", "安娜", "玛丽亚", "卡洛斯"]),
       en=st.from_regex(r"[A-Z][aeiou][bdklmnrstv]{2}[aeiou]", fullmatch=True),
       kin=st.sampled_from([("sister", "妹妹"), ("brother", "哥哥"), ("wife", "妻子")]),
       job=st.sampled_from(["滑雪教练", "厨师", "飞行员"]))
def test_a_name_the_memories_give_a_kinship_word_is_that_person_in_either_language(zh: str, en: str,
                                                                                 kin: tuple[str, str],
                                                                                 job: str) -> None:
    """A third new user's trial: "英格丽不当放射科医生了，她现在是滑雪教练。" was read as the user's job ("self:work")
    and never recalled for "What does my sister do for work now?". The memories say who 英格丽 is ("我妹妹英格丽有两个
    孩子", "My sister Ingrid lives in Tromsø"): her job is the sister's, and not the user's."""
    from memory.language.slots import aliases, asked_slots, holds

    memories = [f"My {kin[0]} {en} lives in Tromsø and works as a radiologist.", f"我{kin[1]}{zh}有两个孩子。",
                "I'm Maren, I live in Porto."]
    change = f"{zh}不当放射科医生了，现在是{job}。"
    alias = aliases(memories)
    assert alias == {en.lower(): kin[0], zh: kin[0], spelled(zh): kin[0]}  # and its pinyin
    assert holds(change, asked_slots(f"What does my {kin[0]} do for work now?"), alias)
    assert holds(change, asked_slots(f"我{kin[1]}现在做什么工作？"), alias)
    assert not holds(change, asked_slots("我现在做什么工作？"), alias)
    assert not holds(change, asked_slots("What do I do for work?"))


@given(en=st.from_regex(r"[A-Z][aeiou][bdklmnrstv]{2}[aeiou]?", fullmatch=True),
       kin=st.sampled_from([("friend", "朋友"), ("brother", "哥哥"), ("colleague", "同事"), ("neighbour", "邻居")]),
       told_in=st.sampled_from(["en", "zh"]),
       asked=st.sampled_from([("{n}现在住在哪里？", "residence"), ("Where does {n} live now?", "residence"),
                              ("{n}在哪里工作？", "work"), ("Where does {n} work?", "work")]))
def test_a_question_about_a_person_by_name_asks_that_person_not_the_user(en: str, kin: tuple[str, str],
                                                                        told_in: str,
                                                                        asked: tuple[str, str]) -> None:
    """A fourth new user's trial: "Karim现在住在哪里？" asked "self:residence" (only a kinship word named a person),
    so the slot ranking put the user's home first. A question that names a person and not the user asks that
    person's slot, and the memories' kinship word for the name is that person in either language."""
    from memory.language.slots import aliases, asked_name, asked_slots, holds

    question, slot = asked[0].format(n=en), asked[1]
    told = (f"My {kin[0]} {en} lives in Vancouver and works at a bank." if told_in == "en" else
            f"我{kin[1]}{en}住在温哥华，在一家银行工作。")
    alias = aliases([told, "I live in Porto."])
    assert alias == {en.lower(): kin[0]}
    assert asked_name(question) == en.lower()
    assert asked_slots(question) == {f"{en.lower()}:{slot}"}
    assert asked_slots(question, alias) == {f"{kin[0]}:{slot}"}
    assert holds(told, asked_slots(question, alias), alias)
    assert not holds("I live in Porto and work at a school.", asked_slots(question, alias), alias)
    for own in (f"{en} moved to Oslo and works at a school.", f"{en}搬到奥斯陆了，在学校工作。"):
        assert holds(own, asked_slots(question, alias), alias)  # opening with the name: that person's
        assert holds(own, asked_slots(question))
        assert not holds(own, asked_slots("Where do I live and work?"))
    for users in ("Does {n} know where I live?", "{n}知道我住在哪里吗？"):  # about the user
        assert asked_name(users.format(n=en)) is None


@pytest.mark.parametrize("name", ["英格丽", "安娜", "玛丽亚", "卡洛斯"])
def test_a_change_of_a_named_persons_job_retires_no_other_fact_of_theirs(name: str) -> None:
    """The replay of a third new user's trial: with a Chinese opening name read as a holder, "英格丽不当放射科医生了，
    她现在是滑雪教练。" superseded "我妹妹英格丽有两个孩子。" (a fact of hers of another kind). holders reads no
    Chinese opening name; the aliases act where both memories say whom they are about."""
    from memory.language.links import holders, same_holder
    from memory.language.slots import aliases

    change = f"{name}不当放射科医生了，她现在是滑雪教练。"
    assert holders(change) == frozenset()
    alias = aliases(["My sister Ingrid works as a radiologist.", f"我妹妹{name}有两个孩子。"])
    assert alias == {"ingrid": "sister", name: "sister", spelled(name): "sister"}  # and its pinyin
    assert same_holder("My sister Ingrid works as a radiologist.", f"我妹妹{name}有两个孩子。", known=True)


_KIN = [("sister", "妹妹"), ("brother", "哥哥"), ("wife", "妻子"), ("mother", "妈妈"), ("friend", "朋友"),
        ("daughter", "女儿")]
_NAMES = [("Ingrid", "英格丽"), ("Anna", "安娜"), ("Maria", "玛丽亚"), ("Sofia", "索菲亚"), ("Olaf", "奥拉夫"),
          ("Emma", "艾玛"), ("Wei", "张伟"), ("Na", "李娜")]
_JOBS = [("a radiologist", "放射科医生", "滑雪教练", "a ski instructor"), ("a pilot", "飞行员", "厨师", "a chef"),
         ("a lawyer", "律师", "记者", "a journalist"), ("a nurse", "护士", "摄影师", "a photographer")]


# never used to choose LinkConfig.person_slot_cosine_across (the lists above were): relatives, names (诺拉 and 莉娜
# are names jieba does not tag) and jobs of their own
_HELD_OUT = ([("husband", "丈夫"), ("son", "儿子"), ("colleague", "同事"), ("grandmother", "奶奶")],
             [("Nora", "诺拉"), ("Lena", "莉娜"), ("Carlos", "卡洛斯"), ("Min", "赵敏")],
             [("a teacher", "老师", "程序员", "a programmer"), ("an accountant", "会计", "设计师", "a designer"),
              ("a baker", "面包师", "司机", "a driver")])


def _kin_cases(seed: int, n: int, held_out: bool = False
               ) -> list[tuple[tuple[str, str], tuple[str, str], tuple[str, str, str, str], bool]]:
    import random

    rng = random.Random(seed)
    kins, names, jobs = _HELD_OUT if held_out else (_KIN, _NAMES, _JOBS)
    return [(rng.choice(kins), rng.choice(names), rng.choice(jobs), rng.random() < 0.5) for _ in range(n)]


@pytest.mark.parametrize(("kin", "name", "job", "zh_first"), _kin_cases(25, 16) + _kin_cases(26, 16, held_out=True))
def test_a_change_of_a_named_persons_job_links_to_their_job_in_the_other_language(
        kin: tuple[str, str], name: tuple[str, str], job: tuple[str, str, str, str], zh_first: bool, e5: Any) -> None:
    """A third new user's trial: "英格丽不当放射科医生了，她现在是滑雪教练。" followed nothing ("My sister Ingrid lives
    in Tromsø and works as a radiologist." is in English: no word in common, far apart in e5) and recall kept the
    radiologist first for "What does my sister do for work now?". The user's memories say who the name is
    (``slots.aliases``): her job is the sister's job, so the change follows that memory, in either language
    direction. It retires nothing (that memory also says where she lives), and it does not follow another fact of
    hers ("我妹妹英格丽有两个孩子") that shares only her name."""
    from memory.language.gates import gates_for, states_change
    from memory.language.links import links_to
    from memory.language.slots import aliases

    (kin_en, kin_zh), (en, zh), (job_en, job_zh, new_zh, new_en) = kin, name, job
    if zh_first:
        memories = [f"我{kin_zh}{zh}住在特罗姆瑟，是{job_zh}。", f"My {kin_en} {en} has two kids."]
        change = f"{en} quit being {job_en.split(' ', 1)[1]} and now works as {new_en}."
    else:
        memories = [f"My {kin_en} {en} lives in Tromsø and works as {job_en}.", f"我{kin_zh}{zh}有两个孩子。"]
        change = f"{zh}不当{job_zh}了，她现在是{new_zh}。"
    vectors = e5.embed_documents([change, *memories])
    cosines = [sum(p * q for p, q in zip(vectors[0], v, strict=True)) for v in vectors[1:]]
    alias = aliases([*memories, change])
    found = links_to(change, list(zip(memories, cosines, strict=True)), links_for("e5"), alias)
    assert found[0].follows and not found[0].weak, (found[0].why, cosines)
    assert not found[1].follows, found[1].why
    assert not states_change(change, memories[0], cosines[0], gates_for("e5"), linked=found[0].named)


@given(st.from_regex(r"[A-Z][aeiou][bdklmnrst][aeiou][bdklmnrst]", fullmatch=True),
       st.from_regex(r"[A-Z][aeiou][bdklmnrst]{2}[aeiou]", fullmatch=True),
       st.sampled_from(["What car did I have before the {new}?", "What did I drive before the {new}?",
                        "Which bike did I ride prior to the {new}?"]))
def test_what_came_before_a_named_thing_ranks_above_it(old: str, new: str, question: str) -> None:
    """A fourth new user's trial: "What car did I have before the Volkswagen?" got the Volkswagen (it names the
    question's thing, so it ranked first). The memory it follows, which does not name it, comes right above it."""
    from memory.recall import before_named

    assume(old.lower() != new.lower())
    change = _recalled(f"I sold the {old} and bought a blue {new}.", 0.9, 0.86, follows=(f"I drive a {old}.",), at=2)
    was = _recalled(f"I drive a {old}.", 0.6, 0.80, followed_by=(change.memory.id,), at=1)
    other = _recalled("I live in Utrecht.", 0.7, 0.82)
    ranked = before_named(question.format(new=new), [change, other, was], 3)
    assert [r.memory.id for r in ranked][:2] == [was.memory.id, change.memory.id]
    # a question that asks no "before", or names nothing the change names, keeps the order
    assert before_named(f"When did I buy the {new}?", [change, other, was], 3) == [change, other, was]
    assert before_named("What did I drive before?", [change, other, was], 3) == [change, other, was]


@pytest.mark.parametrize(("new", "older", "links"), [
    ("我上个月搬到汉堡了，不再住慕尼黑。", "我有一只猫，叫年糕，它三岁了。", False),  # a fifth new user's trial
    ("I play chess now instead.", "I work as a pharmacist in Munich.", False),  # a fifth new user's trial
    ("I switched my subscription to HBO Max.", "I pay for Netflix every month.", True),
    ("我跳槽了，现在在腾讯上班。", "我在阿里巴巴工作。", True),
])
def test_a_stated_change_guesses_no_memory_of_another_kind(new: str, older: str, links: bool) -> None:
    """A stated change that names nothing it replaces follows the nearest older memory of the same person, a guess;
    where the slot table knows what either is about, they must share it: a move did not change the cat."""
    from memory.language.links import links_for, links_to

    found = links_to(new, [(older, 0.85)], links_for("e5"))  # near enough for a guess, not for meaning alone
    assert found[0].follows is links, found


_PET = st.sampled_from([("dog", "狗"), ("cat", "猫"), ("parrot", "鹦鹉"), ("rabbit", "兔子")])
_PET_NAME = st.from_regex(r"[A-Z][aeiou][bdklmnrst][aeiou]", fullmatch=True)


@given(_PET, _PET_NAME, _PET_NAME, st.integers(2, 15), st.integers(20, 70), st.sampled_from(["he", "she", "it"]))
def test_a_things_name_or_age_is_not_the_users(pet: tuple[str, str], name: str, me: str, age: int, mine: int,
                                                pronoun: str) -> None:
    """A probe of this stop: "I have a dog named Rex, he is 4 years old" followed "My name is Lena Weber" (the shared
    word "named") and "I'm 34 years old" followed the dog ("years old"), so recall put the pet first for "What's my
    name?". A name or an age the user's statement gives a thing is no slot of the user's, and the wording of a name
    or an age is no evidence that one statement follows another."""
    from memory.language.slots import asked_slots, held_slots

    assume(name != me)  # a pet named as its owner shares a name: evidence of another kind

    en, zh = pet
    dog = f"I have a {en} named {name}, {pronoun} is {age} years old"
    for text in (dog, f"My {en} {name} is {age} years old.", f"我养了一只{zh}叫{name}，它{age}岁了。"):
        assert not held_slots(text) & {"self:name", "self:age"}, text
    for text, slot in ((f"My name is {me} Weber.", "self:name"), (f"我叫{me}。", "self:name"),
                       (f"I'm {mine} years old.", "self:age"), (f"我今年{mine}岁。", "self:age")):
        assert slot in held_slots(text), text
    for question in (f"What's my {en} called?", f"How old is my {en}?", f"我的{zh}叫什么？", f"我的{zh}几岁了？"):
        assert not asked_slots(question) & {"self:name", "self:age"}, question
    assert asked_slots("What's my name?") == {"self:name"} and asked_slots("我几岁了？") == {"self:age"}
    config = links_for("e5")
    assert not link(dog, f"My name is {me} Weber", 0.84, config).follows
    assert not link(f"I'm {mine} years old", dog, 0.86, config).follows


_ACROSS = {"hobby": ([("climbing", "攀岩"), ("the cello", "大提琴"), ("chess", "象棋"), ("swimming", "游泳"),
                      ("yoga", "瑜伽"), ("tennis", "网球"), ("painting", "画画"), ("the piano", "钢琴")],
                     [("我周末喜欢{zh}。", "I gave up {en}, I do something else now."),
                      ("I love {en} on weekends.", "我不再{zh}了。")]),
           "car": ([("Skoda", "斯柯达"), ("Tesla", "特斯拉"), ("Volvo", "沃尔沃"), ("Toyota", "丰田"),
                    ("Honda", "本田"), ("BMW", "宝马")],
                   [("我开一辆{zh}。", "I sold the {en} last week."), ("I drive a {en}.", "我把{zh}卖了。")])}


def test_a_stated_change_follows_what_it_names_in_the_other_language(e5: Any) -> None:
    """A fifth new user's trial: "I gave up climbing, I play chess now instead" guessed "I'm Lena" (nearest in
    meaning) and never "我周末喜欢攀岩", whose words it cannot share. A stated change that names nothing in common
    with any memory now follows the one that names its thing in the other language, by e5 word by word (nearest of
    those at NAME_COSINE), weakly: it orders recall, never retires. Over the generated hobbies and cars below, each
    change among its thing and three others of its kind, with four memories of other kinds: 21 of 28 right (8 with
    the nearest-in-meaning guess alone); on drinks and pets, not looked at before it was built, 8 of 22 (6)."""
    from memory.embeddings import restates

    judge, config, fillers = restates(e5), links_for("e5"), ["I work as a nurse in Oslo.", "我有一只猫。",
                                                              "My sister lives in Lyon.", "我喜欢喝茶。"]
    assert judge is not None
    right = across_wrong = cases = 0
    for items, forms in _ACROSS.values():
        for old_form, new_form in forms:
            for i, (en, zh) in enumerate(items):
                others = [items[(i + k) % len(items)] for k in (1, 2, 3)]
                new = new_form.format(en=en, zh=zh)
                olds = [old_form.format(en=e, zh=z) for e, z in [items[i], *others]] + fillers
                vectors = e5.embed_documents([new, *olds])
                near = sorted(((o, sum(a * b for a, b in zip(vectors[0], v, strict=True)))
                               for o, v in zip(olds, vectors[1:], strict=True)), key=lambda x: -x[1])
                found = links_to(new, near, config, None, judge)
                linked = [t for (t, _), k in zip(near, found, strict=True) if k.follows]
                cases += 1
                right += linked == [old_form.format(en=en, zh=zh)]
                across_wrong += any("other language" in k.why for (t, _), k in zip(near, found, strict=True)
                                    if k.follows and t != old_form.format(en=en, zh=zh))
                assert all(k.weak for k in found if "other language" in k.why)
    assert cases == 28 and right >= 19 and across_wrong <= 2, (right, across_wrong)
    # a name that sounds like a place is no thing the move names: "Mara" and 马尔默 (e5 0.86+)
    move = "我上个月搬到了马尔默，现在住在那里。"
    found = links_to(move, [("My name is Mara Lindqvist.", 0.79)], config, None, judge)
    assert not found[0].follows, found


@given(st.sampled_from(["now", "today", "this year", "last month"]),
       st.sampled_from(["Erik quit his job, he's a chef {w}", "My sister moved to Lyon {w}"]))
def test_a_word_of_time_is_no_evidence_of_the_same_subject(when: str, fact: str) -> None:
    """A sixth new user's trial: "bye for now" followed "Erik quit his software job, he's a chef in a restaurant now"
    by the word "now", a word no other memory near it held. A word that says only when or how much is no entity."""
    config = links_for("e5")
    old = fact.format(w=when)
    assert not link(f"I feel tired {when}", old, 0.85, config).follows
    assert not link("我现在很累", "我现在住在上海", 0.88, config).follows


@given(st.sampled_from([("安娜", "Anna"), ("莉娜", "Lina"), ("玛雅", "Maya"), ("汉娜", "Hanna")]),
       st.sampled_from([("姐姐", "sister"), ("妹妹", "sister"), ("朋友", "friend")]),
       st.sampled_from([("护士", "quit nursing, she's a software developer now"),
                        ("老师", "stopped teaching, she works at a bank now")]))
def test_a_relatives_name_in_pinyin_is_theirs(name: tuple[str, str], kin: tuple[str, str],
                                              job: tuple[str, str]) -> None:
    """A seventh new user's trial: "Anna quit nursing - she's a software developer now." never followed
    "我有一个姐姐叫安娜，她是一名护士。" (a name in Latin letters and in characters), and the sister stayed a nurse. A
    Chinese name the memories give a kinship word is that person in its pinyin too, so the change holds the same
    person's work and follows it."""
    (zh, en), (zh_kin, en_kin), (old_job, change) = name, kin, job
    old, new = f"我有一个{zh_kin}叫{zh}，她是一名{old_job}。", f"{en} {change}."
    alias = aliases([old, new])
    assert alias[en.lower()] == en_kin
    assert f"{en_kin}:work" in slots_as(new, alias) & slots_as(old, alias)
    assert link(new, old, 0.79, links_for("e5"), alias=alias).follows
