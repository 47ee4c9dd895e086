"""Long-term recall for one question: time intent, hybrid Qdrant search for the user, rerank.

1. Time intent. A question naming a window ("what did I say last month", "我端午节在哪家餐厅请的客户") searches
   inside it and is not decayed there; one about the past without a window ("when did I…", "我曾经…") is not
   decayed; one about the present ("where do I live now", "最近") orders the memories on its topic by the seed's
   full decay, so the newest memory about it wins, and puts every other memory after them (an unrelated recent
   memory never beats a relevant one; :mod:`memory.ranking`); any other question gets the gentle default
   (``RankingConfig.decay_floor``). The BM25 half of a present question's search leaves out the words that say
   "now" and, in Chinese, pronouns and particles ("我", "在", "哪里"), which tell nothing about the topic.
2. Search. The ``search_k`` nearest memories by cosine and the ``search_k`` best by BM25 (Qdrant sparse vectors
   with IDF), in one batched request, filtered on the user (and window); superseded and disputed memories are
   never searched unless asked for.
3. Rerank (:func:`memory.ranking.score_hybrid`): fused relevance, support from what was said around it in the
   same conversation, recency by intent, importance and use. Keep ``top_k``.
"""

from __future__ import annotations

import math
import re
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache

import numpy as np

from memory.embeddings import Embedder
from memory.language.answers import asks_what_is_remembered
from memory.language.change import changes_of
from memory.language.slots import aliases, asked_name, asked_slots, holds
from memory.language.temporal import TimeIntent, TimeWindow, parse_time_window, present_words, time_intent
from memory.language.text import language
from memory.long_term import Hit, HybridHit, LongTermMemory, Memory, Status
from memory.long_term import TimeWindow as MsWindow
from memory.ranking import Candidate, RankingConfig, ScoreBreakdown, rank_memories, score_hybrid, score_memory, sort_key


@dataclass(frozen=True)
class Recalled:
    memory: Memory
    breakdown: ScoreBreakdown
    chain: str = ""  # "now" / "earlier": its place among recalled memories about one subject (mark_chains)


@dataclass(frozen=True)
class RecallTimings:
    """Where a recall spent its time, in ms."""

    embed_ms: float = 0.0
    search_ms: float = 0.0
    rerank_ms: float = 0.0


@dataclass(frozen=True)
class RecallResult:
    memories: list[Recalled]
    window: TimeWindow | None  # the time the question is about, if any
    searched: int  # candidates Qdrant returned before reranking
    intent: TimeIntent | None = None
    timings: RecallTimings = field(default_factory=RecallTimings)


def decay_floor_for(window: TimeWindow | None, intent: TimeIntent | None, config: RankingConfig) -> float:
    """How much of a memory's relevance recency may never take: 1.0 no decay, 0.0 the seed's decay."""
    if window is not None or intent == "past":
        return 1.0
    return config.decay_floor  # present questions: the default for what is off topic (on topic: full decay)


def rerank(hits: Sequence[Hit], now_ms: int, *, in_window: bool, top_k: int,
           config: RankingConfig | None = None) -> list[Recalled]:
    """The seed's formula on cosine hits (no decay inside an asked-for window); the benchmarks' baseline."""
    cfg = config or RankingConfig()
    ranked = rank_memories(
        hits,
        lambda h: score_memory(h.cosine, h.memory.timestamp, now_ms, decay_weight=h.memory.decay_weight,
                               ref_count=h.memory.ref_count, config=cfg, apply_decay=not in_window),
        top_k=top_k,
    )
    return [Recalled(memory=h.memory, breakdown=b) for h, b in ranked]


def rerank_hybrid(hits: Sequence[HybridHit], now_ms: int, *, decay_floor: float, top_k: int, present: bool = False,
                  config: RankingConfig | None = None, topic: Sequence[bool] | None = None) -> list[Recalled]:
    """The product's ranking of hybrid candidates; ties go to the higher cosine."""
    candidates = [Candidate(cosine=h.cosine, lexical=h.lexical, session_id=h.memory.session_id,
                            timestamp_ms=h.memory.timestamp, decay_weight=h.memory.decay_weight,
                            ref_count=h.memory.ref_count) for h in hits]
    scored = score_hybrid(candidates, now_ms, decay_floor=decay_floor, present=present, config=config, topic=topic)
    order = sorted(range(len(hits)), key=lambda i: sort_key(scored[i]), reverse=True)
    return [Recalled(memory=hits[i].memory, breakdown=scored[i]) for i in order[: max(0, top_k)]]


