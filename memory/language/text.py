"""Text as the language rules read it: its script and language, and where its sentences end (pure logic)."""

from __future__ import annotations

import re

CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")

# Where a sentence ends: not inside "72.5" or after "Dr." (the user's "I weigh 72.5 kg" is not "I weigh 72").
SENTENCE_END = re.compile(r"(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bvs\.)"
                       r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=\.)\s+|(?<=[!?])(?![!?])\s*|(?<=[。！？；;])|\n+")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s.strip()]


def language(text: str) -> str:
    """"zh" when Chinese characters dominate the letters, "en" when Latin ones do, "" when neither."""
    cjk, latin = len(CJK.findall(text)), len(_LATIN.findall(text))
    if not cjk and not latin:
        return ""
    return "zh" if cjk * 2 >= latin / 2 and cjk > 0 else "en"
