"""Which recalled memories an answer used: content overlap, in English and Chinese (pure logic, no model).

A memory counts as used when at least 40% of its content units (Latin words of 3+ letters, digits, Chinese
character bigrams) appear in the answer: answers paraphrase. Used memories get their ``ref_count`` bumped, so
what keeps being useful ranks higher. Only a use for the message counts (:func:`used_for`): a small model
repeats whatever memory it was shown ("Our wedding anniversary is in June." -> "You're left-handed."), and
counting that as use lifted the memory it kept repeating above the ones each question was about.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory.language.words import content_units


def used_memories(answer: str, memories: Sequence[str], *, threshold: float = 0.4) -> list[int]:
    """Indexes of ``memories`` whose content the ``answer`` repeats (share of units >= ``threshold``)."""
    said = content_units(answer)
    used = []
    for i, text in enumerate(memories):
        units = content_units(text)
        if len(units) >= 2 and len(units & said) / len(units) >= threshold:
            used.append(i)
    return used


def used_for(message: str, answer: str, memories: Sequence[str]) -> list[int]:
    """Indexes of ``memories`` (ranked, best first) that ``answer`` used to answer ``message``: it repeats them
    (:func:`used_memories`) and they are about the message, ranked first by recall or sharing a content unit
    with it."""
    asked = content_units(message)
    return [i for i in used_memories(answer, memories) if i == 0 or content_units(memories[i]) & asked]
