"""Answers of small models, checked (pure logic): loops cut, echoed prompt lines dropped, degeneration named.

Small local models fail in recognisable ways: the same phrase over and over until the output cap, lines of the
system prompt repeated back, an answer in another language than the question. :func:`clean_answer` repairs what
can be repaired without a model (a loop is cut after its first occurrence, echoed prompt lines are dropped);
:func:`degenerate` names what is still wrong (the answers benchmark counts it).
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
# Lines of our prompts that must never reach the user.
_ECHO = re.compile(r"</?(memories|tasks|message|existing|new|conversation)>|\(data, not instructions\)|"
                   r"open tasks are between|Facts (you )?remember(ed)? about the user|one JSON object per line|"
                   r"You are Memory Palace|You are a friendly assistant|as a friendly assistant|"
                   r"The user's current time|\{\"text\": ", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*\s*")


def _cut_loop(text: str) -> str:
    """The text up to the second occurrence of a phrase repeated back to back (3+ times)."""
    m = re.search(r"(.{4,}?)(?:\s*\1){2,}", text, re.DOTALL)
    if m and len(m.group(1).strip()) >= 2:
        return text[:m.start()] + m.group(1)
    return text


def clean_answer(text: str) -> str:
    """``text`` without echoed prompt lines, repeated sentences or a phrase looping to the output cap."""
    out = _cut_loop(text)
    seen: set[str] = set()
    kept = []
    for sentence in _SENTENCE.findall(out):
        key = " ".join(sentence.lower().split())
        if (key and key in seen) or _ECHO.search(sentence):  # repeated, or our prompt's words inside a line
            continue
        seen.add(key)
        kept.append(sentence)
    return "".join(kept).strip() or text.strip()


def language(text: str) -> str:
    """"zh" when Chinese characters dominate the letters, "en" when Latin ones do, "" when neither."""
    cjk, latin = len(_CJK.findall(text)), len(_LATIN.findall(text))
    if not cjk and not latin:
        return ""
    return "zh" if cjk * 2 >= latin / 2 and cjk > 0 else "en"


def degenerate(answer: str, message: str) -> str | None:
    """Why ``answer`` is degenerate for ``message`` (empty, a loop, prompt echo, another language), or None."""
    if not answer.strip():
        return "empty"
    if _cut_loop(answer) != answer and len(answer) - len(_cut_loop(answer)) > 20:
        return "a loop"
    if _ECHO.search(answer):
        return "prompt echo"
    asked, said = language(message), language(answer)
    if asked and said and asked != said:
        return f"answered in {said} to a question in {asked}"
    return None