# Chinese words that say nothing about a question's topic; the tokenizer's stopwords are English only.
_ZH_FUNCTION_WORDS = re.compile(r"我们|你们|他们|她们|哪里|哪儿|什么|怎么|多少|哪个|哪家|"
                                r"[我你他她它的了吗呢吧啊呀在是有和与都也还就哪谁]")


def lexical_query(question: str, intent: TimeIntent | None) -> str:
    """The text the BM25 half of the search matches: for a present question, without the words that say "now"
    and without Chinese function words (they would make any memory in the first person look on topic)."""
    if intent != "present":
        return question
    stripped = _ZH_FUNCTION_WORDS.sub(" ", present_words().sub(" ", question))
    return stripped if stripped.strip() else question


def with_changes(question: str, hits: Sequence[HybridHit]) -> list[HybridHit]:
    """For a present question: the hits whose memory states a change of what the question asks about ("I moved to
    Shanghai" for "where do I live now") get the best BM25 score among the hits, as if they shared its words."""
    memory_patterns = changes_of(question)
    best = max((h.lexical for h in hits if h.lexical is not None), default=0.0)
    if not memory_patterns or best <= 0:
        return list(hits)
    return [replace(h, lexical=max(best, h.lexical or 0.0))
            if any(p.search(h.memory.text) for p in memory_patterns) else h for h in hits]


def slot_topic(question: str, hits: Sequence[HybridHit]) -> list[bool] | None:
    """Which hits hold the slot the question asks about ("wife:name" for "我妻子叫什么名字？", "self:residence" for
    "where do I live?"), when one of them is in the other language than the question; else None (the scores
    decide). BM25 cannot match across the two languages, and the bundled e5 puts a question closer to unrelated
    memories in its own language than to the answer in the other ("My wife's name is Lin." ranked below
    "我有一个女儿叫小雨" in a helper's trial): the memories that hold the slot come first, in either language, and
    among them the scores, recency and importance decide, as for a question about the present."""
    asked, said_in = asked_slots(question), language(question)
    if not asked or not said_in:
        return None
    # a name the memories give a kinship word is that person in either language ("英格丽不当放射科医生了" holds
    # "sister:work" beside "我妹妹英格丽有两个孩子": a third new user's trial asked "What does my sister do now?")
    alias = aliases([h.memory.text for h in hits]) if any(not k.startswith("self:") for k in asked) else None
    if alias and asked_name(question):  # "Karim现在住在哪里？" beside "My friend Karim…" asks "friend:residence"
        asked = asked_slots(question, alias)
    # the other language's hits first: reading a memory's slots takes ~0.1 ms, every candidate's ~10 ms (issue 26)
    if not any(language(h.memory.text) not in (said_in, "") and holds(h.memory.text, asked, alias) for h in hits):
        return None
    return [holds(h.memory.text, asked, alias) for h in hits]


def _replaced_or_active(hits: Sequence[HybridHit]) -> list[HybridHit]:
    """The active hits and the superseded ones a newer memory followed (not the duplicates merged into another)."""
    return [h for h in hits if h.memory.status == "active" or h.memory.followed_by]


def _followers(ltm: LongTermMemory, user_id: str, ranked: Sequence[Recalled], vector: Sequence[float],
               now_ms: int) -> list[Hit]:
    """The active followers of ``ranked`` that the search did not return, with their cosine to the question (one
    request; none when every follower is among the candidates already)."""
    have = {r.memory.id for r in ranked}
    missing = [f for r in ranked for f in r.memory.followed_by if f not in have]
    return ltm.scored(user_id, missing, vector, recorded_before=now_ms + 1) if missing else []


