"""Answers of small models, checked (pure logic): loops cut, echoed prompt lines dropped, degeneration named.

Small local models fail in recognisable ways: the same phrase over and over until the output cap, lines of the
system prompt repeated back, an answer in another language than the question. :func:`clean_answer` repairs what
can be repaired without a model (a loop is cut after its first occurrence, echoed prompt lines are dropped);
:func:`degenerate` names what is still wrong (the answers benchmark counts it).
"""

from __future__ import annotations

import re
from collections.abc import Callable

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


# Openers a small model puts before any answer ("You're right! Hangzhou is…" to "I live in Hangzhou", "You're
# welcome!" to no thanks): (the opener, followed by punctuation) and what the message must say for it to fit.
_OPENERS: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (re.compile(r"\s*(?:you(?:'|’)re|you are|that(?:'|’)s|that is)\s+(?:absolutely\s+|quite\s+)?(?:right|correct)"
                r"\s*[!.,，。！]\s*", re.IGNORECASE),
     re.compile(r"\b(?:right|correct|true|isn(?:'|’)t it|am i|is it|is that|are you sure)\b|"
                r"对吗|对吧|对不对|是吗|是不是|没错吧|吧[?？]", re.IGNORECASE)),
    (re.compile(r"\s*(?:you(?:'|’)re|you are)\s+(?:very\s+|most\s+)?welcome\s*[!.,，。！]\s*", re.IGNORECASE),
     re.compile(r"\b(?:thanks?|thank you|thx|ty|cheers|appreciate)\b|谢", re.IGNORECASE)),
    (re.compile(r"\s*(?:你说得对|你说的对|没错|对的|是的)\s*[!.,，。！]\s*"),
     re.compile(r"对吗|对吧|对不对|是吗|是不是|没错吧|吗[?？]?\s*$|\b(?:right|correct)\b", re.IGNORECASE)),
    (re.compile(r"\s*不客气\s*[!.,，。！]\s*"), re.compile(r"谢|\bthank", re.IGNORECASE)),
)
_OPENER_LONGEST = 40  # characters an opener and its punctuation can take


def hollow_opener(answer: str, message: str) -> int:
    """How many leading characters of ``answer`` are an opener the message gives no reason for ("You're right!"
    to a statement or a question about a fact, "You're welcome!" without thanks); 0 when there is none or nothing
    would be left."""
    for opener, fits in _OPENERS:
        m = opener.match(answer)
        if m and not fits.search(message) and answer[m.end():].strip():
            return m.end()
    return 0


class OpenerFilter:
    """The answer's tokens passed on to ``sink`` without a hollow opener (:func:`hollow_opener`): the first
    characters wait only while they could still be one ("You", "You're", "You're ri…"); call :meth:`flush` at the
    end of the answer."""

    def __init__(self, message: str, sink: Callable[[str], None]) -> None:
        self.message, self.sink = message, sink
        self._held: str | None = ""  # None: decided, pass tokens through

    def __call__(self, text: str) -> None:
        if self._held is None:
            self.sink(text)
            return
        self._held += text
        if _could_open(self._held) and len(self._held) < _OPENER_LONGEST:
            return
        self.flush()

    def flush(self) -> None:
        held, self._held = self._held, None
        if held:
            rest = held[hollow_opener(held, self.message):]
            if rest:
                self.sink(rest)


_OPENING_WORDS = ("you're right", "you are right", "you're correct", "you are correct", "that's right",
                  "that is right", "that's correct", "that is correct", "you're absolutely right",
                  "you're quite right", "you're welcome", "you are welcome", "you're very welcome",
                  "you're most welcome", "你说得对", "你说的对", "没错", "对的", "是的", "不客气")


def _could_open(text: str) -> bool:
    """Could ``text``, the answer so far, still grow into an opener, or is it one whose answer has not started?"""
    for opener, _ in _OPENERS:
        m = opener.match(text)
        if m:
            return not text[m.end():].strip()
    said = " ".join(text.replace("’", "'").lower().split())
    return any(w.startswith(said) for w in _OPENING_WORDS)


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
