"""Memories that stand alone (DESIGN.md "Memories over time"): pure logic, no model.

A memory is read months later, without the message it came from, so it must say whose fact it is. A clause that
opens with a conjunction ("and bought a Tesla Model 3") or with a pronoun nothing in it resolves ("he joined
Microsoft last month", "她毕业了") is a fragment. :func:`standalone` turns a fragment back into a statement: the
whole sentence of the user's message it came from (a sentence that reports a change, "I sold the Civic and bought
a Tesla", stays one memory), with a leading pronoun resolved to the person the message or the session's earlier
turns name ("她毕业了" after "我女儿在北京读大学" is "我女儿毕业了"). Conjunctions and pronouns are closed
classes of the two languages, not subjects: nothing here lists what memories are about.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory.language.links import holders
from memory.language.slots import PERSON_EN as _PERSON_EN
from memory.language.slots import PERSON_ZH as _PERSON_ZH

_CONJUNCTION = re.compile(r"^\W*(?:and|but|or|so|then|also|plus|yet|although|though|because)\b"
                          r"|^\W*(?:而且|并且|然后|但是|可是|不过|所以|因为|还有|以及|并|但|还|也|又|和)",
                          re.IGNORECASE)
_PRONOUN_EN = re.compile(r"^\W*(he|she|they|him|her|them|his|their|it|its)\b", re.IGNORECASE)
_PRONOUN_ZH = re.compile(r"^\W*(他们|她们|它们|他|她|它)(的)?")
# A phrase that opens with a preposition ("On the payments team", "在字节跳动上班") stands alone only when it says
# whom it is about ("In May I moved to Berlin"): else it is the tail of a sentence.
_PREPOSITION = re.compile(r"^\W*(?:(?i:on|in|at|with|for|from|to|by|since|during|after|before|as|about|of|into)\b"
                          r"|在|从|自从|对于|关于|于)")
# Who a sentence is about, when it names a person: "My brother Tom", "Tom", "my sister", "我女儿", "我妹妹".
_KIN_EN = "|".join(_PERSON_EN)
_PERSON_PHRASE_EN = re.compile(r"^\W*((?i:my|our)\s+(?:\w+\s+)?(?i:" + _KIN_EN + r")s?(?:\s+[A-Z][a-z]+)?"
                               r"|[A-Z][a-z]+(?=\s+(?:is|was|has|had|works?|worked|lives?|lived|just|now|got|"
                               r"goes|went|moved|left|joined|started|studies|studied|\w+ed|\w+s)\b))")
_PERSON_PHRASE_ZH = re.compile(r"^\W*((?:我的?|我们的?)(?:" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True))
                               + r")|(?![我你他她它这那])[\u4e00-\u9fff]{2,3}?(?=在|是|的))")
# Someone the user introduces: "I have a sister called Mei", "我有一个女儿叫小雨".
# A relative named anywhere in a sentence ("I talked to my dad yesterday", "周末和我老婆聊了聊"): the person a
# pronoun opening the next sentence is about when the sentence names no other.
_KIN_ANYWHERE_EN = re.compile(r"\b((?i:my|our)\s+(?:\w+\s+)?(?i:" + _KIN_EN + r")(?:\s+[A-Z][a-z]+)?)\b")
_KIN_ANYWHERE_ZH = re.compile(r"((?:我的?|我们的?)(?:" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + r"))")
_INTRODUCED_EN = re.compile(r"\b(?:have|has|had)\s+(?:a|an|one)\s+(?:\w+\s+)?(" + _KIN_EN + r")\b", re.IGNORECASE)
# a capitalised word inside a sentence (not its first, not "I"): a name
_NAME_EN = re.compile(r"(?<!^)(?<![.!?]\s)\b(?!I\b)[A-Z][a-z]+\b")
_INTRODUCED_ZH = re.compile(r"有(?:一个|一位|个|位)?(" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + ")")
# Grammatical gender, a closed class of both languages: of the pronouns, and of the kin words that carry one (a
# name carries none by itself: what the user said about it decides, :func:`gender`).
_PRONOUN_GENDER = {"he": "m", "him": "m", "his": "m", "she": "f", "her": "f", "他": "m", "她": "f"}
_KIN_GENDER_EN = {**dict.fromkeys(("sister", "wife", "mother", "mom", "mum", "girlfriend", "grandmother", "grandma",
                                   "aunt", "fiancee", "niece", "daughter"), "f"),
                  **dict.fromkeys(("brother", "husband", "son", "father", "dad", "boyfriend", "grandfather",
                                   "grandpa", "uncle", "fiancé", "nephew"), "m")}
_KIN_GENDER_ZH = (("女朋友", "f"), ("男朋友", "m"), ("未婚妻", "f"), ("未婚夫", "m"), ("儿子", "m"), ("侄子", "m"),
                  ("外甥女", "f"), ("外甥", "m"), ("先生", "m"), ("太太", "f"))
_KIN_MARK_ZH = {**dict.fromkeys("女妹姐妻婆母妈奶姨姥", "f"), **dict.fromkeys("哥弟夫公爸父爷叔舅", "m")}
_KIN_BEFORE_NAME = re.compile(r"\b(" + _KIN_EN + r")\s+([A-Z][a-z]+)|(" + "|".join(sorted(_PERSON_ZH, key=len,
                              reverse=True)) + r")([\u4e00-\u9fff]{2,3})", re.IGNORECASE)
_GENDERED_PRONOUN = re.compile(r"\b(he|him|his|she|her)\b|(他|她)(?!们)", re.IGNORECASE)


def fragment_reason(text: str) -> str | None:
    """Why ``text`` cannot stand alone as a memory, or None: it opens with a conjunction or an unresolved pronoun."""
    if _CONJUNCTION.match(text):
        return "it opens with a conjunction"
    if _PRONOUN_EN.match(text) or _PRONOUN_ZH.match(text):
        return "it opens with a pronoun"
    if _PREPOSITION.match(text) and not holders(text):
        return "it opens with a preposition and names no one"
    return None


def person_named(sentence: str) -> str | None:
    """The person ``sentence`` is about, as it names them ("My brother Tom", "Tom", "我女儿"), or None."""
    m = _PERSON_PHRASE_EN.match(sentence) or _PERSON_PHRASE_ZH.match(sentence)
    if m:
        return m.group(1)
    intro = _INTRODUCED_EN.search(sentence)
    if intro:
        return f"my {intro.group(1).lower()}"
    intro_zh = _INTRODUCED_ZH.search(sentence)
    if intro_zh:
        return f"我{intro_zh.group(1)}"
    # one relative named anywhere in it, and no one else ("I talked to my dad on the phone yesterday")
    named = {m.group(1) for m in _KIN_ANYWHERE_EN.finditer(sentence)} | {
        m.group(1) for m in _KIN_ANYWHERE_ZH.finditer(sentence)}
    if len(named) == 1 and not _NAME_EN.search(sentence.replace(next(iter(named)), " ")):
        return named.pop()
    if not named and not _NAME_EN.search(sentence):  # one Chinese name by jieba's tag ("昨天和韩梅梅通了电话")
        people = _chinese_names(sentence)
        if len(people) == 1:
            return people.pop()
    return None


def _chinese_names(sentence: str) -> set[str]:
    """The person's name ``sentence`` holds when it holds one (jieba's tagger), else nothing."""
    from memory.language.words import in_lexicon, tagged

    # a person's name is what the lexicon lacks and the tagger takes for one (the lexicon lists "过敏" as nr); the
    # tagger sometimes joins the preposition before it to it ("和小王"): a closed class, cut off
    people = {word for word, flag in tagged(sentence) if flag == "nr"}
    names = {re.sub(r"^[和跟与同给对向被让叫找陪]", "", w) for w in people if not in_lexicon(w)}
    # every word tagged a name counts against the others ("张伟、李娜": two people, no guess)
    return {n for n in names if len(n) > 1} if len(people) == 1 else set()


def _kin_gender(word: str) -> str | None:
    lowered = word.lower()
    if lowered in _KIN_GENDER_EN:
        return _KIN_GENDER_EN[lowered]
    kin = next((g for w, g in _KIN_GENDER_ZH if w in word), None)
    return kin or next((_KIN_MARK_ZH[c] for c in word if c in _KIN_MARK_ZH), None)


def gender(person: str, said: Sequence[str] = ()) -> str | None:
    """"m", "f" or None (unknown) for ``person`` as :func:`person_named` gives it: from its kin word ("my
    brother Tom", "我女儿"), else from what ``said`` says of the name: a kin word before it ("my brother Tom") or
    the one gendered pronoun a sentence naming it goes on with ("Tom left Google, he joined Microsoft")."""
    owner = re.match(r"^(?:(?i:my|our)\s+|我们的?|我的?)", person)
    kin = person[owner.end():] if owner else ""
    found = next((g for g in (_kin_gender(w) for w in kin.split()[:2] or [kin]) if g), None) if kin else None
    if found or owner:
        return found  # "my brother Tom": male; "my friend Odile", "我朋友": not said
    name = person.strip()
    for sentence in said:
        for m in _KIN_BEFORE_NAME.finditer(sentence):
            if (m.group(2) or m.group(4)) == name:
                return _kin_gender(m.group(1) or m.group(3))
        at = sentence.find(name)
        if at >= 0:
            heard = {_PRONOUN_GENDER[(m.group(1) or m.group(2)).lower()]
                     for m in _GENDERED_PRONOUN.finditer(sentence, at + len(name))}
            if len(heard) == 1:
                return heard.pop()
    return None


def opens_with_a_persons_pronoun(text: str) -> bool:
    """Does ``text`` open with a pronoun that stands for a person or people ("He…", "They…", "她…"; not "It…")?"""
    en, zh = _PRONOUN_EN.match(text), _PRONOUN_ZH.match(text)
    return bool((en and en.group(1).lower() not in ("it", "its")) or (zh and zh.group(1) not in ("它", "它们")))


def resolve_pronoun(text: str, earlier: Sequence[str], said: Sequence[str] = ()) -> str | None:
    """``text`` with its leading pronoun replaced by the person the nearest of ``earlier`` (newest last) names
    whose gender agrees with the pronoun's ("she" is never "my brother Tom"; :func:`gender`, from ``earlier`` and
    ``said``), or None when it opens with no pronoun or none of them names such a person."""
    en, zh = _PRONOUN_EN.match(text), _PRONOUN_ZH.match(text)
    if not en and not zh:
        return None
    wanted = _PRONOUN_GENDER.get(en.group(1).lower() if en else zh.group(1) if zh else "")
    evidence = [*earlier, *said]
    person = next((p for p in (person_named(s) for s in reversed(earlier))
                   if p and (wanted is None or gender(p, evidence) in (wanted, None))), None)
    if person is None:
        return None
    if en:
        word = en.group(1).lower()
        if word in ("it", "its", "they", "them", "their"):
            return None  # a thing or a group: a person named earlier is no safe guess
        owner = word in ("his", "her") and not re.match(r"^\W*her\s+(?:is|was|has)\b", text, re.IGNORECASE)
        name = f"{person}'s" if owner else person
        rest = text[en.end():]
    else:
        assert zh is not None
        if zh.group(1) in ("它", "它们"):
            return None
        name = person + (zh.group(2) or "")
        rest = text[zh.end():]
    return name[:1].upper() + name[1:] + rest


def standalone(text: str, message: str, earlier: Sequence[str] = (), known: Sequence[str] = ()) -> str:
    """``text`` (a memory cut from ``message``) as a statement that stands alone: itself when it does; else the
    sentence of the message it came from, or the sentences before it, say who it is about: its pronoun resolved to
    the person the sentence before names ("My cousin Arvo works at Quillon. He joined Vextra." -> "My cousin Arvo
    joined Vextra."), or the two sentences kept as one memory ("I caught up with David. He moved to Chicago.");
    a message that opens with the pronoun is resolved from ``earlier`` (the session's earlier user turns, oldest
    first), or from ``known`` (the user's memories nearest to the message) when exactly one person is named
    there; else the user's sentence is kept as written (a stated fact is never dropped)."""
    from memory.language.text import sentences

    if fragment_reason(text) is None:
        return text
    said = sentences(message)
    source = source_sentence(text, said)
    sentence = said[source] if source is not None else text
    if fragment_reason(sentence) is None:  # "and bought a Tesla" from "I sold the Civic and bought a Tesla."
        return sentence
    if source:  # a sentence before it in the message: it names the person, or the two stay together
        before = said[source - 1]
        stands = standalone(before, " ".join(said[:source]), earlier, known)  # "He left X. He joined Y."
        if not _CONJUNCTION.match(text):
            resolved = resolve_pronoun(text, [stands])
            if resolved is not None and fragment_reason(stands) is None:
                return resolved
        start = message.find(before)
        end = message.find(sentence, start) + len(sentence)
        return message[start:end].strip() if 0 <= start < end else f"{before} {sentence}"
    said_before = [*earlier, *known]
    resolved = resolve_pronoun(sentence, earlier, said_before)
    if resolved is not None:
        return resolved
    # among what the user told, one person the pronoun can be: the only candidate
    naming = [k for k in known if resolve_pronoun(sentence, [k], said_before) is not None]
    if len({person_named(k) for k in naming}) == 1:
        return resolve_pronoun(sentence, naming[:1], said_before) or sentence
    return sentence


def source_sentence(text: str, said: Sequence[str]) -> int | None:
    """The index of the sentence of ``said`` (a message's sentences) that ``text`` was cut from: the one holding
    most of its content words; None for a message without sentences."""
    from memory.language.words import grounding_units

    units = grounding_units(text)
    return max(range(len(said)), key=lambda i: len(units & grounding_units(said[i])), default=None)