def stated_changes(ranked: Sequence[Recalled], *, by_slot: bool = False) -> dict[str, frozenset[str]]:
    """The links the question implies among ``ranked`` (the memories recalled for it): a memory that states a
    change ("Change of plans: I'm going to Vietnam instead", "我跳槽到腾讯了") follows the older memories about the
    same person recalled beside it. At write time nothing said what it replaced (no entity in common, and the
    nearest memory in meaning is no guide: e5 puts "我跳槽到腾讯了" nearer "天热的时候我睡不好" than "我在阿里巴巴
    工作"); the question says it: both are what it is about. They order this recall only (within
    ``link_cosine_margin`` of the question, like any link) and are stored nowhere. ``by_slot``: the ranking read
    what the question asks from the memories themselves (:func:`slot_topic`: they hold the slot or not, in either
    language), so a change it found off topic changed something else ("我现在改喝咖啡了" for "where do I live
    now?", where every memory in the other language is about as near the question) and follows nothing, and an
    older memory it found off topic was not what changed ("我妹妹英格丽有两个孩子" for "What does my sister do
    now?")."""
    from memory.language.change import says_change
    from memory.language.links import same_holder

    out: dict[str, frozenset[str]] = {}
    alias = cache(lambda: aliases([m.memory.text for m in ranked]))  # "英格丽" is the sister of "My sister Ingrid"
    for r in ranked:
        if not says_change(r.memory.text) or (by_slot and r.breakdown.on_topic is False):
            continue
        if r.memory.follows_named or r.memory.replaces:
            # linked when it was written to what it names ("I switched from oolong tea to coffee now" after "I drink
            # oolong tea every morning"), or it superseded a memory then ("我不在水族馆工作了，现在在一家报社当数据记者"
            # retired "I work as a marine biologist at the city aquarium"), it has its subject: the question gives it
            # no other (a link by nearness alone is no subject: "我跳槽到腾讯了" keeps taking the question's). New
            # users' trials: it ranked above the car for "What car do I drive now?" and the Kia was cut as replaced;
            # the job change ranked above the move for "Where do I live now?" and was the answer
            continue
        older = frozenset(m.memory.id for m in ranked if m.memory.timestamp < r.memory.timestamp
                          and m.memory.id not in r.memory.follows
                          and not (by_slot and m.breakdown.on_topic is False)  # another of the person's facts
                          and same_holder(r.memory.text, m.memory.text, known=True, alias=alias()))
        if older:
            out[r.memory.id] = older
    return out


def tied_restatements(ranked: Sequence[Recalled], vectors: Mapping[str, Sequence[float]],
                      config: RankingConfig) -> set[str]:
    """For a question about now: the memories off topic by their words ("我改吃素食了" for "我目前在坚持哪种饮食？")
    that are as near the question as the nearest of all (within ``present_cosine_tie``) and are each other's
    nearest memory (:func:`mutually_nearest`, over ``vectors``: the candidates') with one on topic ("我一直坚持纯
    素", which shares 坚持), about the same person and told in another conversation: the same subject said in
    other words. A memory merely as near the question (yesterday's lunch for "where do I live now?") is nobody's
    restatement and stays off topic."""
    from memory.language.links import same_holder

    pairs = mutually_nearest(vectors)
    on = [r for r in ranked if r.breakdown.on_topic]
    return {r.memory.id for r in tied_off_topic(ranked, config)
            if any(_told_again(r, o, pairs) and same_holder(r.memory.text, o.memory.text, known=True) for o in on)}


def tied_off_topic(ranked: Sequence[Recalled], config: RankingConfig) -> list[Recalled]:
    """The memories of a question about now off topic by their words yet as near it as the nearest of all
    (within ``present_cosine_tie``)."""
    best = max((r.breakdown.cosine for r in ranked), default=0.0)
    return [r for r in ranked if not r.breakdown.on_topic and r.breakdown.cosine >= best - config.present_cosine_tie]


def _told_again(a: Recalled, b: Recalled, pairs: set[frozenset[str]]) -> bool:
    """Are ``a`` and ``b`` each other's nearest memory (``pairs``: :func:`mutually_nearest`), told in different
    conversations?"""
    return frozenset((a.memory.id, b.memory.id)) in pairs and a.memory.session_id != b.memory.session_id


def answer_set(ranked: Sequence[Recalled], top_k: int) -> list[Recalled]:
    """The memories among the first ``top_k`` of ``ranked`` that stand out for the question: a cosine nearer the
    first one's than the rest of the candidates' (their median), so what the question is about, not what the
    user also said. Two of them about the same person say the same thing twice or a value that changed, however it
    was phrased ("我的手机是三星Galaxy S23" … "我用OPPO Find X7"); the newer ranks first (:func:`recall`)."""
    if len(ranked) < 3 or ranked[0].breakdown.on_topic is False:
        return []
    background = statistics.median(r.breakdown.cosine for r in ranked[1:])
    cut = (ranked[0].breakdown.cosine + background) / 2
    # where the ranking judged what is on topic (a present question, a slot asked across languages), only that
    out = [r for r in ranked[:top_k] if r.breakdown.cosine > cut and r.breakdown.on_topic is not False]
    return out if len(out) >= 2 else []


