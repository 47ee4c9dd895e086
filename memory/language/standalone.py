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

from memory.language.slots import PERSON_EN as _PERSON_EN
from memory.language.slots import PERSON_ZH as _PERSON_ZH

_CONJUNCTION = re.compile(r"^\W*(?:and|but|or|so|then|also|plus|yet|although|though|because)\b"
                          r"|^\W*(?:而且|并且|然后|但是|可是|不过|所以|因为|还有|以及|并|但|还|也|又|和)",
                          re.IGNORECASE)
_PRONOUN_EN = re.compile(r"^\W*(he|she|they|him|her|them|his|their|it|its)\b", re.IGNORECASE)
_PRONOUN_ZH = re.compile(r"^\W*(他们|她们|它们|他|她|它)(的)?")
# Who a sentence is about, when it names a person: "My brother Tom", "Tom", "my sister", "我女儿", "我妹妹".
_KIN_EN = "|".join(_PERSON_EN)
_PERSON_PHRASE_EN = re.compile(r"^\W*((?i:my|our)\s+(?:\w+\s+)?(?i:" + _KIN_EN + r")s?(?:\s+[A-Z][a-z]+)?"
                               r"|[A-Z][a-z]+(?=\s+(?:is|was|has|had|works?|worked|lives?|lived|just|now|got|"
                               r"goes|went|moved|left|joined|started|studies|studied|\w+ed|\w+s)\b))")
_PERSON_PHRASE_ZH = re.compile(r"^\W*((?:我的?|我们的?)(?:" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True))
                               + r")|(?![我你他她它这那])[\u4e00-\u9fff]{2,3}?(?=在|是|的))")
# Someone the user introduces: "I have a sister called Mei", "我有一个女儿叫小雨".
_INTRODUCED_EN = re.compile(r"\b(?:have|has|had)\s+(?:a|an|one)\s+(?:\w+\s+)?(" + _KIN_EN + r")\b", re.IGNORECASE)
_INTRODUCED_ZH = re.compile(r"有(?:一个|一位|个|位)?(" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + ")")


def fragment_reason(text: str) -> str | None:
    """Why ``text`` cannot stand alone as a memory, or None: it opens with a conjunction or an unresolved pronoun."""
    if _CONJUNCTION.match(text):
        return "it opens with a conjunction"
    if _PRONOUN_EN.match(text) or _PRONOUN_ZH.match(text):
        return "it opens with a pronoun"
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
    return f"我{intro_zh.group(1)}" if intro_zh else None


def resolve_pronoun(text: str, earlier: Sequence[str]) -> str | None:
    """``text`` with its leading pronoun replaced by the person the nearest of ``earlier`` (newest last) names, or
    None when it opens with no pronoun or none of them names a person."""
    en, zh = _PRONOUN_EN.match(text), _PRONOUN_ZH.match(text)
    if not en and not zh:
        return None
    person = next((p for p in (person_named(s) for s in reversed(earlier)) if p), None)
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
    naming = [k for k in known if person_named(k)]
    one = len({person_named(k) for k in naming}) == 1  # one person among what the user told: the only candidate
    fallback = naming[:1] if one else []
    for pool in (earlier, fallback):
        if any(person_named(s) for s in pool):
            return resolve_pronoun(sentence, pool) or sentence
    return sentence


def source_sentence(text: str, said: Sequence[str]) -> int | None:
    """The index of the sentence of ``said`` (a message's sentences) that ``text`` was cut from: the one holding
    most of its content words; None for a message without sentences."""
    from memory.language.words import grounding_units

    units = grounding_units(text)
    return max(range(len(said)), key=lambda i: len(units & grounding_units(said[i])), default=None)
