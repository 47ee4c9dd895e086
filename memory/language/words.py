"""Content units: the words of a text that carry content, in English and Chinese (pure logic, no model).

Latin words of 3+ letters that are no stopword, digits, and Chinese character bigrams (a lone character when it
stands alone). Attribution, grounding, the gates and the links compare texts by them.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z]{3,}|\d+")
_CJK_RUN = re.compile(r"[\u3400-\u9fff]+")
_STOP = frozenset({
    "the", "and", "for", "with", "that", "this", "you", "your", "user", "users", "has", "have", "had", "was",
    "were", "are", "from", "not", "but", "about", "they", "their", "them", "his", "her", "she", "him", "its",
})


def content_units(text: str) -> set[str]:
    lowered = text.lower()
    units = {w for w in _WORD.findall(lowered) if w not in _STOP}
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            units.add(run)
        units.update(run[i:i + 2] for i in range(len(run) - 1))
    units.discard("用户")
    return units


_UNIT_SUFFIX = re.compile(r"(ies|es|s|ed|ing)$")


def grounding_units(text: str) -> set[str]:
    return {_UNIT_SUFFIX.sub("", u) if u.isascii() and len(u) > 4 else u for u in content_units(text)}