def restated(stand_out: Sequence[Recalled], pairs: set[frozenset[str]] | None = None) -> dict[str, frozenset[str]]:
    """Among the memories that stand out for a question (:func:`answer_set`), each one's older ones about the
    same person (both say whom). ``pairs``: the mutually nearest pairs of the question's candidates by their stored
    vectors (:func:`mutually_nearest`); then only those pairs, told in different conversations, count (within
    one, the later turn goes on about the earlier one's subject, and a change said there is a stated change)."""
    from memory.language.links import same_holder

    out: dict[str, frozenset[str]] = {}
    for r in stand_out:
        if r.memory.replaces:  # it superseded a memory when it was written: it has its subject (stated_changes)
            continue
        older = frozenset(m.memory.id for m in stand_out if m.memory.timestamp < r.memory.timestamp
                          and (pairs is None or _told_again(r, m, pairs))
                          and same_holder(r.memory.text, m.memory.text, known=True))
        if older:
            out[r.memory.id] = older
    return out


def mutually_nearest(vectors: Mapping[str, Sequence[float]]) -> set[frozenset[str]]:
    """The pairs of ``vectors`` (by id) each of which is the other's nearest: two memories nearer each other than
    either is to anything else the question found. A value said twice ("我的手机是三星Galaxy S23" … "我用OPPO Find
    X7") is such a pair however differently it was phrased; a turn of a conversation beside the turns around it
    (LoCoMo: one speaker's turns, all about the same person) rarely is."""
    ids = list(vectors)
    if len(ids) < 2:
        return set()
    matrix = np.asarray([vectors[i] for i in ids], dtype=np.float32)
    cosines = matrix @ matrix.T
    np.fill_diagonal(cosines, -np.inf)
    nearest = cosines.argmax(axis=1)
    return {frozenset((ids[a], ids[int(b)])) for a, b in enumerate(nearest) if int(nearest[int(b)]) == a}


def question_links(ranked: Sequence[Recalled], top_k: int, config: RankingConfig, *, by_slot: bool = False,
                   present: bool = False, vectors: Callable[[], Mapping[str, Sequence[float]]] | None = None
                   ) -> tuple[dict[str, dict[str, float]], dict[str, frozenset[str]]]:
    """The links a question implies among its first ``top_k`` memories, for :func:`newest_first` (the older
    memories' ids with the margin each allows, by the newer one's id), and the stated changes among them for
    :func:`mark_chains` (a restatement is marked only where the two are each other's nearest memory, told in different
    conversations; the others order, unmarked). ``by_slot``: as
    for :func:`stated_changes`. For a question about now every stated change counts; for one naming no time only
    those among the memories that stand out for it (:func:`answer_set`), with the older ones that stand out too."""
    changes = stated_changes(ranked[:top_k], by_slot=by_slot)
    stand = answer_set(ranked, top_k)
    if not present:
        # a question naming no time ("What did Caroline research?") links a stated change only to what stands out
        # for it with the change: every turn of a conversation says whom, and "I just started a pottery class"
        # otherwise rose above the older turn the question was about (LoCoMo R@5 68.6 -> 64.0 on its first
        # conversation)
        stand_out = {r.memory.id for r in stand}
        changes = {new: olds & stand_out for new, olds in changes.items() if new in stand_out and olds & stand_out}
    implied = {new: {old: config.link_cosine_margin for old in olds} for new, olds in changes.items()}
    if by_slot:
        # the ranking read from the memories themselves that both hold the slot asked, and one follows the other:
        # the newer is its value now, however far apart e5 puts the two languages from the question ("英格丽不当放射
        # 科医生了，她现在是滑雪教练" at 0.76 and "My sister Ingrid … works as a radiologist" at 0.86 for "What does my
        # sister do for work now?": a third new user's trial, answered with the radiologist)
        on = {r.memory.id for r in ranked[:top_k] if r.breakdown.on_topic}
        for r in ranked[:top_k]:
            if r.memory.id in on:
                for old in on.intersection(r.memory.follows):
                    implied.setdefault(r.memory.id, {})[old] = math.inf
    # a restatement orders for a question about now ("who is my manager now?") and, for a question naming no
    # time, where the two are each other's nearest memory (``vectors`` gives the candidates', asked only when
    # something stands out), unless configured for every question (RankingConfig.restatements)
    pairs = cache(lambda: mutually_nearest(vectors())) if vectors is not None else None
    told_again = restated(stand, pairs()) if pairs is not None and stand else {}
    found = restated(stand) if config.restatements or present else told_again
    for new, olds in found.items():
        implied.setdefault(new, {}).update({old: math.inf for old in olds})
    # a value said again in other words, each the other's nearest memory and told in another conversation, replaced
    # the older one: it is marked earlier like a stated change (a small model answers from what it is shown as
    # current: "你床头放着一本书，名为《平凡的世界》" when recall put 《围城》 first)
    for new, olds in told_again.items():
        changes[new] = changes.get(new, frozenset()) | olds
    # the answer (the first memory) and another of the first ``top_k`` said the same thing in other words, each
    # the other's nearest memory, in different conversations: whether or not both stand out ("My team is
    # Liverpool" at 0.842, "I support Juventus" at 0.771 among memories at 0.76), the older is marked earlier; for a
    # question about now the newer also ranks first ("I report to Mark Evans" above the newer "My manager is Sarah
    # Kim"). For a question naming no time the order stays the question's (a conversation's turns are each other's
    # nearest too: LoCoMo), only the mark is added when the first is the newer.
    first = ranked[0] if ranked else None
    if pairs is not None and first is not None and any(r.memory.session_id != first.memory.session_id
                                                       for r in ranked[1:top_k]):
        for later, olds in restated(ranked[:top_k], pairs()).items():
            for earlier in olds:
                if first.memory.id not in (later, earlier):
                    continue
                if present or later == first.memory.id:
                    changes[later] = changes.get(later, frozenset()) | {earlier}
                if present:
                    implied.setdefault(later, {})[earlier] = math.inf
    return implied, changes


