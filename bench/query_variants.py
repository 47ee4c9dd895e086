"""Query variants without an LLM call, English and Chinese: the LoCoMo ablations of issue 16 (bench/locomo.py).

Each function returns the extra BM25 queries for one question (an empty list: no variant), never the question
itself; the ablation searches the question and every variant and fuses their BM25 scores. Measured, not shipped
(bench/REPORT.md): none lifts multi-hop or open-domain questions.

- :func:`stripped`: the question without its question words and hedges ("What", "When did", "Would … likely",
  "什么", "哪里", "可能");
- :func:`without_names`: the question without the people it names (English: a capitalised word after the first;
  Chinese names are not recognised), since a name matches every memory its person said;
- :func:`sub_questions`: the question split at its conjunctions ("and", "or", "both", commas; "和", "与", "以及",
  "还有", "，", "、"), each part of two words (Chinese: characters) or more besides its question words;
- :func:`speaker_of`: the name before a memory's first colon ("Melanie: …", "小明：…"; up to three words or six
  characters, no digits: "Meeting at 10:30" names nobody), for the speaker ablation.
"""

from __future__ import annotations

import re

_EN_QUESTION_WORDS = re.compile(
    r"\b(what|when|where|who|whom|whose|which|why|how|would|could|should|might|likely|probably|does|did|do|is|are|"
    r"was|were|has|have|had|kind|kinds|type|types|sort|some|any|many|much|ever|still|be|been|being)\b",
    re.IGNORECASE)
_ZH_QUESTION_WORDS = re.compile(r"什么时候|为什么|什么|怎么样|怎么|哪里|哪儿|哪些|哪个|哪家|多少|几次|是否|会不会|"
                                r"可能|也许|大概|谁|吗|呢|吧")
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:'s)?")
_EN_SPLIT = re.compile(r"\s*(?:,|;|\band\b|\bor\b|\bboth\b)\s*", re.IGNORECASE)
_ZH_SPLIT = re.compile(r"\s*(?:和|与|以及|还有|并且|，|、|；)\s*")
_SPEAKER = re.compile(r"^\s*((?:[A-Za-z][A-Za-z.'-]*)(?: [A-Za-z][A-Za-z.'-]*){0,2}|[\u4e00-\u9fff]{1,6})\s*[:：]")
_HAN = re.compile(r"[\u4e00-\u9fff]")


def _words(text: str) -> int:
    """Words in English, characters in Chinese."""
    return len(_HAN.findall(text)) + len(re.findall(r"[A-Za-z0-9]+", text))


def _content(text: str) -> str:
    out = _ZH_QUESTION_WORDS.sub(" ", _EN_QUESTION_WORDS.sub(" ", text))
    return re.sub(r"\s+", " ", re.sub(r"[?？]", " ", out)).strip()


def stripped(question: str) -> list[str]:
    """The question without question words and hedges, if that changes it and leaves a word."""
    out = _content(question)
    return [out] if out and _words(out) and out != question.strip(" ?？") else []


def names_in(question: str) -> list[str]:
    """The capitalised words after the first one ("What did Caroline and Melanie…": Caroline, Melanie)."""
    return list(dict.fromkeys(n.removesuffix("'s") for n in _NAME.findall(question)))


def without_names(question: str) -> list[str]:
    """The question without the people it names, if it names any and something is left."""
    out = question
    for name in names_in(question):
        out = re.sub(rf"\b{re.escape(name)}('s)?\b", " ", out)
    out = re.sub(r"\s+", " ", out).strip()
    return [out] if out != question and _words(_content(out)) else []


def sub_questions(question: str) -> list[str]:
    """The parts of the question between its conjunctions, when there are two or more parts of two words."""
    parts = [p.strip(" ?？") for p in (_ZH_SPLIT if _HAN.search(question) else _EN_SPLIT).split(question)]
    parts = [p for p in parts if _words(_content(p)) >= 2]
    return parts if len(parts) >= 2 else []


def speaker_of(memory_text: str) -> str | None:
    """The label before the memory's first colon ("Melanie: I went camping" -> "Melanie"), if short."""
    m = _SPEAKER.match(memory_text)
    return m.group(1) if m else None


def names_speaker(question: str, memory_text: str) -> bool:
    """Whether the question names the memory's speaker (as a whole word: "Mel" is not "Melanie")."""
    speaker = speaker_of(memory_text)
    if not speaker:
        return False
    if _HAN.search(speaker):
        return speaker in question
    return re.search(rf"(?<!\w){re.escape(speaker)}(?!\w)", question) is not None
