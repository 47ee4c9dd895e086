"""Which older memories a new one *follows* (DESIGN.md "Memories over time"): pure logic, no model, no I/O.

A new memory follows an older memory of the same user when both are about the same subject: the same thing of
the same person, whatever the thing is. The evidence is generic, never a list of subjects:
- **who**: the person each is about (the user, a relative named by a kinship word, a person named by a
  capitalised name). Two memories about different people never follow each other ("I live in Hangzhou" and "My
  sister lives in Beijing" are near in vector space and about different lives);
- **what**: they share an entity (a name, product, place or organisation: a capitalised or alphanumeric word, a
  Latin word in Chinese text, a Chinese word of content characters), or a word that no other memory near the new
  one holds, and are at least ``entity_cosine`` near; or they share a content word and are ``word_cosine`` near;
  or they are ``near_cosine`` near in vector space (``near_cosine_zh`` for Chinese, which e5 puts closer).
Where the slot table of :mod:`memory.language.slots` knows the subject (where the user lives, works...), the same
one-valued slot is extra evidence; nothing depends on it. Thresholds are per embedder, calibrated on the labelled
pairs of ``tests/data/link_pairs.py`` (a dev half tunes them, the test half is only reported). A link says "same
subject", not "replaced": recall uses it to rank the newest memory of a subject first for a question about now and
to mark the older ones as earlier (:mod:`memory.recall`), and only a linked memory may be superseded
(``nodes/fact_check.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from memory.language.change import says_change
from memory.language.facts import time_or_measure
from memory.language.slots import (
    FIRST_PERSON,
    FUNCTION_OPENERS,
    PERSON_CANON,
    PERSON_EN,
    PERSON_ZH,
    THE_USER,
    alias_of,
    opening_name,
    person,
    single_valued,
    slots_as,
    without_name_or_age_wording,
)
from memory.language.words import chinese_nouns, grounding_units, names_something, tagged


@dataclass(frozen=True)
class LinkConfig:
    near_cosine: float  # this near in vector space: the same subject with nothing in common
    near_cosine_zh: float  # the same for Chinese text, which the embedder puts closer together
    word_cosine: float  # with a content word in common ("laptop", "早上"), this near
    entity_cosine: float  # with an entity in common ("Civic", "思域"), this near is enough
    slot_cosine_across: float = 0.78  # the same one-valued slot said in the other language (gates' slot_cosine)
    # ... of a person both name (a kinship word, or a name the user's memories give one): a new value of it in the
    # other language sits lower (e5: 0.75-0.81, median 0.78, for "英格丽不当放射科医生了，她现在是滑雪教练" and "My
    # sister Ingrid … works as a radiologist" over generated names, relatives and jobs; another fact of hers, "My
    # sister Ingrid has two kids", 0.70-0.78: the slot tells them apart, not the cosine)
    person_slot_cosine_across: float = 0.72


# Calibrated on the dev half of tests/data/link_pairs.py (python -m bench links): e5's cosines between statements
# of one user sit in a narrow band (unrelated 0.81-0.94, same subject 0.83-0.95), so a shared entity carries most
# of the evidence and vectors alone link only the nearest pairs.
LINKS_BY_EMBEDDER: dict[str, LinkConfig] = {
    "e5": LinkConfig(near_cosine=0.93, near_cosine_zh=0.95, word_cosine=0.9, entity_cosine=0.8),
}
# For an embedder that is not calibrated: OpenAI-style models spread cosines widely (unrelated ~0.1-0.3).
DEFAULT_LINKS = LinkConfig(near_cosine=0.75, near_cosine_zh=0.75, word_cosine=0.6, entity_cosine=0.4,
                           slot_cosine_across=0.4, person_slot_cosine_across=0.35)


def links_for(embedder: str) -> LinkConfig:
    """The calibrated link thresholds of an embedder (by name: "e5" for the bundled one), else generic ones."""
    key = embedder.lower()
    return next((c for name, c in LINKS_BY_EMBEDDER.items() if name in key), DEFAULT_LINKS)


_OPENERS = FUNCTION_OPENERS
_LATIN = re.compile(r"[A-Za-z][A-Za-z0-9+'-]*|\d[A-Za-z0-9.:+-]*")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
# Characters that carry grammar, not content: a Chinese word made of others names something.
_FUNCTION_ZH = frozenset("我你他她它们的了吗呢吧啊呀着过是在有和把被")  # pronouns and particles: never content


def entities(text: str) -> frozenset[str]:
    """The words of ``text`` that name something (lower-cased): capitalised words that are no function word
    ("Civic", "Google", "Tom"), words with digits ("P40", "7:40"), Latin words in Chinese text ("特斯拉Model 3").
    Chinese has no capitals: a Chinese name ("思域", "小雨") is found as a content word that no other memory near
    the new one holds (:func:`link`)."""
    cjk = bool(_CJK_RUN.search(text))
    out: set[str] = set()
    for m in _LATIN.finditer(text):
        word = m.group(0).rstrip(".:'-")
        low = word.lower()
        if not word or low in _OPENERS:
            continue
        if cjk or word[0].isupper() or any(c.isdigit() or c.isupper() for c in word):
            out.add(low)
    return frozenset(out)


def named_things(text: str) -> frozenset[str]:
    """What ``text`` names, lower-cased: its :func:`entities` and the nouns of its Chinese
    (:func:`memory.language.words.chinese_nouns`: "咖啡", "腾讯")."""
    return entities(text) | chinese_nouns(text)


_OPENS = re.compile(r"(?:^|[.!?:;。！？]\s*)[\"'“(]*([A-Z][a-z'’]+)\b")


def openers(text: str) -> frozenset[str]:
    """The capitalised words of ``text`` that open a sentence (lower-cased): names or not, the capital does not
    tell ("Thanks, Mel!", "Google hired me")."""
    return frozenset(m.group(1).lower() for m in _OPENS.finditer(text))


def as_the_user_says(text: str) -> str:
    """``text`` with "the user" / "用户" (a model's wording of a memory) said as the user says it: "I", "my", "我"."""
    def me(m: re.Match[str]) -> str:
        word = m.group(0)
        return "我" if word == "用户" else "my" if word.lower().endswith("'s") else "I"

    return THE_USER.sub(me, text)


def holders(text: str, alias: Mapping[str, str] | None = None) -> frozenset[str]:
    """Who ``text`` is about: "self", a kinship word (one name across English and Chinese: "sister" for "妹妹"),
    and a capitalised name it opens with ("Tom", for "Tom joined Microsoft"); empty when it does not say (a
    Chinese sentence opening with a name: "小雨毕业了"; read as that name, "英格丽不当放射科医生了" made the change
    retire "我妹妹英格丽有两个孩子", a fact of hers of another kind: the replay of a third new user's trial). "The
    user" and "用户" are the user ("用户居住在杭州。", the 1.5B's wording of "我住在杭州。", linked to nothing as it
    was about nobody). With ``alias`` (:func:`memory.language.slots.aliases`), a name the user's memories give a
    kinship word is that person where a sentence opens with it, in either language: "英格丽不当放射科医生了" is
    about "sister" (and "英格丽") beside "My sister Ingrid works as a radiologist"."""
    kin = alias_of(text, alias)
    if kin is not None:
        return frozenset({kin, opening_name(text) or kin})
    text = as_the_user_says(text)
    who = person(text)
    out: set[str] = set()
    first = _LATIN.match(text.strip())
    named = first is not None and first.group(0)[:1].isupper() and first.group(0).lower() not in _OPENERS
    if who != "self":
        out.add(PERSON_CANON.get(who, who))
        # "我的领导是刘洋", "My sister is called Anna": the name is the same person
        named_as = re.search(re.escape(who) + r"s?(?:'s name)?\s*(?:is|was|是|叫|called|named)\s*"
                             r"([A-Z][a-z]+|[\u4e00-\u9fff]{2,3})", text, re.IGNORECASE)
        if named_as and not named_as.group(1)[0].islower():  # a name, not "is learning" (the match ignores case)
            out.add(named_as.group(1).lower())
        # "My brother Tom works…": the name after the kinship word is the same person
        after = re.search(r"\b" + re.escape(who) + r"s?\s+([A-Z][a-z]+)\b", text, re.IGNORECASE)
        if after and after.group(1)[0].isupper():
            out.add(after.group(1).lower())
    elif named and first is not None and not FIRST_PERSON.search(text):  # "Tom joined…", not "Gluten-free didn't
        out.add(first.group(0).lower())                                   # work for me"
    elif FIRST_PERSON.search(text):
        out.add("self")
    return frozenset(out)


def same_holder(a: str, b: str, *, known: bool = False, alias: Mapping[str, str] | None = None) -> bool:
    """Could ``a`` and ``b`` be about the same person? Unknown on either side (unless ``known``: both must say
    whom they are about), the same person, or one is about someone the other names ("Max passed away" after "I
    have a dog named Max"): yes. ``alias``: a name's kinship word (:func:`memory.language.slots.aliases`):
    "英格丽不当放射科医生了" is about the sister of "My sister Ingrid works as a radiologist"."""
    ha, hb = holders(a, alias), holders(b, alias)
    if alias:
        ha, hb = ha | {alias[h] for h in ha if h in alias}, hb | {alias[h] for h in hb if h in alias}
    if not ha or not hb:
        return not known
    if ha & hb:
        return True
    return _names_one_of(ha - {"self"}, b) or _names_one_of(hb - {"self"}, a)


def _names_one_of(people: frozenset[str], text: str) -> bool:
    """Does ``text`` name one of ``people`` ("Max", "刘洋")? A Chinese name is found as it is written: Chinese has
    no word breaks ("刘洋调去别的部门了" names the manager of "我的领导是刘洋")."""
    return bool(people & (_words(text) | entities(text))) or any(
        _CJK_RUN.fullmatch(p) is not None and p in text for p in people)


def _words(text: str) -> set[str]:
    return {w.lower() for w in _LATIN.findall(text)}


def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that carry content: stemmed Latin words of 3+ letters (not stopwords) and Chinese
    bigrams without a pronoun or particle ("思域", "京都", not "我的")."""
    return frozenset(u for u in grounding_units(text)
                     if not u.isdigit() and not (_CJK_RUN.fullmatch(u) and set(u) & _FUNCTION_ZH))


def shared_words(a: str, b: str) -> frozenset[str]:
    """The content words ``a`` and ``b`` have in common."""
    return content_words(a) & content_words(b)


@dataclass(frozen=True)
class Link:
    follows: bool
    why: str  # "the same 'civic'", "near in meaning (cosine 0.941)", or why not
    named: bool = False  # an entity (or a word no other memory near it holds) in common: the stronger evidence
    weak: bool = False  # only nearness says so (the nearest memory to a stated change): it orders, never retires
    by_name: bool = False  # only the name of the person both are about: yields to a link by what they say


def _as_written(unit: str, text: str) -> str:
    """The word of ``text`` a stemmed ``unit`` came from, lower-cased ("ines" for "ine"), for a reason a user reads."""
    from memory.language.words import grounding_units

    return next((w.lower() for w in _LATIN.findall(text) if w.lower() != unit and unit in grounding_units(w)), unit)


class SameName(Protocol):
    """A judge of names across languages (:class:`memory.embeddings.AcrossLanguages`)."""

    def same_name(self, name: str, names: Sequence[str]) -> bool:
        """Is ``name`` one of ``names``, written in the other language?"""

    def name_cosine(self, name: str, names: Sequence[str]) -> float:
        """How near ``name`` is to the nearest of ``names``."""


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]{2,}")
_THING_TAGS = ("n", "s", "eng", "j", "l")  # jieba: nouns, names, places, abbreviations, set phrases (no times: 周末)


def _things_across(new: str, old: str) -> tuple[list[str], list[str]]:
    """For two statements in different languages, the Latin content words of the English one (as written,
    lower-cased) and the nouns and names of the Chinese one (jieba's parts of speech), less the words of whom they
    are about and of how a name or an age is said: what each names, to compare one by one across the languages."""
    english, chinese = (new, old) if _CJK_RUN.search(old) else (old, new)
    latin = [w.lower() for w in _LATIN_WORD.findall(without_name_or_age_wording(english))]
    people = _person_units(english) | {p.lower() for p in PERSON_EN}
    words = list(dict.fromkeys(w for w in latin if content_words(w) and not content_words(w) & people
                               and w not in FUNCTION_OPENERS))
    nouns = list(dict.fromkeys(w for w, flag in tagged(without_name_or_age_wording(chinese))
                               if flag.startswith(_THING_TAGS) and _CJK_RUN.fullmatch(w) and len(w) >= 2
                               and w not in PERSON_ZH and not set(w) & _FUNCTION_ZH))
    return words, nouns


def named_across(new: str, old: str, judge: SameName) -> tuple[str, float] | None:
    """A thing two statements in different languages both name, each in its own ("climbing" of "I gave up climbing"
    and 攀岩 of "我周末喜欢攀岩"; "Munich" and 慕尼黑), by ``judge`` (e5: the two words' cosine at least
    :data:`memory.embeddings.NAME_COSINE`): the English word and its cosine (the nearest such), or None."""
    if bool(_CJK_RUN.search(new)) == bool(_CJK_RUN.search(old)):
        return None
    words, nouns = _things_across(new, old)
    if not nouns:
        return None
    named = [(w, judge.name_cosine(w, nouns)) for w in words if judge.same_name(w, nouns)]
    return max(named, key=lambda found: found[1], default=None)


def link(new: str, old: str, cosine: float, config: LinkConfig, common: frozenset[str] = frozenset(),
         alias: Mapping[str, str] | None = None) -> Link:
    """Does the memory ``new`` follow the older memory ``old`` (cosine between them: ``cosine``)? ``common``: the
    content words several of the user's memories near ``new`` hold; a word the two share that no other memory
    there has is as good as an entity ("accountant" in "I stopped being an accountant…" after "I work as an
    accountant"), while a common one ("morning", "work") is weaker evidence. ``alias``: names the user's memories
    give a kinship word (:func:`holders`): "英格丽不当放射科医生了" is about the sister's work of "My sister Ingrid …
    works as a radiologist"."""
    if not same_holder(new, old, alias=alias):
        return Link(False, "about different people")
    held_new, held_old = holders(new, alias), holders(old, alias)
    # "My favourite colour…", "…film…"
    if (other := _other_kind(slots_as(new, alias), slots_as(old, alias))) is not None:
        return Link(False, f"about different things ({other})")
    # not the wording of a name or an age, which says nothing of whose ("named" of "I have a dog named Rex" and of
    # "My name is Lena"; "years old" of the dog's age and of the user's)
    words = shared_words(without_name_or_age_wording(new), without_name_or_age_wording(old))
    # a person the two are about ("Tom") or a name most memories near it hold (a speaker's) says who, not what
    # and a capitalised word that opens a sentence in both ("Thanks, Mel!", "That's great") may be no name at all
    names = (entities(new) & entities(old)) - (openers(new) & openers(old)) - holders(new) - holders(old) - common
    # a Chinese word both hold says what they are about when it names something (南京, 自行车), not when it is a
    # verb or an adverb (喜欢 in "我喜欢秋天" and "我最喜欢的颜色是墨绿色"): the lexicon's part of speech decides
    # and a Chinese word that holds the person's kinship word (妈妈, 妈喜 in "我妈妈喜欢…") says who, not what
    # nor a word that says only when or how much ("now" of "bye for now" and of "…he's a chef now", 现在)
    about = {w for w in words - common - _person_units(new) - _person_units(old) if not time_or_measure(w)}
    shared = sorted(names | {w for w in about if names_something(w)})
    if shared and cosine >= config.entity_cosine:
        # the name of the person both are about ("张伟上个月离开腾讯" after "我哥哥张伟在腾讯做产品经理"; 英格, 格丽
        # of 英格丽) links them when nothing else does (:func:`links_to`)
        by_name = set(shared) <= _name_units(held_new | held_old)
        return Link(True, f"the same {', '.join(repr(_as_written(s, new)) for s in shared[:3])}", named=True,
                    by_name=by_name)
    # extra evidence where the slot table knows the subject, for a person both name ("小王住在西安" names nobody
    # the table knows: its slot would be taken for the user's)
    known = held_new & held_old
    same_slots = single_valued(slots_as(new, alias)) & single_valued(slots_as(old, alias)) if known else frozenset()
    # across English and Chinese the embedder puts the same statement far apart (0.81 for one passport)
    across = bool(_CJK_RUN.search(new)) != bool(_CJK_RUN.search(old))
    # a stated change of the slot ("I moved to Shanghai" after "I live in Beijing") is evidence enough at the
    # entity threshold; the slot alone ("... at work") needs the word threshold
    needed = (config.person_slot_cosine_across if across and known - {"self"} else config.slot_cosine_across
              if across else config.entity_cosine if says_change(new) else config.word_cosine)
    if same_slots and cosine >= needed:
        return Link(True, f"the same {sorted(same_slots)[0].replace(':', ' ')}")
    near = config.near_cosine_zh if _CJK_RUN.search(new) and _CJK_RUN.search(old) else config.near_cosine
    if cosine >= near:
        return Link(True, f"near in meaning (cosine {cosine:.3f})")
    return Link(False, f"no entity in common and not near enough (cosine {cosine:.3f} < {near})")


def _name_units(people: frozenset[str]) -> set[str]:
    """The names among ``people`` (a holder's set: :func:`holders`) as :func:`content_words` reads them: the Chinese
    bigrams of each ("英格", "格丽"), a Latin one stemmed ("carlo")."""
    return set(people) | {u for p in people for u in content_words(p)} | {
        p[i:i + 2] for p in people if _CJK_RUN.fullmatch(p) for i in range(len(p) - 1)}


def _person_units(text: str) -> set[str]:
    """The Chinese bigrams of ``text`` that overlap the kinship word of the person it is about ("妈妈" and "妈喜"
    in "我妈妈喜欢养兰花")."""
    who = person(text)
    at = text.find(who) if who != "self" and _CJK_RUN.fullmatch(who) else -1
    if at < 0:
        return set()
    return {text[i:i + 2] for i in range(max(0, at - 1), at + len(who))}


def _other_kind(a: frozenset[str], b: frozenset[str]) -> str | None:
    """Where the slot table knows both: the same kind of slot of one person with another attribute and none in
    common ("self:favourite:color" and "self:favourite:film"), or None. A word they share ("favourite", "喜欢")
    is then the kind's, not the subject's."""
    if a & b:
        return None
    kinds = {k.rsplit(":", 1)[0] for k in a if k.count(":") >= 2} & {k.rsplit(":", 1)[0] for k in b
                                                                       if k.count(":") >= 2}
    return None if not kinds else f"{min(k for k in a if k.rsplit(':', 1)[0] in kinds)} and " \
                                  f"{min(k for k in b if k.rsplit(':', 1)[0] in kinds)}"


def _kinds_agree(new: frozenset[str], old: frozenset[str]) -> bool:
    """May a stated change whose one-valued slots are ``new`` have changed a memory whose are ``old``? Where the
    table knows either, they share one: "我上个月搬到汉堡了，不再住慕尼黑" (where the user lives) changed nothing of "我
    有一只猫，叫年糕" (nearest in meaning), nor "I play chess now instead" the pharmacist's job (a fifth new user's
    trial linked both)."""
    return not (new or old) or bool(new & old)


def common_words(texts: Sequence[str]) -> frozenset[str]:
    """The content words that at least two of ``texts`` hold (each text counted once), and the entities that
    most of them hold (at least half, and three): "Civic" in three memories about the car is what they are
    about; a speaker's name in every line of a conversation is not."""
    names = Counter(name for text in texts for name in entities(text))
    crowded = {name for name, n in names.items() if n >= max(3, len(texts) / 2)}
    seen: set[str] = set()
    common: set[str] = set(crowded)
    for text in texts:
        units = content_words(text)
        common |= units & seen
        seen |= units
    return frozenset(common)


def links_to(new: str, neighbours: Sequence[tuple[str, float]], config: LinkConfig,
             alias: Mapping[str, str] | None = None, across: SameName | None = None) -> list[Link]:
    """How ``new`` relates to each of ``neighbours`` (the user's older memories nearest to it, as (text, cosine
    to ``new``), nearest first).

    A memory that says a change ("I switched my subscription to HBO Max", "我换了尼康Z6") without naming what it
    replaces, and that no evidence links to anything, follows the nearest older memory that says it is about the
    same person (at least ``entity_cosine`` near; "周末和刘婷聊了聊。她搬到长沙了" names nobody ``holders`` knows, and
    guesses nothing): a change replaces something, and what is nearest in meaning is the best
    guess of what. The guess is marked ``weak``: it orders recall (the change ranks first when it is about the
    question nearly as much, :func:`memory.recall.newest_first`) and never retires anything."""
    common = common_words([text for text, _ in neighbours])
    found = [link(new, text, cosine, config, common, alias) for text, cosine in neighbours]
    if any(k.follows and not k.weak and not k.by_name for k in found):
        # a person's name says who, not what: where another memory shares what the new one is about, one that
        # shares only the name holds another of that person's facts ("英格丽不当放射科医生了，她现在是滑雪教练" follows
        # "My sister Ingrid … works as a radiologist" by the slot, not "我妹妹英格丽有两个孩子" by the name)
        found = [Link(False, f"{k.why} only, the name of whom it is about; another memory shares what it says")
                 if k.by_name else k for k in found]
    if says_change(new) and not any(k.follows for k in found):
        kinds = single_valued(slots_as(new, alias))
        fits = [n for n, (text, cosine) in enumerate(neighbours)
                if same_holder(new, text, known=True, alias=alias)
                and _kinds_agree(kinds, single_valued(slots_as(text, alias)))]
        # what it names, named in the other language by the one that names it nearest ("I gave up climbing" and
        # "我周末喜欢攀岩": a fifth new user's trial guessed "I'm Lena" instead), where no word can be shared
        named: list[tuple[float, int, str]] = []
        for n in fits:
            if across is not None and neighbours[n][1] >= config.person_slot_cosine_across and (
                    thing := named_across(new, neighbours[n][0], across)) is not None:
                named.append((thing[1], n, thing[0]))
        if named:
            _, best, word = max(named)
            found[best] = Link(True, f"a stated change, naming {word!r} in the other language", weak=True)
            return found
        nearest = next((n for n in fits if neighbours[n][1] >= config.entity_cosine), None)
        if nearest is not None:
            found[nearest] = Link(True, f"a stated change, nearest to it (cosine {neighbours[nearest][1]:.3f})",
                                  weak=True)
    return found