_BEFORE = re.compile(r"\b(?:before|prior to|earlier than|until)\b|之前|以前", re.IGNORECASE)


def before_named(question: str, ranked: Sequence[Recalled], top_k: int) -> list[Recalled]:
    """For a question about what was before a thing it names ("What car did I have before the Volkswagen?",
    "在大众之前我开的是什么车？"): a memory among the first ``top_k`` that names the thing and follows older memories
    (its link, written when it was stored) has those that do not name it right above it: they are what came before
    (a fourth new user's trial answered the Volkswagen itself, ranked first for its name)."""
    from memory.language.links import named_things, openers

    if not _BEFORE.search(question):
        return list(ranked)
    named = named_things(question) - openers(question)
    if not named:
        return list(ranked)
    out = list(ranked)
    for r in ranked[:top_k]:
        if not named_things(r.memory.text) & named:
            continue
        place = {o.memory.id: i for i, o in enumerate(out)}
        older = [o for o in out if o.memory.id in r.memory.follows and not named_things(o.memory.text) & named]
        if all(place[o.memory.id] < place[r.memory.id] for o in older):  # none, or all above it already
            continue
        out = [o for o in out if o not in older]
        at = next(i for i, o in enumerate(out) if o.memory.id == r.memory.id)
        out[at:at] = [replace(o, breakdown=_above(o.breakdown, r.breakdown)) for o in older]
    return out


