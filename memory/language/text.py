"""Text as the language rules read it: its script and language, and where its sentences end (pure logic)."""

from __future__ import annotations

import re

CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")

# Where a sentence ends: not inside "72.5" or after "Dr." (the user's "I weigh 72.5 kg" is not "I weigh 72"). What
# it matches is the space between two sentences.
_END = re.compile(r"(?<!\bMr\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)(?<!\bvs\.)"
                  r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=\.)\s+|(?<=[!?])(?![!?])\s*|(?<=[。！？；;])|\n+")


def sentence_spans(text: str) -> list[str]:
    """``text`` cut into its sentences as written, each with the space after it, so that they join back into
    ``text``: the one sentence splitter (an answer is checked, streamed and stored sentence by sentence)."""
    out: list[str] = []
    start = 0
    for m in _END.finditer(text):
        if m.end() <= start:
            continue
        piece, start = text[start:m.end()], m.end()
        if out and not piece.strip():  # only space: the sentence before it ends there
            out[-1] += piece
        else:
            out.append(piece)
    rest = text[start:]
    if out and rest and not rest.strip():
        out[-1] += rest
    elif rest:
        out.append(rest)
    return out


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (:func:`sentence_spans`), stripped."""
    return [s.strip() for s in sentence_spans(text) if s.strip()]


def language(text: str) -> str:
    """"zh" when Chinese characters dominate the letters, "en" when Latin ones do, "" when neither."""
    cjk, latin = len(CJK.findall(text)), len(_LATIN.findall(text))
    if not cjk and not latin:
        return ""
    return "zh" if cjk * 2 >= latin / 2 and cjk > 0 else "en"