def newest_first(ranked: Sequence[Recalled], fetched: Sequence[Hit], config: RankingConfig,
                 implied: dict[str, dict[str, float]] | None = None) -> list[Recalled]:
    """``ranked`` with each memory's followers (the newer memories about its subject, :mod:`memory.language.links`)
    right above it: a follower takes the place of the memory it follows when it is about the question nearly as much (a
    cosine at most ``link_cosine_margin`` below, ``link_named_margin`` when it names the same entity; a wrong link
    then cannot put an unrelated memory first). A chain keeps the place of its best-ranked member, newest first;
    followers of one memory keep their own order. ``fetched``: followers the search did not return, with their
    cosine, placed the same way or not at all. Use and importance never lift a memory above one that follows it.
    ``implied``: links this recall adds, by the newer memory's id: the older memories' ids with the margin each
    allows (:func:`stated_changes`, :func:`answer_set`)."""
    implied = implied or {}
    items = list(ranked)
    known = {r.memory.id: r for r in items}
    for h in fetched:
        before = next((r for r in ranked if h.memory.id in r.memory.followed_by), None)
        if h.memory.id not in known and before is not None:
            known[h.memory.id] = Recalled(memory=h.memory, breakdown=replace(
                before.breakdown, cosine=h.cosine, lexical=None, context=None, score=0.0, relevance=0.0,
                on_topic=None if before.breakdown.on_topic is None else False))
            items.append(known[h.memory.id])
    place: dict[str, tuple[tuple[bool, float, float], int]] = {}  # id -> (the chain's key, depth in the chain)
    for r in sorted(items, key=lambda r: r.memory.timestamp):  # the older first: a follower is newer
        key, depth = sort_key(r.breakdown), 0
        added = implied.get(r.memory.id, {})
        for old_id in (*r.memory.follows, *sorted(added)):
            old = known.get(old_id)
            if old is None or old_id not in place:
                continue
            margin = added[old_id] if old_id in added else _margin(r.memory, old.memory, config)
            if r.breakdown.cosine >= old.breakdown.cosine - margin:
                key, depth = max(key, place[old_id][0]), max(depth, place[old_id][1] + 1)
        place[r.memory.id] = (key, depth)
    fetched_ids = {h.memory.id for h in fetched}
    kept = [r for r in items if r.memory.id not in fetched_ids or place[r.memory.id][1] > 0]
    out = sorted(kept, key=lambda r: (*place[r.memory.id], sort_key(r.breakdown)), reverse=True)
    for i in range(len(out) - 2, -1, -1):  # scores agree with the order
        if sort_key(out[i].breakdown) < sort_key(out[i + 1].breakdown):
            out[i] = replace(out[i], breakdown=_above(out[i].breakdown, out[i + 1].breakdown))
    return out


def _margin(new: Memory, old: Memory, config: RankingConfig) -> float:
    """How much less about the question a follower may be and still rank above ``old``: more when it names what
    ``old`` is about (a shared entity: "李医生春天退休了，所以我改找王医生" after "我的家庭医生是李医生"); any amount
    when it replaced ``old`` (a stated change or an update verdict retired it)."""
    if old.status == "superseded" and old.superseded_by == new.id:
        return math.inf
    return config.link_named_margin if old.id in new.follows_named else config.link_cosine_margin


def without_stale(ranked: Sequence[Recalled]) -> list[Recalled]:
    """``ranked`` without the superseded memories that no follower ranks above: for a question about now, a
    replaced memory is context for its successor, never an answer of its own."""
    above: set[str] = set()
    out = []
    for r in ranked:
        if r.memory.status != "superseded" or any(f in above for f in r.memory.followed_by):
            out.append(r)
        above.add(r.memory.id)
    return out


def _above(new: ScoreBreakdown, old: ScoreBreakdown) -> ScoreBreakdown:
    """``new``'s breakdown ranked right above ``old`` (sort_key order): at least its score and topic."""
    on_topic = old.on_topic if new.on_topic is None or old.on_topic is None else (new.on_topic or old.on_topic)
    return replace(new, score=max(new.score, old.score * (1 + 1e-9) + 1e-12), on_topic=on_topic)


def mark_chains(memories: Sequence[Recalled], implied: dict[str, frozenset[str]] | None = None, *,
                any_rank: bool = False) -> list[Recalled]:
    """Each memory with its place among ``memories`` (best first): "earlier" when a memory that follows it ranks
    above it, "now" when it ranks above a memory it follows (the prompt marks them so). A follower ranked below
    the memory it follows (not about the question as much) marks nothing, unless ``any_rank``: a question about
    the user in general ("你记得我什么？"), which every memory is about as much (a fifth new user's trial got the
    move to Hamburg said back beside the later one to Berlin, ranked below it)."""
    place = {r.memory.id: i for i, r in enumerate(memories)}
    followed: set[str] = set()  # memories with a follower ranked above them
    leads: set[str] = set()  # followers ranked above a memory they follow
    implied = implied or {}
    for r in memories:  # every link is on the newer memory (``followed_by`` is its back-pointer)
        for old in (*r.memory.follows, *implied.get(r.memory.id, ())):
            if old in place and (any_rank or place[r.memory.id] < place[old]):
                followed.add(old)
                leads.add(r.memory.id)
    return [replace(r, chain="earlier" if r.memory.id in followed else "now" if r.memory.id in leads else "")
            for r in memories]


_ABOUT_SAYING = re.compile(r"\b(tell|told|say|said|talk|talked|mention|mentioned|discuss|discussed|chat|chatted)\b"
                           r"|说|聊|告诉|提到|讲", re.IGNORECASE)


def _ms(window: TimeWindow | None) -> MsWindow | None:
    return MsWindow.between(window.start, window.end) if window else None


def recall(ltm: LongTermMemory, embeddings: Embedder, user_id: str, question: str, now: datetime, *,
           search_k: int = 20, top_k: int = 5, config: RankingConfig | None = None,
           time_filter: bool = True, exact_cosine: bool = True) -> RecallResult:
    """The ``top_k`` memories of ``user_id`` for ``question`` at ``now`` (timezone-aware: the user's clock).
    ``time_filter=False``: a time phrase does not restrict the search to its window (the agent's recall for a
    message that only states facts: in "I moved to Shanghai last week", "last week" dates the move, and the
    answer needs where the user lived before). ``exact_cosine=False`` leaves out the follow-up request for the
    scores one search missed (a benchmark ablation)."""
    cfg = config or RankingConfig()
    window = parse_time_window(question, now) if time_filter else None
    intent = time_intent(question)
    t0 = time.perf_counter()
    vector = embeddings.embed_query(question)
    t1 = time.perf_counter()
    now_ms = int(now.timestamp() * 1000)
    # what a newer memory replaced is searched too: a question about the past finds it ("What did I drive
    # before?"); for any other question it brings its follower along (newest_first) and is left out unless that
    # follower ranks above it
    statuses: tuple[Status, ...] = ("active", "superseded")
    hits = _replaced_or_active(ltm.hybrid_search(user_id, vector, lexical_query(question, intent), limit=search_k,
                                                 window=_ms(window), recorded_before=now_ms + 1,
                                                 exact_cosine=exact_cosine, statuses=statuses))
    if window is not None and not hits and not _ABOUT_SAYING.search(question):
        # nothing dated in the window: "周六" may mean every Saturday ("我周六做什么运动"), and a memory told
        # without a time phrase is dated when it was said, not when it happened ("I donated a coat", said in
        # January, for "what did I donate in December?"): rank everything. Not when the question is about what
        # was said then ("What did I tell you last week?"): that nothing was is the answer.
        window = None
        hits = _replaced_or_active(ltm.hybrid_search(user_id, vector, lexical_query(question, intent),
                                                     limit=search_k, recorded_before=now_ms + 1,
                                                     exact_cosine=exact_cosine, statuses=statuses))
    t2 = time.perf_counter()
    present = window is None and intent == "present"
    if present:
        hits = with_changes(question, hits)
    topic = slot_topic(question, hits)
    floor = decay_floor_for(window, intent, cfg)
    ranked = rerank_hybrid(hits, now_ms, decay_floor=floor, top_k=len(hits), present=present, config=cfg,
                           topic=topic)
    # the candidates' stored vectors, fetched once and only when a restatement needs them
    vectors = cache(lambda: ltm.vectors(user_id, [h.memory.id for h in hits]))
    # a question about now whose nearest memory in meaning shares no word with it: is that what an on-topic one says?
    if present and topic is None and tied_off_topic(ranked, cfg) and (
            joined := tied_restatements(ranked, vectors(), cfg)):
        was = {r.memory.id: bool(r.breakdown.on_topic) for r in ranked}
        ranked = rerank_hybrid(hits, now_ms, decay_floor=floor, top_k=len(hits), present=present, config=cfg,
                               topic=[was[h.memory.id] or h.memory.id in joined for h in hits])
    changes: dict[str, frozenset[str]] = {}
    if window is None and intent != "past":  # about now, or no time named: the newest of a subject first
        implied, changes = question_links(ranked, top_k, cfg, by_slot=topic is not None, present=present,
                                          vectors=vectors)
        ranked = without_stale(newest_first(ranked, _followers(ltm, user_id, ranked[:top_k], vector, now_ms), cfg,
                                            implied))
    elif window is None:  # about the past: what came before a thing the question names comes first
        ranked = before_named(question, ranked, top_k)
    memories = mark_chains(ranked[: max(0, top_k)], changes, any_rank=intent != "past" and window is None and
                           asks_what_is_remembered(question))
    t3 = time.perf_counter()
    timings = RecallTimings(embed_ms=(t1 - t0) * 1000, search_ms=(t2 - t1) * 1000, rerank_ms=(t3 - t2) * 1000)
    return RecallResult(memories=memories, window=window, searched=len(hits), intent=intent, timings=timings)
