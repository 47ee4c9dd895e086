"""Answers of small models, checked (pure logic): loops cut, echoed prompt lines dropped, degeneration named.

Small local models fail in recognisable ways: the same phrase over and over until the output cap, lines of the
system prompt repeated back, an answer in another language than the question. :func:`clean_answer` repairs what
can be repaired without a model (a loop is cut after its first occurrence, echoed prompt lines are dropped);
:func:`degenerate` names what is still wrong (the answers benchmark counts it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import Protocol

from memory.language.change import changes_of
from memory.language.facts import time_or_measure
from memory.language.junk import asks, is_junk, normalized, relative_times, thanks
from memory.language.links import holders, named_things, same_holder
from memory.language.meaning import (
    FUNCTION_CHARS,
    clauses,
    marks,
    negations,
    quantities,
    said_units,
    source_clause,
    substituted,
    without_marks,
)
from memory.language.slots import (
    ASKED_SLOTS,
    FIRST_PERSON,
    FUNCTION_OPENERS,
    PERSON_CANON,
    THE_USER,
    a_person_in,
    aliases,
    asked_name,
    asked_slots,
    held_slots,
    holds,
    named_first,
    person,
    single_valued_slots,
)
from memory.language.temporal import (
    MONTH_NAMES,
    WEEKDAY_NAMES,
    about_the_user_in_general,
    parse_time_window,
    time_intent,
)
from memory.language.text import CJK, language, sentence_spans, sentences
from memory.language.words import EN_NUMERALS, chinese_names, grounding_units, quoted, romanized

# Lines of our prompts that must never reach the user.
_ECHO = re.compile(r"</?(memories|tasks|message|existing|new|conversation)>|\(data, not instructions\)|"
                   r"open tasks are between|Facts (you )?remember(ed)? about the user|one JSON object per line|"
                   r"You are Memory Palace|You are a friendly assistant|as a friendly assistant|"
                   r"The user's current time|\{\"text\": |"
                   # a compact memory line's mark read back ("now: …", "earlier (2026-11-20): …"), or translated
                   # ("现在：你 moved to Hangzhou.", the new-user trial)
                   r"^\W*(?:now|earlier|现在|以前|之前|早先)\s*(?:[(（][^)）]*[)）])?\s*[:：]", re.IGNORECASE)


# The answer prompts an answer may echo (one of their sentences read back: 'Address the user as "you".').
_ANSWER_PROMPTS = ("respond_system", "respond_compact", "time_hint")
ECHO_WORDS = 5  # a run of this many words of a prompt's own text in a sentence is the prompt read back


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.replace("’", "'").lower())


@cache
def _prompt_runs() -> frozenset[tuple[str, ...]]:
    """Every run of :data:`ECHO_WORDS` words of the answer prompts' own text (not what fills them: a placeholder
    or a tag breaks a run, so the memories and the time quoted in a prompt are no echo)."""
    from prompts import load

    runs: set[tuple[str, ...]] = set()
    for name in _ANSWER_PROMPTS:
        for part in re.split(r"\$\{\w+\}|<[^>]*>", load(name)):
            words = _words(part)
            runs |= {tuple(words[i:i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}
    return frozenset(runs)


def echoes_prompt(sentence: str) -> bool:
    """Does ``sentence`` read back a line of the answer prompts (:data:`_ECHO`'s known lines, or a run of
    :data:`ECHO_WORDS` words of any of their text: every line of them, as the prompt files say it today)? The
    prompts are English: a Chinese echo is a translation, which :data:`_ECHO` and the time stamp catch."""
    if _ECHO.search(sentence):
        return True
    words = _words(sentence)
    runs = _prompt_runs()
    return any(tuple(words[i:i + ECHO_WORDS]) in runs for i in range(len(words) - ECHO_WORDS + 1))


def _cut_loop(text: str) -> str:
    """The text up to the second occurrence of a phrase repeated back to back (3+ times)."""
    m = re.search(r"(.{4,}?)(?:\s*\1){2,}", text, re.DOTALL)
    if m and len(m.group(1).strip()) >= 2:
        return text[:m.start()] + m.group(1)
    return text


_GLUED = (re.compile(r"([A-Za-z][,.;:!?]?)([\u3400-\u9fff])"), re.compile(r"([\u3400-\u9fff])([A-Za-z])"))


def spaced(sentence: str) -> str:
    """An English ``sentence`` quoting Chinese words with a space on each side of them ("Your cat's name is豆豆." ->
    "Your cat's name is 豆豆.", a new user's trial): one that opens with an English word and has three; a Chinese
    sentence is left as written ("我在Google工作", "你的bbbbb是aaaaaaaa。")."""
    if not re.match(r"\W*[A-Za-z]", sentence) or len(_LATIN_WORD.findall(sentence)) < 3:
        return sentence
    for glued in _GLUED:
        sentence = glued.sub(r"\1 \2", sentence)
    return sentence


def clean_answer(text: str) -> str:
    """``text`` without echoed prompt lines, repeated sentences or a phrase looping to the output cap."""
    out = _cut_loop(text)
    seen: set[str] = set()
    kept = []
    for sentence in sentence_spans(out):
        key = " ".join(sentence.lower().split())
        if (key and key in seen) or echoes_prompt(sentence):  # repeated, or our prompt's words inside a line
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



def degenerate(answer: str, message: str) -> str | None:
    """Why ``answer`` is degenerate for ``message`` (empty, a loop, prompt echo, another language), or None."""
    if not answer.strip():
        return "empty"
    if _cut_loop(answer) != answer and len(answer) - len(_cut_loop(answer)) > 20:
        return "a loop"
    if any(echoes_prompt(s) for s in sentence_spans(answer)):
        return "prompt echo"
    asked, said = language(message), language(answer)
    if asked and said and asked != said:
        return f"answered in {said} to a question in {asked}"
    return None


# --- What an answer may say (issue 25): nothing invented, no stuck answer, never in the user's voice ----------------

_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")
_NAME_EN = re.compile(r"(?<![\w'’])([A-Z][\w'’-]*|[a-z]+[A-Z][\w-]*)")  # "Tesla", "iPhone", "McDonald's"
_LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"  # with the accented letters: "Tromsø", "Łódź", "São"
_LATIN_WORD = re.compile(rf"[{_LATIN}][{_LATIN}0-9'’-]*")  # a model name keeps its digits: "EV6", "XC40", "P40"
_NOT_NAMES = frozenset({"i", "i'm", "i've", "i'll", "i'd", "ok", "okay", "oh", "hi", "hello", "hey"})
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")  # the prompt's "now" line, copied into an answer


def _digits(text: str) -> set[str]:
    """The numbers ``text`` writes, each also without its leading zeros ("04" of "10:04" is the "4" of "10点4分"), and
    the values of the numbers it says in words ("twelve", "十二")."""
    found = {n.replace(",", "") for n in _NUMBER.findall(text)} | set(re.findall(r"\d+", text))
    found |= {value for value, _ in quantities(text)}  # "twelve" and "十二" are 12: an answer may write it so
    return found | {n.lstrip("0") or "0" for n in found if n.replace(":", "").isdigit()}  # "05:46" is "5:46"


_WEEKDAY_ZH = re.compile(r"(?:周|星期|礼拜)[一二三四五六日天]")


def _weekday(said: str) -> str:
    return "日" if said[-1] == "天" else said[-1]


_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\bhttps?://\S+|\bwww\.[\w-]+(?:\.[\w-]+)+")


class Restates(Protocol):
    """Judges across languages (:class:`memory.embeddings.AcrossLanguages`)."""

    def __call__(self, sentence: str, texts: Sequence[str]) -> bool:
        """Does ``sentence`` say what one of ``texts`` says (by meaning)?"""

    def same_name(self, name: str, names: Sequence[str]) -> bool:
        """Is ``name`` one of ``names``, written in the other language?"""


def invented(sentence: str, sources: str, *, chinese: bool = True) -> list[str]:
    """The numbers, dates and names in ``sentence`` (one sentence of an answer) that ``sources`` (what the model
    was given: the message, the session window, the recalled memories, the time hint) never says: what a small
    model made up ("for $10,000", "The weather in 2026-12-04", "You were joined by Microsoft"). A sentence's first
    word counts only when it could only be a name (a capital or a digit inside it: "iPhone", "P40"); in a Chinese
    sentence (Chinese dominating its letters) every Latin word is one, and so is a name jieba tags or the sentence
    quotes (:func:`memory.language.words.chinese_names`: "佩洛西·罗德曼", 名为“百味斋”) unless every character of it
    is in ``sources`` (jieba tags 哥哥 a place; "你哥哥" answers "我哥"). ``chinese=False`` leaves those out: jieba
    tags 谢谢 a person, so only an answer to a question (where a name is a claim) is judged by them."""
    known_digits = _digits(sources)
    known = {w.group(0).rstrip("'’-").lower() for w in _LATIN_WORD.finditer(sources)}  # whole words: "Tom" is
    known |= {w.rstrip("'’-").lower() for w in re.findall(rf"[{_LATIN}][{_LATIN}'’-]*", sources)}  # "EV" of "EV6"
    known |= {w.removesuffix("'s").removesuffix("’s") for w in known}  # not in "tomorrow"; "Mei's" holds "Mei"
    # a time of day is one number ("10:04" is no "10" and "04" of "2026-12-04 10:04"'s date)
    out = [n for n in _NUMBER.findall(sentence)
           if n.replace(",", "") not in known_digits and n.lstrip("0") not in known_digits and (
               ":" in n or not {d.lstrip("0") or "0" for d in re.findall(r"\d+", n)} <= known_digits)]
    cjk = bool(CJK.search(sentence))
    if cjk:  # a number in Chinese numerals: "你的生日是五月三日。" (never told) wrote no figure; the number it counts
        said = quantities(sources)  # must be said of what it counts ("两个孩子" is no "二月"), or said in English
        out += sorted({f"{v}{c}" for v, c in quantities(re.sub(r"[\d.,:]+", " ", sentence))
                       if c and not any(v == w and (not d or d[-1:] == c[-1:]) for w, d in said)})
    # a Chinese sentence (by what dominates it) writes no capitals: each Latin word in it is a name; an English
    # one quoting a memory's Chinese words ("You drink 乌龙茶 every morning.") keeps the English rules
    zh = language(sentence) == "zh"
    words = _LATIN_WORD.finditer(sentence) if zh else _NAME_EN.finditer(sentence)
    for m in words:
        word = m.group(0).rstrip("'’-")
        low = word.lower()
        before = sentence[:m.start()].strip(" \"'“‘(")
        first = not before or before.endswith((":", "：", "—"))  # "…what I remember is: You drove…"
        if low in _NOT_NAMES or (first and not zh and not any(c.isupper() or c.isdigit() for c in word[1:])):
            continue
        if low not in known and low.removesuffix("'s").removesuffix("’s") not in known and (
                not CJK.search(sources) or low.removesuffix("'s").removesuffix("’s") not in romanized(sources)):
            out.append(word)  # "Chengdu", "Xiaoyu" of a Chinese memory's 成都, 小雨 are not made up
    # an address (e-mail, web) is a name whatever its case: "you@yourdomain.com" for "What's my email address?"
    out += [a for a in _ADDRESS.findall(sentence) if a.lower() not in sources.lower()]
    # a relative time no source says: "You painted the living room yellow yesterday." for "…last weekend"
    out += sorted(relative_times(sentence, moving=True) - relative_times(sources))
    # and "this month" for what a source dated "last month" ("…moved back to Sapporo this month.", a new user's
    # trial): a time of now nothing said, where the sources date something away from now
    if relative_times(sources, moving=True):  # "今年35岁" says an age, not when
        now_said = relative_times(re.sub(r"今年\s*[\d一二三四五六七八九十两]+\s*岁", " ", sentence))
        out += sorted(now_said - relative_times(sentence, moving=True) - relative_times(sources))
    # a weekday in Chinese is a date: "今天是星期五。" on a Thursday ("周五", "礼拜五" are "星期五" too)
    given = {_weekday(w) for w in _WEEKDAY_ZH.findall(sources)}
    out += [d for d in _WEEKDAY_ZH.findall(sentence) if _weekday(d) not in given]
    if cjk and chinese:  # a Chinese name has no capital: jieba's proper nouns and what the sentence quotes
        out += [w for w in chinese_names(sentence) if w not in sources and not set(w) <= set(sources)]
    elif cjk:  # what a sentence quotes is a name whatever was asked: 被诊断为“不健康” (a reason nobody gave)
        out += [w for w in quoted(sentence) if w not in sources and not set(w) <= set(sources)]
    return out



_FIRST_PERSON_EN = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|I'd|I’d|I'll|I’ll|my|me|mine|myself|we|we're|we’re|we've|"
                              r"we’ve|our|ours|us|ourselves)\b", re.IGNORECASE)
_TO_SECOND = (
    (re.compile(r"\bI am\b"), "you are"), (re.compile(r"\bI was\b"), "you were"),
    (re.compile(r"\bI(?:'|’)m\b"), "you're"), (re.compile(r"\bI(?:'|’)ve\b"), "you've"),
    (re.compile(r"\bI(?:'|’)d\b"), "you'd"), (re.compile(r"\bI(?:'|’)ll\b"), "you'll"),
    (re.compile(r"\bI\b"), "you"), (re.compile(r"\bmy\b", re.IGNORECASE), "your"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "yours"), (re.compile(r"\bmyself\b", re.IGNORECASE), "yourself"),
    (re.compile(r"\bme\b", re.IGNORECASE), "you"), (re.compile(r"\bwe(?:'|’)re\b", re.IGNORECASE), "you're"),
    (re.compile(r"\bwe(?:'|’)ve\b", re.IGNORECASE), "you've"), (re.compile(r"\bwe\b", re.IGNORECASE), "you"),
    (re.compile(r"\bours\b", re.IGNORECASE), "yours"), (re.compile(r"\bour\b", re.IGNORECASE), "your"),
    (re.compile(r"\bourselves\b", re.IGNORECASE), "yourselves"), (re.compile(r"\bus\b"), "you"),
    (re.compile(r"我们"), "你们"), (re.compile(r"我"), "你"),
)


def second_person(text: str) -> str:
    """``text`` said to the user: "I live in Hangzhou" -> "You live in Hangzhou", "我住在杭州" -> "你住在杭州"."""
    out = text
    for pattern, said in _TO_SECOND:
        out = pattern.sub(said, out)
    start = len(out) - len(out.lstrip())  # a sentence that opened with "I" or "My" opens with "You" / "Your"
    if out != text and text.lstrip()[:1].isupper():
        return out[:start] + out[start:start + 1].upper() + out[start + 1:]
    return out


_SECOND_PERSON = re.compile(r"\b(?:you|you're|you've|your|yours|yourself)\b|你", re.IGNORECASE)


def _first_person_only(sentence: str) -> bool:
    """Does ``sentence`` speak in the first person ("I", "my", "我") and not to the user ("you", "你")?"""
    return bool(_FIRST_PERSON_EN.search(sentence) or "我" in sentence) and not _SECOND_PERSON.search(sentence)


# Who the speaker says they are: "I'm Jonas", "my name is Jonas", "我是王芳", "我叫Jonas".
_SAYS_WHO = re.compile(r"\b(?i:i'm|i’m|i am|my name is|call me)\s+([A-Z][a-z]+)\b|"
                       r"我(?:是|叫)([A-Z][a-z]+|[\u4e00-\u9fff]{2,3})")


def _claims_the_users_name(sentence: str, facts: Sequence[str]) -> bool:
    """Does ``sentence`` say the speaker is someone the user's memories say the user is ("I'm Jonas and I have been
    to several places in the world." to "What do you remember about me?" beside "I'm Jonas": a seventh new user's
    trial)? The assistant is nobody of the user's memories."""
    said = {n.lower() for m in _SAYS_WHO.finditer(sentence) for n in m.groups() if n}
    return bool(said) and any(n.lower() in said for f in facts[:-1] for m in _SAYS_WHO.finditer(f)
                              for n in m.groups() if n)


def speaks_as_user(sentence: str, facts: Sequence[str]) -> bool:
    """Is ``sentence`` one of the user's facts said in the user's voice ("I live in Hangzhou." to "Where do I
    live?")? It speaks in the first person and half its content comes from one of ``facts`` (the recalled
    memories and the message), or it says the speaker is the user by a name the memories give the user ("I'm
    Jonas…"). "I don't remember that" is the assistant speaking: it restates no fact."""
    if not _first_person_only(sentence):
        return False  # "I remember you're an architect" / "我记得你是建筑师": the assistant, speaking to the user
    if _claims_the_users_name(sentence, facts):
        return True
    bare = re.sub(r"我们?|\b(?:I|my|me|mine|we|our|us)\b", " ", sentence, flags=re.IGNORECASE)
    if _mirrors(sentence, facts[-1:]):
        return True
    units = grounding_units(bare)
    # the answer to a question about the user's life takes up its words in the first person: "我喜欢北京烤鸭。" for
    # "我最喜欢哪家餐厅？" (bench answers): the user's voice, whatever it adds (the assistant's "I" likes nothing)
    asked = facts[-1] if facts else ""  # not one asked of the assistant ("Can you help me?")
    if _asks_of_the_users_life(asked) and not _SECOND_PERSON.search(asked) and units & grounding_units(
            re.sub(r"我们?|\b(?:I|my|me|mine|we|our|us)\b", " ", asked, flags=re.IGNORECASE)):
        return True
    # the message's own words count only when it does not ask the assistant ("I can help with that." to "Can you
    # help me plan my trip?" is the assistant's answer, not the user's voice)
    own = [f for n, f in enumerate(facts) if n < len(facts) - 1 or not _SECOND_PERSON.search(f)]
    if units and any(len(units & grounding_units(f)) * 2 >= len(units) for f in own):
        return True
    # Chinese by content characters too (function characters such as 是, 一, 的 left out): "我是一名建筑师" shares
    # two bigrams of five with "我是建筑师"; "我是一名护士。" shares 护士 of 名护士 with "我的工作是护士" (bench
    # updates)
    chars = {c for c in said_units(bare) if CJK.fullmatch(c)}
    return len(chars) >= 2 and any(len(chars & said_units(f)) * 3 >= len(chars) * 2 for f in facts)


# time words and joining adverbs: what a sentence says besides them is what it claims
_RELATIVE_WORDS = re.compile(r"\b(?:also|too|since|still|just|even|already|ago|(?:last|next|this) (?:week|month|year)|"
                             r"yesterday|today|tomorrow|now|then|been)\b", re.IGNORECASE)


def pieced_together(sentence: str, facts: Sequence[str]) -> bool:
    """Is ``sentence`` in the first person a life pieced together from several memories, none of which it restates
    ("I've also been teaching at a school in Lisbon since last month." from "Ines quit flying, she teaches at a
    school now." and "I moved from Lisbon to Madrid" (last month), to "What do you remember about me?", a new
    user's trial)? Three content words or more (times and joining words aside), half of them from the memories
    together, and half from no one memory of the user's alone: neither the user's fact (said to the user later)
    nor the assistant's own words ("I'm glad to help"); cut."""
    if not _first_person_only(sentence):
        return False
    # its times are :func:`invented`'s to judge, and its joining words ("also", "since") say nothing of a life
    timeless = _SAYS_WHEN.sub(" ", _TIME_SAID.sub(" ", _RELATIVE_WORDS.sub(" ", sentence)))
    units = grounding_units(re.sub(r"我们?|\b(?:I|my|me|mine|we|our|us)\b", " ", timeless, flags=re.IGNORECASE))
    memories = [grounding_units(f) for f in facts[:-1]]
    if len(units) < 3 or not memories or len(units & set().union(*memories)) * 2 < len(units):
        return False
    # one of the user's memories said in the user's voice is the user's fact (said to the user, later); another
    # person's said as the user's is no one's
    return not any(len(units & m) * 2 >= len(units) and same_holder(sentence, f)
                   for m, f in zip(memories, facts, strict=False))


def says_nothing_given(sentence: str, message: str, sources: str, facts: Sequence[str],
                       restates: Restates | None = None) -> bool:
    """Is ``sentence``, answering a question about the user's life, made of words none of which anything given to
    the model holds, in any voice ("You can find more information about me on my website or social media
    accounts." to "What do you remember about me?", a new user's trial)? Three content words or more, none in the
    sources: not about what was asked, nor about anything told. Beside a memory in another language (a translation
    shares no word) only when ``restates`` finds it says none of them; without ``restates``, not judged."""
    if not asks(message) or not _asks_of_the_users_life(message) or _ASKS_ADVICE.search(message):
        return False
    others = _in_other_languages(sentence, facts)
    if others and restates is None:
        return False
    units = {u for u in _impersonal_units(sentence) if not u.isdigit()}
    return len(units) >= 3 and not units & grounding_units(sources) and not (
        others and restates is not None and restates(sentence, others))


def _in_other_languages(sentence: str, facts: Sequence[str]) -> list[str]:
    """The memories of ``facts`` (the message last, not one) in another language than ``sentence``."""
    said = language(sentence)
    return [f for f in facts[:-1] if language(f) not in ("", said)]


def takes_over(sentence: str, facts: Sequence[str]) -> bool:
    """Does ``sentence``, in the user's voice ("I work at Google as a designer."), restate only facts about
    someone else ("My brother Tom works at Google as a designer.": :func:`memory.language.links.same_holder` says
    whose)? Turned to the user it would say "You work at Google" (the new-user trial); it is cut instead."""
    bare = re.sub(r"我们?|\b(?:I|my|me|mine|we|our|us)\b", " ", sentence, flags=re.IGNORECASE)
    units = grounding_units(bare)
    facts = [f for f in facts if not asks(f)]  # a question states nothing a sentence could restate
    shared = [len(units & grounding_units(f)) for f in facts]
    best = max(shared, default=0)
    # what it restates is what it shares the most with: "I work as a radiologist" restates the sister's "…works as
    # a radiologist", not the user's "I work as a marine biologist", which shares only "work" (a third new user's
    # trial: turned to the user, the sister's job became theirs)
    restated = [f for f, n in zip(facts, shared, strict=True) if units and n == best and n * 2 >= len(units)]
    # a name the memories give a kinship word is that person: "My brother is a chef now." restates "Erik quit…,
    # he's a chef…" beside "我哥哥叫Erik…" (a sixth new user's trial: the brother's new job was cut as given to the
    # user, and the old one quoted)
    alias = aliases(facts) if restated else None
    return bool(restated) and not any(same_holder(sentence, f, alias=alias) and not _other_people(sentence, f)
                                      for f in restated)


def _other_people(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` say whom they are about as the user or a relative (not by a name), and never the same
    one? "我妹妹叫 Lena Park" and "I'm Lena Park" name the same Lena, one of the user's sister, one of the user: the
    user's own name given to a sister nobody mentioned (a new-user check asked "我妹妹叫什么名字？")."""
    kin = set(PERSON_CANON.values()) | {"self"}
    whose_a, whose_b = holders(a) & kin, holders(b) & kin
    return bool(whose_a) and bool(whose_b) and not whose_a & whose_b


_TO_FIRST = ((re.compile(r"\byou(?:'|’)re\b", re.IGNORECASE), "I'm"), (re.compile(r"\byou(?:'|’)ve\b", re.IGNORECASE),
             "I've"), (re.compile(r"\byou are\b", re.IGNORECASE), "I am"), (re.compile(r"\byou were\b",
             re.IGNORECASE), "I was"), (re.compile(r"\byour\b", re.IGNORECASE), "my"),
             (re.compile(r"\byou\b", re.IGNORECASE), "I"), (re.compile(r"你们"), "我们"), (re.compile(r"你"), "我"))


def _as_the_user(text: str) -> str:
    """``text`` said to the user, as the user would say it ("Your brother…" -> "my brother…"; the inverse of
    :func:`second_person`)."""
    for pattern, said in _TO_FIRST:
        text = pattern.sub(said, text)
    return text


def given_to_the_user(sentence: str, facts: Sequence[str]) -> bool:
    """Does a clause of ``sentence`` that speaks to the user ("You teach at a school now.", "so you are a pilot
    too!") restate only facts about someone else ("Ines quit flying, she teaches at a school now.", "My sister Ines
    is a pilot in Lisbon.": a new user's trial, asked "What does Ines do now?" and told of Ines)? Said as the user
    would say it, it is :func:`takes_over`: the other person's fact given to the user."""
    for clause in clauses(sentence):
        if not _SECOND_PERSON.search(clause):
            continue
        if takes_over(_as_the_user(clause), facts):
            return True
    return False


def given_to_another(sentence: str, message: str) -> bool:
    """To a statement about the user ("我已经不拉大提琴了，现在开始学攀岩。"), does ``sentence``, about someone else by
    its kinship word ("你哥哥叫Erik，…现在正在学习攀岩。": a sixth new user's trial), say what the statement says? Words
    of time ("现在", "now") are no claim of either."""
    if asks(message) or not FIRST_PERSON.search(message) or person(message) != "self":
        return False
    mine = _as_the_user(sentence)
    if person(mine) == "self":
        return False
    said_of = {u for u in _impersonal_units(sentence) & _impersonal_units(message) if not time_or_measure(u)}
    return bool(said_of - _person_units_of(mine))


def _person_units_of(text: str) -> set[str]:
    """The units of the kinship word ``text`` is about ("哥哥", "brother"), which a statement and a sentence about
    another person may share without saying one thing."""
    who = person(text)
    return grounding_units(who) | {who}


_MY_THING = r"\b(?:my|our)\s+[a-z]+(?:\s+(?!is\b|are\b|was\b|were\b)[a-z]+)?"  # "my waist size", "my blood type"
# the user's own words for a thing of theirs: "my waist size", "我的医生", "我现在…"
_OWN_PHRASE = re.compile(_MY_THING + r"|我们?的?[\u4e00-\u9fff]{2}", re.IGNORECASE)
# a thing of the user's, named as theirs ("my blood type", "我的血型"; not "我现在…", a time)
_THING_OF_USER = re.compile(_MY_THING + r"|我们?的[\u4e00-\u9fff]{2}", re.IGNORECASE)
# a question whose subject is the user, asked in the indicative ("What do I drink in the morning?", "Am I allergic
# to anything?", "我开什么车？", "我养狗吗？"): it asks a fact of their life, as "my X" does
_ASKS_OF_USER = re.compile(r"\b(?:do|does|did|am|was|have|had)\s+(?:I|we)\b|\babout (?:me|myself|us)\b|"
                           r"我们?[^，,。？?！!]*(?:什么|哪|吗|几|谁|多少|怎么)", re.IGNORECASE)
# the user asking for advice or a suggestion, a modal with the user as subject ("What should I cook tonight?",
# "我应该吃什么？", "我们去哪里吃饭好呢？"): no memory has to support the answer, whatever time it names
_ASKS_ADVICE = re.compile(r"\b(?:should|shall|can|could|would|might)\s+(?:I|we)\b|"
                          r"我们?[^，,。？?！!]*(?:应该|该|可以|能不能|要不要|好呢|推荐|建议)", re.IGNORECASE)


def _asks_of_the_users_life(message: str) -> bool:
    """Does ``message`` ask a fact of the user's life ("my X", "What do I drink…", "我开什么车？")?"""
    return bool(_OWN_PHRASE.search(message) or _ASKS_OF_USER.search(message))




def _mirrors(sentence: str, messages: Sequence[str]) -> bool:
    """Does ``sentence`` say the message's first-person phrase ("my waist size") or open with the user's own
    first words of the message ("我们公司的办公地点是…" for
    "我们公司在哪里？", "我的医生姓李。" for "我的医生姓什么？"): three characters or more in common, a first person
    among them? The answer goes on in the voice the question was asked in."""
    for message in messages:
        own = [m.group(0) for m in _OWN_PHRASE.finditer(message)]
        if any(len(p) >= 3 and p.lower() in sentence.lower() for p in own):
            return True  # "My waist size is not specified…" for "What is my waist size?"
        a, b = sentence.strip(), message.strip()
        n = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
        shared = a[:n]
        if len(shared.strip()) >= 3 and ("我" in shared or _FIRST_PERSON_EN.match(shared)):
            return True
    return False


def similar(a: str, b: str) -> float:
    """How alike two answers are (0-1), spacing and case aside."""
    from difflib import SequenceMatcher

    return SequenceMatcher(None, " ".join(a.lower().split()), " ".join(b.lower().split())).ratio()


STUCK_SIMILARITY = 0.85  # above this an answer repeats an earlier one of the session


def stuck(answer: str, message: str, earlier: Sequence[tuple[str, str]]) -> bool:
    """Is ``answer`` (nearly) an earlier assistant turn of the session given to another message? ``earlier``
    holds (user message, assistant answer) pairs, oldest first. Messages asking the same question are one, whatever
    else they say ("Hi again! Where do I live now?" and "Where do I live now?": a fifth new user's trial got the
    same right answer taken for stuck, generated again and then answered plainly, unsure)."""
    return any(similar(answer, said) >= STUCK_SIMILARITY and not same_question(message, asked)
               for asked, said in earlier if said.strip())


def _question_part(message: str) -> str:
    """The sentences of ``message`` that ask (end with a question mark), or all of it."""
    asking = [s for s in sentence_spans(message) if s.rstrip().endswith(("?", "？"))]
    return " ".join(asking) if asking else message


def same_question(a: str, b: str) -> bool:
    """Do messages ``a`` and ``b`` ask the same (nearly the same words, greetings and remarks around aside)?"""
    return similar(a, b) >= STUCK_SIMILARITY or similar(_question_part(a), _question_part(b)) >= STUCK_SIMILARITY


def stale(sentence: str, replaced: Mapping[str, str]) -> str | None:
    """The memory a newer one replaced (``replaced``: :func:`replacements`) that ``sentence`` restates, or None.
    A sentence restates it when it shares words with the two memories and none of what only the newer one says.
    What the newer one says is its clauses that share nothing with the older one ("joined Microsoft" of "I quit
    Tencent and joined Microsoft", "自己换了谷歌Pixel 8" of "我把三星Galaxy S23送给了侄子，自己换了谷歌Pixel 8"),
    or, when every clause names the older value ("I moved from Suzhou to Hangzhou"), its words the older lacks:
    "You work at Tencent." and "你用三星Galaxy S23。" answer a question about now with what changed. The words
    come from the two memories themselves, whatever their subject or language; "You quit Tencent and joined
    Microsoft." says the change and stands. Persons' words (I, you, 我, 你) are no content here: the answer says
    "you" where the memory said "I"."""
    units = _impersonal_units(sentence)
    for older, newer in replaced.items():
        old, new = _impersonal_units(older), _impersonal_units(newer)
        said = set().union(*(u for u in map(_impersonal_units, (c for s in sentences(newer) for c in clauses(s)))
                             if not u & old)) or new - old
        if units & (old | new) and not units & said:
            return older
    return None


def _impersonal_units(text: str) -> set[str]:
    return grounding_units(re.sub(r"我们?|你们?|\b(?:I|my|me|mine|you|your|yours)\b", " ", text,
                                  flags=re.IGNORECASE))


NOT_TOLD = {"en": "You haven't told me that, so I don't know.", "zh": "你还没有告诉过我这件事，所以我不知道。"}
NOTED = {"en": "Got it.", "zh": "好的，知道了。"}
# to thanks ("谢谢" got "好的，知道了。": a sixth new user's trial)
WELCOME = {"en": "You're welcome!", "zh": "不客气！"}
REMEMBERED = {"en": "I'm not sure; what I remember is: ", "zh": "我不太确定；我记得的是："}
# a memory in the other language than the message's, quoted as the user said it (a small model cannot be trusted
# to translate it: :func:`told_in_another_language`)
TOLD = {"en": "You told me: ", "zh": "你跟我说过："}
TOLD_UNSURE = {"en": "I'm not sure; you told me: ", "zh": "我不太确定；你跟我说过："}
RECALLED = {"en": "What I remember: ", "zh": "我记得："}  # to "What do you remember about me?"


@dataclass(frozen=True)
class Checked:
    """An answer after :func:`check_answer`: its text and what was changed (reasons, for the turn's record)."""

    text: str
    changes: tuple[str, ...] = ()


def clock_words(when: datetime) -> str:
    """How the moment ``when`` may be written, in both languages ("2026-12-04 10:04 Friday December Dec 4 12 2026
    2026年12月4日 星期五 today 今天"): the clock an answer about today may read from (:func:`allowed_sources`)."""
    return (f"{when:%Y-%m-%d %H:%M} {when:%A %B %b} {when.day} {when.month} {when.year} "
            f"{when.hour % 12 or 12}:{when:%M} {when:%p} "  # "5:46 AM": the twelve-hour clock
            f"{when.year}年{when.month}月{when.day}日 星期{'一二三四五六日'[when.weekday()]} today 今天")


_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")


_NAMES_NOW = re.compile(r"\b(?:today|tonight|now|this (?:morning|afternoon|evening|week|month|year))\b|今天|今晚|现在|"
                        r"这周|本周|这个月|今年", re.IGNORECASE)


def allowed_sources(sources: str, message: str, now: str) -> str:
    """What an answer to ``message`` may state: ``sources``, and the current date when the message asks it. The
    clock's time of day only when the message asks no fact of the user's life: "What time do I start work?" asks
    a time of theirs, which the clock does not know ("I start working at 10:04 (Thursday)." copied it); nor its
    date, when such a question does not name now ("我的生日是几月几号？" got today's date)."""
    if not now or not _ASKS_TIME.search(message):
        return sources
    if _asks_of_the_users_life(message) and not _NAMES_NOW.search(message):
        return sources  # "我的生日是几月几号？" asks a date of theirs: today's is no answer (a new user's trial)
    return f"{sources} {_CLOCK.sub(' ', now) if _asks_of_the_users_life(message) else now}"


def unsupported(sentence: str, message: str, sources: str, facts: Sequence[str],
                restates: Restates | None = None) -> bool:
    """Does ``sentence`` (of an answer to ``message``, a question about today or now, or about something of the
    user's: "my boat", "我最喜欢的餐厅", "What do I drink in the morning?", "我开什么车？") assert what none of
    ``sources`` supports? Its content words beyond the question's own ("sunny", "warm" of "It is sunny and warm
    today." for "What's the weather like today?"; "晴朗" of "今天天气晴朗。"; "西餐" of "你最喜欢的餐厅是西餐。" for
    "我最喜欢的餐厅是哪家？") are not one of them in any source: the model's word on a world it cannot see (the
    weather, the news, a price today) or on a life it was not told about. A question asking for advice ("What
    should I cook tonight?") is about neither. A sentence that shares any such word with a source stands (a
    paraphrase keeps some), and so does one with no content beyond the question, or one in the assistant's own
    first person ("I'm doing well today"). Numbers are :func:`invented`'s to judge: a date the time hint gives
    supports no weather. Beside a memory in another language than the sentence (a translation shares no word), a
    sentence answering a question about the user's life stands when it says what one of them says by meaning
    (``restates``: "你的猫叫Pepper。" beside "I have a cat called Pepper."), or when the question asks a slot one of
    them holds (the bilingual table: "我开什么车？" asks the car); "你是红血型。" to "我是什么血型？" beside a job and a
    car in English is judged (a fourth new user's trial). Without ``restates`` such a sentence is not judged. A
    question about the world is judged beside any memory ("The weather is clear and mild." for "What's the weather
    like in Lyon today?" beside a Chinese memory: a third new user's trial)."""
    # a person asked about by a name the memories give a person ("Karim现在住在哪里？" beside "我朋友Karim住在温哥华"):
    # what the user told of them is their life too; a name nothing gives a person ("What's the weather like in
    # Lyon?" beside "I moved to Lyon") is the world's
    name = asked_name(message)
    alias = aliases(facts[:-1]) if name else None  # "Karim…?" beside "My friend Karim…": the friend
    about_life = _asks_of_the_users_life(message) or (name is not None and a_person_in(name, facts[:-1], alias))
    if not asks(message) or _ASKS_ADVICE.search(message) or not (
            _ASKS_TIME.search(message) or time_intent(message) == "present" or about_life):
        return False
    # the assistant's own "I" is not judged; the user's voice is, as the user's life, unless it says that it was
    # not said ("My waist size is not specified.")
    if (_FIRST_PERSON_EN.search(sentence) or "我" in sentence) and (negations(sentence) or not (
            speaks_as_user(sentence, facts) or answers_as_the_user(sentence, message))):
        return False
    # a memory in the other language may be what it translates; the weather or the news is none, and where the
    # question asks a slot (the bilingual table: "我开什么车？" asks the car), only one holding it can be
    others = _in_other_languages(sentence, facts)
    asked = asked_slots(message, alias)
    across = about_life and bool(others)
    # with the judge across languages, one that holds it is judged by meaning too: "Your brother works as a teacher
    # at school." beside "我哥哥…是一名软件工程师" (cosine 0.77; "…a software engineer." 0.82) stood for holding the
    # brother's work (a sixth new user's trial)
    if across and restates is None and (not asked or any(holds(f, asked, alias) for f in others)):
        return False
    # the time it is, said in time words, is the clock's to give and :func:`invented` checks its numbers ("It is
    # 10:04 now.", "现在是10点04分。" for "现在几点？" were cut as unsupported)
    timeless = _SAYS_WHEN.sub(" ", _ASKS_TIME.sub(" ", _TIME_SAID.sub(" ", sentence)))
    novel = {u for u in _impersonal_units(timeless) - _impersonal_units(message)
             if not u.isdigit() and not (len(u) == 1 and CJK.match(u))}  # "是" of "今天是星期四。"
    if not novel:
        return False
    given = sources.replace(message, " ")
    # a thing of the user's that nothing given names, in the words the question names it ("my blood type", "我的
    # 血型"), said of them all the same: "Your blood type is the same as your friend Karim." shares "friend" and
    # "Karim" with a memory, and nothing told says a blood type. Not where the question asks a slot of the table
    # (it reads other words for it: "job" of "I work as a nurse") or a memory is in the other language
    if not asked and not others and (thing := _THING_OF_USER.search(message)) is not None:
        named = {u for u in _impersonal_units(thing.group(0)) if not u.startswith("的")}
        if named and named & _impersonal_units(sentence) and not named & grounding_units(given):
            return True
    # or most of it, two words or more, by words and Chinese characters (bigrams would count the joins): "You
    # bought your Brompton at a local bike shop." for "Where did I buy my bike?" (the 1.5B, bench answers) shares
    # "Brompton" with a memory and says three words none has
    words = said_units(timeless) - said_units(message)
    unsaid = words - said_units(given)
    if novel & grounding_units(given) and not (len(unsaid) >= 2 and len(unsaid) * 2 > len(words)):
        return False
    return not (across and restates is not None and restates(sentence, others))


def misplaced(sentence: str, message: str, facts: Sequence[str]) -> bool:
    """Does ``sentence``, answering the question ``message``, put a memory's value under another one-valued slot
    than the memory holds it in ("你现在在杭州工作。" for "我现在在哪里工作？" from "我住在杭州": where the user lives
    read as where they work)? Its value is what it says beyond the question; every memory holding that value holds
    a slot, and none of them the slot the sentence states. A memory no slot reads ("My home is in Hangzhou") is
    not judged: a paraphrase ("You live in Hangzhou.") stands."""
    def kinds(text: str) -> set[str]:  # "sister:work" -> "work": the answer says "your sister", the memory "my"
        return {slot.rpartition(":")[2] for slot in single_valued_slots(text)}

    if not asks(message):
        return False
    stated = kinds(sentence)
    value = _impersonal_units(sentence) - _impersonal_units(message)
    # the name of the person a memory is about is no value of its slots ("Your sister's name is Ines." from "My
    # sister Ines is a pilot in Lisbon.", a new user's trial)
    holding = [f for f in facts[:-1] if value & _impersonal_units(f) and not value <= grounding_units(
        " ".join(holders(f)))]
    if not stated or not holding:
        return False
    held = [kinds(f) for f in holding]
    return all(held) and not any(h & stated for h in held)


def off_topic(sentence: str, message: str, facts: Sequence[str]) -> bool:
    """Is ``sentence`` of an answer to the question ``message`` about something else than what it asks? The
    question is about the memories that share a content word with it (``facts``: the recalled memories, best
    first, then the message); a sentence that shares no word with the question, with those memories, nor with
    recall's first memory reads out another one ("Your birthday is on March 14th." for "What do I drink in the
    morning?" beside "My morning drink is espresso.": a small model recites what it was shown; "You are
    left-handed." for "Where do I work?" beside "I quit Tencent and joined Microsoft."). Not judged when no memory
    shares a word with a question that is not about a fact of the user's (it is about no memory: "Can you help
    me?"), nor for advice asked, nor when the sentence is in another language than the question, nor when it has
    no content word."""
    memories = facts[:-1]
    if not memories or not asks(message):
        return False
    said = language(sentence)
    if language(message) not in ("", said):
        return False
    asked = _impersonal_units(message)
    about = [u for u in map(_impersonal_units, memories) if u & asked]
    # a question about a fact of the user's ("Where do I work?") is about recall's first memory even when it
    # shares no word with it ("I quit Tencent and joined Microsoft"): "You are left-handed." answers neither; a
    # first memory in another language is a translation, which shares no word
    if _ASKS_ADVICE.search(message) or (not about and (
            not _asks_of_the_users_life(message) or language(memories[0]) not in ("", said))):
        return False
    units = _impersonal_units(sentence)
    return bool(units) and not units & asked.union(*about, _impersonal_units(memories[0]))


def recites(sentence: str, message: str, facts: Sequence[str]) -> bool:
    """Is ``sentence``, in the answer to a message that asks nothing (a statement, small talk), a memory read out
    that the message is not about? It shares a content word with a recalled memory and none with the message:
    "It was a wonderful experience sailing around Crete!" for "sweet", "你哥哥李伟是一名飞行员。" for "来了来了",
    "You are getting married in June." (the friend is) for "quick question". A reply to what was said shares its
    words ("Got it, you moved to Hangzhou." for "I live in Hangzhou now."); one that shares nothing with anything
    ("Hi! How can I help?") is not judged here. In another language than the message it shares none of its words:
    a memory read out in English to a Chinese statement is one ("你've played the cello for twelve years。" to "我妹妹
    英格丽有两个孩子。", a third new user's trial's replay). A question about the world today (the news, the
    weather) is judged as a statement is."""
    memories = facts[:-1]
    # a question about the world today (the news, the weather) is no question about a memory either: "你妹妹英格丽有
    # 两个孩子。" for "今天有什么新闻？" (a third new user's trial)
    of_the_world = asks(message) and bool(_ASKS_TIME.search(message)) and not _asks_of_the_users_life(message) \
        and not asks_the_time(message)
    if not memories or (asks(message) and not of_the_world):
        return False
    units = _impersonal_units(sentence)
    # a time word shared is no reply to what was said: "**现在**：你不在水族馆工作了。" to "…她现在是滑雪教练。"
    timeless = _impersonal_units(_ASKS_TIME.sub(" ", sentence)) & _impersonal_units(_ASKS_TIME.sub(" ", message))
    return bool(units) and not timeless and any(units & _impersonal_units(m) for m in memories)


# the claim alone ("I know that.", "I already know!", "我早就知道了。"), not "I know it can be hard" nor "我知道了"
# (Chinese for "got it")
_KNEW = re.compile(r"^\W*(?:(?:yes|yeah|oh|ok|okay)\W+)?i\s+(?:already\s+)?(?:know|knew|remember)"
                   r"(?:\s+(?:that|this|it|about (?:it|that)))?\W*$|^\W*i\s+already\s+(?:know|knew)\b|"
                   r"^\W*(?:是的|嗯)?\W*我(?:早就|已经)(?:知道|记得)|^\W*(?:是的|嗯)?\W*我记得|"
                   r"^\W*(?:是的|嗯)?\W*我知道(?!了)", re.IGNORECASE)


def claims_known(sentence: str, message: str, facts: Sequence[str]) -> bool:
    """Does ``sentence``, answering a statement, claim to know it already ("I know that." to "My friend Nadia is
    getting married in May.", said the first time, a new user's trial; "我早就知道了") when no recalled memory holds
    half of what the statement says? A memory that does is what the assistant knew."""
    if asks(message) or not _KNEW.search(sentence):
        return False
    said = _impersonal_units(message)
    return not any(said and len(said & _impersonal_units(f)) * 2 >= len(said) for f in facts[:-1])


def contradicts(sentence: str, message: str) -> bool:
    """Is ``sentence``, answering a statement, the statement said back with a negation it does not have ("你不会弹
    钢琴。" for "我会弹钢琴，已经学了十年。", the 0.5B in a trial; "You don't live in Hangzhou." for "I live in
    Hangzhou.") or without one it has ("好的，你吃肉。" for "我不吃肉。")? A clause of it restates the message (half
    its content units or more are the message's) and has another number of negations than the clause of the
    message it restates ("You love tea." for "I don't like coffee, but I love tea." has as many as "I love tea").
    Its other clauses ("No problem, …") and a question back are not judged."""
    if asks(message) or sentence.rstrip().endswith(("?", "？")):
        return False
    said = _impersonal_units(message)
    for clause in clauses(sentence):
        units = _impersonal_units(clause)
        if not units or len(units & said) / len(units) < 0.5:
            continue
        mine, theirs = negations(clause), negations(source_clause(clause, message))
        if mine is not None and theirs is not None and mine != theirs:
            return True
    return False


def says_back_otherwise(sentence: str, message: str) -> bool:
    """Is ``sentence``, acknowledging a statement, the statement said back with a word of it swapped for one the
    message never says ("他在温哥华工作。" for "他住在温哥华。", a fourth new user's trial; "Your brother works in
    Vancouver." for "My brother lives in Vancouver.")? A clause of it that names what the message names
    (:func:`memory.language.links.named_things`) and says it of someone ("you", "he", "你") is compared with the
    clause of the message it restates, as an extraction is (:func:`memory.language.meaning.substituted`). Adding a
    word ("…lives in Vancouver now") or leaving one out is no swap; a question back and another language than the
    message's are not judged."""
    if asks(message) or sentence.rstrip().endswith(("?", "？")) or language(message) not in ("", language(sentence)):
        return False
    named = named_things(message)
    return any(_SAYS_OF_SOMEONE.search(clause) and named_things(clause) & named
               and substituted(clause, source_clause(clause, message), message) for clause in clauses(sentence))


# a clause that says something of someone (the user, or a person the message speaks of), not a wish or a remark
# ("Congrats on the new Volkswagen!"): the persons' pronouns, a closed class
_SAYS_OF_SOMEONE = re.compile(r"\b(?:you|your|you're|you’re|he|she|they|his|her|their|he's|she's|they're)\b|你|他|她",
                              re.IGNORECASE)


# the words that order two things in time: after an English one comes the thing the other is ordered against
# ("A before B"); before a Chinese one ("B之前…A"). A closed class of the grammar of time.
_ORDER_EN = re.compile(r"\b(before|prior to|earlier than|after|later than)\b", re.IGNORECASE)
_ORDER_ZH = re.compile(r"(之前|以前|之后|以后)")
_LATER = ("after", "later than", "之后", "以后")


def reverses_order(sentence: str, times: Mapping[str, int]) -> bool:
    """Does ``sentence`` put the things of two recalled memories in the wrong time order? ``times``: each recalled
    memory's time (its event's, else when it was said). "You had a grey Kia EV6 before the Mazda 3." beside the
    Mazda said months before the Kia (my own new-user check: recall put the Mazda first, the 0.5B reversed it); "在
    起亚之前你开的是马自达" is right. A thing is what one memory names and no other recalled one does."""
    if len(times) < 2:
        return False
    markers = [(m.start(), m.end(), m.group(1).lower(), True) for m in _ORDER_EN.finditer(sentence)]
    markers += [(m.start(), m.end(), m.group(1), False) for m in _ORDER_ZH.finditer(sentence)]
    if not markers:
        return False
    things = {t: named_things(t) for t in times}
    low = sentence.lower()
    spots = []  # (position in the sentence, memory) of each thing only that memory names
    for text, names in things.items():
        own = names - frozenset().union(*(n for o, n in things.items() if o != text))
        spots += [(at, text) for name in own if len(name) > 1 and (at := low.find(name)) >= 0]
    for start, end, word, english in markers:
        ref = min((sp for sp in spots if sp[0] >= end), default=None) if english else \
            max((sp for sp in spots if sp[0] < start), default=None)
        if ref is None:
            continue
        later = word in _LATER
        if any((times[text] < times[ref[1]]) == later and times[text] != times[ref[1]]
               for _, text in spots if text != ref[1]):
            return True
    return False


def _persons_named(texts: Sequence[str]) -> set[str]:
    """The units by which ``texts`` (memories) name persons: kinship words, the names the memories give a kinship
    word or open a sentence with, and the names in a memory of someone's name ("My name is Nadia Rahimi")."""
    names = set(aliases(texts)) | {n for t in texts if (n := named_first(t)) is not None}
    names |= {n for t in texts if any(k.endswith(":name") for k in held_slots(t)) for n in named_things(t)}
    return {u for w in (*PERSON_CANON, *PERSON_CANON.values(), *names) for u in _impersonal_units(w)}


_CALENDAR_NAME = re.compile(rf"(?:{WEEKDAY_NAMES})s?|{MONTH_NAMES}", re.IGNORECASE)


def _names_as_written(text: str, other_than: str) -> list[str]:
    """The names ``text`` writes (:func:`memory.language.links.named_things`) in another language than
    ``other_than``, as written ("Graz", not "graz": e5 reads the capital)."""
    out = []
    for name in named_things(text):
        if language(name) in ("", other_than) or _CALENDAR_NAME.fullmatch(name):  # "Thursday" is a time, said in
            continue  # the time words of the other language ("每周四")
        at = text.lower().find(name)
        out.append(text[at:at + len(name)] if at >= 0 else name)
    return out


def knows_nothing_of_a_statement(sentence: str, message: str) -> bool:
    """Is ``sentence``, to a statement (nothing asked), only a claim of not knowing ("I don't know.", "You don't
    know.", "我不知道。"): "I gave up climbing… I play chess now instead." got "Got it. You don't know." (a fifth new
    user's trial)? Nothing was asked, so not knowing answers nothing; a reaction put as a question is asked."""
    if asks(message) or not _NOT_KNOWING.search(sentence):
        return False
    return not (_impersonal_units(_NOT_KNOWING.sub(" ", sentence)) - _impersonal_units("don't didn't can't"))


def in_another_language(sentence: str, message: str, sources: str) -> bool:
    """Is ``sentence`` in another language than ``message`` with words of its own: half of its content units or
    more in no source ("Karim lives in 温哥华, which is a city near Rotterdam." to "Karim现在住在哪里？", a fourth new
    user's trial)? A memory's words said back as written ("Your cat is called Pepper." to "我的猫叫什么？" beside "I
    have a cat called Pepper.") are a quotation, not an answer in the other language."""
    asked, said = language(message), language(sentence)
    if not asked or not said or asked == said:
        return False
    units = _impersonal_units(sentence)
    unsaid = units - grounding_units(sources)
    return bool(unsaid) and len(unsaid) * 2 >= len(units)


def names_only_the_reference(sentence: str, message: str) -> bool:
    """To a question ordering a thing against another ("What car did I have before the Tesla?", "我在特斯拉之前开的
    是什么车？"), does ``sentence`` name only the thing the question orders against: "You had a Tesla before it was
    sold." (my own new-user check)? The answer is another thing; a sentence naming one stands."""
    if not asks(message):
        return False
    marker = _ORDER_EN.search(message) or _ORDER_ZH.search(message)
    if marker is None:
        return False
    english = marker.re is _ORDER_EN
    reference = named_things(message[marker.end():] if english else message[:marker.start()])
    if not english and reference:  # the thing right before 之前: the last one named there
        last = max(reference, key=lambda n: message.rfind(n))
        reference = frozenset({last})
    said = named_things(sentence)
    return bool(reference and said & reference) and not (said - reference - named_things(message))


def retimes(sentence: str, message: str, facts: Sequence[str]) -> bool:
    """Is ``sentence``, answering a question, a recalled memory said back with a later time or a modality the
    memory does not have ("你将弹钢琴。" for "我会什么乐器？" beside "我会弹钢琴": what the user does became what the
    user will do; "You might play the oboe." for "I play the oboe")? A clause restates the memory sharing most of
    its content units, half of the clause's or more; a mark the question has ("What do I plan to do?") is no
    change."""
    if not asks(message):
        return False
    asked = marks(message)
    for clause in clauses(sentence):
        units = _impersonal_units(without_marks(clause))  # "可能会用" is "用" for what it shares
        best = max(facts[:-1], key=lambda f: len(units & _impersonal_units(f)), default=None)
        if best is None or not units or len(units & _impersonal_units(best)) / len(units) < 0.5:
            continue
        if (marks(clause) - marks(best) - asked) & {"a later time", "a modality (want, might, 想…)"}:
            return True
    return False


_QUESTION_WORD = re.compile(r"\b(?:who|whom|whose|what|which|where|when|why|how)\b|"
                            r"谁|什么|哪|几|怎么|怎样|多少|为什么|何", re.IGNORECASE)


def asks_what_is_remembered(message: str) -> bool:
    """Does ``message`` ask what is remembered about the user, in general ("What do you remember about me?", "你记得
    我什么？", "What else do you know about me?"): a question of knowing about the user and nothing else?"""
    return asks(message) and bool(re.search(r"\b(?:remember|know|recall)\b|记得|知道|了解", message, re.IGNORECASE)) \
        and about_the_user_in_general(message)


def says_only_the_question(sentence: str, message: str) -> bool:
    """Is ``sentence`` the question's own words given back as an answer ("Priya." for "What is Priya's surname?",
    bench answers; "李伟在航空公司。" for "李伟在哪家航空公司？")? It asks with a question word, and every content word
    of the sentence is one of the question's. A yes-or-no question is not judged ("Do I live in Oslo?": "You live
    in Oslo.")."""
    if not asks(message) or not _QUESTION_WORD.search(message):
        return False

    def said(text: str) -> set[str]:
        # names of any length ("Dr. Li"); Chinese by characters, numerals kept (bigrams count the joins: "在航" of
        # "李伟在航空公司"; "一" of "你养了一只猫。" is the answer to "我养了几只猫？")
        return {u for u in _impersonal_units(text) if u.isascii()} | {
            w.lower() for w in re.findall(r"\b[A-Z][a-z]?\b", text) if w not in ("I", "A")} | {
            c for c in text if CJK.match(c) and (c not in FUNCTION_CHARS or c in "一两")}

    units = said(sentence)
    return bool(units) and units <= said(message)


# A statement with a tag question after it ("The weather is so grey today, isn't it?", "今天好冷，对吧？").
_TAGGED = re.compile(r",\s*(?:(?:isn't|aren't|wasn't|weren't|don't|doesn't|didn't|won't|can't|haven't|hasn't)"
                     r"\s+(?:it|they|you|he|she|we|there|that)|right|eh|huh|no)\s*\?+\s*$|"
                     r"[，,]\s*(?:对吧|是吧|是不是|对不对|不是吗)[？?]+\s*$", re.IGNORECASE)


def reaction(message: str) -> bool:
    """Is ``message`` a reaction put as a question ("wild, right?", "really?", "真的吗？"): no question word, two
    content words or fewer, nothing of the user's life asked? Or a remark with a tag question ("The weather is so
    grey today, isn't it?": a seventh new user's trial was told "You haven't told me that"), not of the user ("I live
    in Oslo, right?" asks to confirm)? It asks for no fact: it is answered as small talk."""
    if not asks(message) or _asks_of_the_users_life(message):
        return False
    return bool(_TAGGED.search(message) and not FIRST_PERSON.search(message)) or (not _QUESTION_WORD.search(message)
                                             and len(_impersonal_units(message)) <= 2)


def commentary(sentence: str, message: str, sources: str) -> bool:
    """Is ``sentence``, in the answer to a statement (not a question), the model's own addition: three content
    words or more in no source, half of its own or more? "Oolong tea is now available at your local market." for
    "I switched from oolong tea to coffee now." (oolong, tea and now said; available, local and market not; "Enjoy
    the new Tesla Model 3!" adds two, a wish, not a claim); "Green tea is a popular beverage that has been enjoyed
    by many people around the world for centuries." for "I live in Hangzhou and I love green tea.": a statement is
    acknowledged, not lectured on. So is a :func:`reaction` put as a question ("wild, right?" got
    "Wild is indeed a term that can refer to various animals or plants.", bench answers' test split; "真的吗？"). A
    short acknowledgement ("Nice!", "Got it") and a sentence in another language than the message are not judged."""
    if asks(message) and not (reaction(message) and not _FIRST_PERSON_EN.search(sentence) and "我" not in sentence):
        return False  # "I'm doing well, thanks." to "How are you today?" is the assistant's own
    if language(message) not in ("", language(sentence)):
        return False
    units = {u for u in _impersonal_units(sentence) if not u.isdigit()}
    novel = units - grounding_units(sources)
    return len(novel) >= 3 and len(novel) * 2 >= len(units)


# A question asking when, and the words that say when beside what the time parser resolves (a weekday or a season
# recurs and resolves to no window): question words and time words, the grammar of time, not subjects.
_ASKS_WHEN = re.compile(r"\bwhen\b|\bwhat (?:time|date|day|year|month)\b|\bwhich (?:day|date|year|month)\b|"
                        r"\bhow long ago\b|什么时候|哪天|哪一天|几号|几点|哪年|哪一年|几月|何时", re.IGNORECASE)
_SAYS_WHEN = re.compile(r"\d|[一二三四五六七八九十两]+\s*[月日号点年]|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|"
                        r"\b(?:spring|summer|autumn|fall|winter|morning|afternoon|evening|night|weekends?|daily|"
                        r"weekly|monthly|yearly|ago|since|until|before|after)\b|"
                        r"[春夏秋冬]天|[春夏秋冬]季|周[一二三四五六日天末]|星期|礼拜|早上|上午|中午|下午|晚上|每天|"
                        r"以前|之前|之后|以后|年前|月前|天前", re.IGNORECASE)


# A question asking for a number (how many, how old, a phone number, 多少, 几岁) and the words that say one: the
# grammar of quantity, not subjects.
_ASKS_NUMBER = re.compile(r"\bhow (?:many|much|old|tall)\b|\bnumbers?\b|多少|号码|"
                          r"几[个岁次口只本辆位条台张]?[?？]|几[个岁次口只本辆位条台张]", re.IGNORECASE)
_SAYS_NUMBER = re.compile(r"\d|[零一二三四五六七八九十百千万两半几]|\b(?:zero|one|two|three|four|five|six|seven|"
                          r"eight|nine|ten|eleven|twelve|(?:thir|four|fif|six|seven|eigh|nine)teen|"
                          r"(?:twen|thir|for|fif|six|seven|eigh|nine)ty|hundred|thousand|a dozen|once|twice|a few|"
                          r"several|none|no)\b", re.IGNORECASE)  # not "city", "party"


# A question asking where, and the words that say a place: a preposition of place before a noun or a name (not a
# time: "on Tuesday", "in 2019", "at night"), a place adverb, or, in Chinese, a verb or preposition of place before
# a word (permissive: "在" is also "-ing"; a sentence wrongly read as saying a place only stands, as before). The
# grammar of place, not a list of places.
_ASKS_WHERE = re.compile(r"\bwhere\b|\bwhich (?:city|country|town|place|shop|store|street|address)\b|"
                         r"哪里|哪儿|在哪|去哪|什么地方|哪个(?:城市|地方|国家|省|区|店)|哪座|哪家", re.IGNORECASE)
_TIME_NOUN = (r"(?:morning|afternoon|evening|night|noon|midnight|weekends?|week|month|year|moment|time|"
              rf"(?:{WEEKDAY_NAMES})s?|{MONTH_NAMES}|spring|summer|autumn|fall|winter|past|future|end|beginning|"
              r"start|middle|same)\b")
_SAYS_WHERE = re.compile(
    r"\b(?:in|at|from|near|inside|outside|behind|beside|opposite|around|across|on|next to|close to|off)\s+"
    r"(?:the\s+|a\s+|an\s+|my\s+|your\s+|our\s+|their\s+|his\s+|her\s+|its\s+|one of\s+)?(?!\d)(?!"
    + _TIME_NOUN + r")[^\W\d_]|"
    r"\b(?:to|for|with|via)\s+(?:the\s+)?[A-Z]|"
    r"\b(?:home|downtown|abroad|online|nearby|locally|overseas|upstairs|downstairs)\b|"
    r"\b(?:located|address)\b|"
    # not a demonstrative, which says no place to a question asking which ("你住在那里。" to "我住在哪个城市？": a
    # sixth new user's trial; "there", "here")
    r"(?:住在|位于|搬到了?|搬去了?|来自|(?<![现正实存所自])在|到了?|从|去了?)(?![那这哪](?:里|儿|边))[\u4e00-\u9fff]{2}|"
    r"网上|线上|附近|本地|"
    r"(?:地点|地址|位置|地方|城市|国家)(?:是|为|在)", re.IGNORECASE)


def asks_where(message: str) -> bool:
    """Does ``message`` ask where something is or was ("Where did I buy my bike?", "我在哪里上班？"), and nothing
    else ("…where I live and what I drive?" may be answered a sentence at a time)?"""
    return (asks(message) and bool(_ASKS_WHERE.search(message))
            and len(_QUESTION_WORD.findall(message)) == len(_ASKS_WHERE.findall(message)))


def says_where(sentence: str) -> bool:
    """Does ``sentence`` say a place ("…in Canary Wharf", "…at a local shop", "…online", "你住在里昂")?"""
    return bool(_SAYS_WHERE.search(sentence))


# A question asking for a name ("What is my mum's name?", "What's my new street called?", "我妈妈叫什么？"), and a
# sentence that gives one: a capitalised word or a quoted title after the words that name, a Chinese word after 叫
_ASKS_NAME = re.compile(r"\bnames?\b|\bcalled\b|\bsurname\b|叫什么|名字|姓什么|什么名", re.IGNORECASE)
_SAYS_NAME = re.compile(r"\b(?:is|are|was|were|named|called|name's|name’s)\s+(?:the\s+|a\s+)?"
                        r"[A-Z0-9\"“'‘\u3400-\u9fff]|,\s+[A-Z][\w'’-]+,|叫[^，。,.！？!?]|名字是|名叫|姓[\u4e00-\u9fff]|[《“「\"]")


def asks_name(message: str) -> bool:
    """Does ``message`` ask for a name, and nothing else (as :func:`asks_where`)?"""
    return (asks(message) and bool(_ASKS_NAME.search(message))
            and len(_QUESTION_WORD.findall(message)) <= 1)


_NAMED_NOUN = re.compile(r"\b([a-z]+)(?:'s|’s)?\s+(?:name|surname|called)\b|\b([a-z]+)\s+(?:is|was)\s+called\b")


def says_name(sentence: str, message: str = "") -> bool:
    """Does ``sentence`` give a name ("Her name is Mary.", "It's called Leith Walk.", "她叫王芳。"), or a capitalised
    word right after the noun ``message`` asks the name of ("Your cat Pickles…" to "What is my cat called?")?"""
    if _SAYS_NAME.search(sentence) or re.search(r"(?:'s|’s)\s+(?:called\s+|named\s+)?[A-Z\u3400-\u9fff\"“]",
                                                  sentence):  # "It's Biscuit."
        return True
    first = re.match(r"\W*([A-Z][\w'’-]*)", sentence)  # "Biscuit is your cat.", "Biscuit."
    if first is not None and first.group(1).lower() not in FUNCTION_OPENERS and \
            first.group(1).lower() not in message.lower():
        return True
    nouns = {n for m in _NAMED_NOUN.finditer(message) for n in m.groups() if n and n not in ("my", "your", "is")}
    return any(re.search(rf"\b{re.escape(n)}s?\s+[A-Z][\w'’-]*", sentence) for n in nouns)


# A question asking who, of the user's life ("读书会是谁组织的？", "Who fixed my bike?"; not "Who are you?")
_ASKS_WHO = re.compile(r"\bwho(?:m|se)?\b|谁", re.IGNORECASE)


def answers_who_as_itself(sentence: str, message: str) -> bool:
    """To a question asking who, a sentence in the first person that does not speak to the user: the user's voice
    or the assistant naming itself ("我组织的书籍是《活着》，好虐。" to "读书会是谁组织的？": bench answers, dev
    split). Nobody the user asks about is the assistant."""
    if not (asks(message) and _ASKS_WHO.search(message)) or _SECOND_PERSON.search(message):
        return False
    return _first_person_only(sentence)


# what the assistant says of itself answering: that it remembers, knows, is unsure, was not told (either language)
_ITS_OWN = re.compile(r"\b(?:remember|recall|know|knew|sure|think|believe|told|mention\w*|noted|understand|see|"
                      r"have no|don't have|can't|cannot|afraid|sorry|guess|help|assist\w*)\b|"
                      r"记得|记住|知道|确定|清楚|告诉|提到|明白|抱歉|不好意思|认为|觉得|猜|帮", re.IGNORECASE)


# the assistant saying that it does not know or remember, or was not told (either language)
_NOT_KNOWING = re.compile(r"\b(?:don't|don’t|do not|did not|didn't|can't|can’t|cannot|not|no|never)\s+(?:\w+\s+)?"
                          r"(?:remember|recall|know|sure|told|idea|mentioned|record)\b|"
                          r"不记得|记不得|记不清|想不起|不知道|不确定|不清楚|没有?(?:告诉|提到|提过|说过)",
                          re.IGNORECASE)


def answers_as_the_user(sentence: str, message: str) -> bool:
    """To a question about the user's life that is not asked of the assistant, a sentence in the first person
    that does not speak to the user and says nothing of the assistant's own remembering or knowing: the user's
    voice, whatever memory it came from ("I'm a quality manager at a pharmaceutical company." to "What's my job at
    the moment?" beside the Chinese memory of it; "I am a male." to "What's my blood type?": a fourth new user's
    trial): it is judged as the user's life and said to the user."""
    if not (asks(message) and _asks_of_the_users_life(message)) or _SECOND_PERSON.search(message):
        return False
    return _first_person_only(sentence) and not _ITS_OWN.search(sentence)


# The model saying it was not told in the prompt's words ("…is not specified in the given facts", "提供的信息中没有
# 提到"): an answer that the user reads as about a prompt they never saw. It is the plain "not told", said plainly.
_PROMPT_ABSTAINS = re.compile(
    r"\bnot\s+(?:specified|mentioned|provided|given|stated|listed|included|available|found|indicated)\s+"
    r"(?:in|by|among|within)\s+(?:the\s+|any\s+of\s+the\s+)?(?:given|provided|above|available|recalled|stored|"
    r"supplied)?\s*(?:facts?|information|memories|memory|context|data|details|text|notes)\b|"
    r"(?:提供的|给出的|给定的|已知的|上述)(?:信息|资料|记忆|事实|内容)(?:中|里)?(?:没有|未|并未|并没有)", re.IGNORECASE)


def asks_number(message: str) -> bool:
    """Does ``message`` ask for a number ("What's my phone number?", "How many cats do I have?", "我几岁？")?"""
    return asks(message) and bool(_ASKS_NUMBER.search(message))


# a time of day or a date as numbers say it in Chinese ("10点04分", "12月4日", "周五") and the copula before it
_TIME_SAID = re.compile(r"(?:是|为)?[\d零一二三四五六七八九十两]+\s*[点时分秒号日月年]半?|"
                        r"每?(?:周|星期|礼拜)[一二三四五六日天]|\bcurrent(?:ly)?\b|\bat the moment\b|目前|此刻|当前",
                        re.IGNORECASE)
_NOW = datetime(2000, 1, 1, tzinfo=UTC)  # any clock: the parser only has to find a time phrase, not resolve it


def asks_when(message: str) -> bool:
    """Does ``message`` ask when something is or was ("When is my cat's birthday?", "我的生日是哪天？")?"""
    return asks(message) and bool(_ASKS_WHEN.search(message))


def says_when(sentence: str, now: datetime | None = None) -> bool:
    """Does ``sentence`` say a time: a date, a number, a weekday, a season, a time phrase the parser resolves?"""
    if _SAYS_WHEN.search(sentence):
        return True
    return now is not None and parse_time_window(sentence, now) is not None


@cache
def _own_spans() -> tuple[str, ...]:
    """The sentences of the plain answers (:data:`REMEMBERED`, :data:`NOT_TOLD`, :data:`NOTED`, :data:`RECALLED`),
    longest first."""
    spans = {p.strip() for said in (REMEMBERED, NOT_TOLD, NOTED, RECALLED, TOLD, TOLD_UNSURE)
             for text in said.values()
             for p in sentence_spans(text) if p.strip()}
    return tuple(sorted(spans, key=len, reverse=True))


def _dangling(sentence: str) -> bool:
    """Is ``sentence`` one of the plain answers' openings alone ("I'm not sure;", "what I remember is:"), or any
    sentence that ends opening what never comes ("You're not sure;", the final replay of a third new user's trial)?"""
    if sentence.rstrip().endswith((";", ":", "；", "：")):
        return True
    own = _own_opening(sentence)
    return own is not None and not any(c.isalnum() for c in sentence.lstrip()[len(own):]) and \
        own.rstrip().endswith((";", ":", "；", "："))


def _own_opening(sentence: str) -> str | None:
    """The plain answers' sentence ``sentence`` opens with (any case, either apostrophe), or None."""
    said = sentence.lstrip().replace("’", "'").lower()
    return next((p for p in _own_spans() if said.startswith(p.lower())), None)


_CLOCK_LINE = re.compile(r"(\d{4}-\d{2}-\d{2}) (\d{1,2}:\d{2}) ([A-Z][a-z]+day)\b")  # :func:`clock_words`


# the words around a question that ask nothing themselves ("What time is it right now?", "Can you tell me the
# date?", "请问现在几点了？")
_COURTESY = re.compile(r"\b(?:right|exactly|currently|please|tell|can|could|would|know|do|again|the)\b|"
                       r"请问|请|告诉我|知道|一下", re.IGNORECASE)


def asks_the_time(message: str) -> bool:
    """Does ``message`` ask the time or the date and nothing else ("What time is it?", "今天几号？", "What day is it
    today?"): a question whose words are all time words? "What's the weather like today?" asks the weather."""
    timeless = _QUESTION_WORD.sub(" ", _SAYS_WHEN.sub(" ", _ASKS_TIME.sub(" ", _TIME_SAID.sub(" ", message))))
    left = {u for u in _impersonal_units(_COURTESY.sub(" ", timeless)) if not (len(u) == 1 and CJK.match(u))}
    return asks(message) and not _asks_of_the_users_life(message) and not left


UNSUPPORTED = "cut a sentence about today or the user that nothing given to the model supports"
RETIMED = "cut a sentence that says a memory back with a later time or a modality it does not have"
REORDERED = "cut a sentence that gets the time order of the memories wrong"


@lru_cache(maxsize=8)
def _first_person_questions(sources: str) -> tuple[str, ...]:
    """The questions in the first person ``sources`` say (normalised, without the question mark): read once for
    all the sentences of an answer, which are checked against the same sources."""
    return tuple(normalized(p).rstrip("?？ ") for line in sources.splitlines() for p in sentences(line)
                 if p.rstrip().endswith(("?", "？")) and FIRST_PERSON.search(p))


def repeats_a_question(sentence: str, sources: str) -> bool:
    """Is ``sentence`` a question in the first person that a source says word for word: a user's question of the
    session said back ("Got it. What's my favourite restaurant? What instrument do I play?" to "Oh and I sold the
    Skoda…", a third new user's trial: the session's earlier questions, copied)?"""
    if not sentence.rstrip().endswith(("?", "？")):
        return False
    said = normalized(sentence).rstrip("?？ ")
    asked = _first_person_questions(sources)
    # word for word, or a piece of one ("拉大提琴多久了？" of "我拉大提琴多久了？")
    return bool(said) and ((FIRST_PERSON.search(sentence) is not None and said in asked)
                           or (len(said) >= 4 and any(said in q and said != q for q in asked)))


# "You're Pistachio from Porto", "You're a cello.": the word is what the user is said to be (not "a Lyon resident")
_YOU_ARE = re.compile(r"^\W*(?:you're|you’re|you are)\s+(?:(?:a|an|the)\s+)?"
                      r"(?:(?![\w'’-]*ing\b|to\b)[^\W\d_][\w'’-]*\s+){0,3}?"  # not a verb's: "going to use"
                      r"([^\W\d_][\w'’-]*)"  # the head of a phrase of up to four words: "a white Kia Niro"
                      r"(?=\s*(?:[,.!?;:]|$)|\s+(?:from|in|at|with|and|who|that|of)\b)|^\W*你是"
                      r"(?:一[个位名只辆把台])?([A-Za-z][\w'’-]*|[\u4e00-\u9fff]{2,4})", re.IGNORECASE)
# the user saying who or what they are: "I'm …", "I work as …", "my name is …", "我是…", "我叫…", "我当…"
_IDENTITY = (r"(?:\bI'm|\bI’m|\bI am|\bI was|\bI work as|\bI'm working as|\bmy name is|\bcall me|\bthe user is|"
             r"我是|我叫|我当|我做)")


def equates_the_user(sentence: str, sources: str) -> bool:
    """Does ``sentence`` say the user is what a source names only as something of theirs ("You're Pistachio from
    Porto" for "I have a grey cat called Pistachio", "You're a cello from Porto" for "I've played the cello for
    twelve years", "You're an octavia…" for "I drive an old blue Skoda Octavia", "You're a white Kia Niro.": a third
    new user's trial; of a phrase, its last word)? Judged
    when the word after "you are" / "你是" is in a source and no source has the user say they are it ("I'm Maren
    Holt", "I work as a marine biologist", "我是老师")."""
    m = _YOU_ARE.match(sentence)
    if m is None:
        return False
    word = m.group(1) or m.group(2)
    named = rf"(?<!\w){re.escape(word)}(?!\w)" if word.isascii() else re.escape(word)
    if word.lower().endswith("ing") or not grounding_units(word) or not re.search(named, sources, re.IGNORECASE):
        return False
    said_to_be = rf"{_IDENTITY}\s*(?:[\w'’,-]+\s+){{0,6}}?{re.escape(word)}" if word.isascii() else \
        rf"{_IDENTITY}[^，,。.！!？?]{{0,6}}{re.escape(word[:2])}"
    return not re.search(said_to_be, sources, re.IGNORECASE)


_MARKDOWN = re.compile(r"\*\*|__|^\s*(?:[-*•]|\d{1,2}[.)])\s+(?=\S)|^\s*\d{1,2}[.)]\s*$")
# an English number word in a Chinese sentence, next to its Chinese ("twelve年"): said in figures
_EN_NUMBER_IN_ZH = re.compile(r"\s*(?<![A-Za-z])(" + "|".join(EN_NUMERALS) + r")(?![A-Za-z])\s*(?=[\u4e00-\u9fff])",
                              re.IGNORECASE)


def check_sentence(sentence: str, message: str, *, sources: str | None, facts: Sequence[str], now: str = "",
                   replaced: Mapping[str, str] | None = None, restates: Restates | None = None,
                   times: Mapping[str, int] | None = None) -> tuple[str | None, str]:
    """One sentence of an answer as :func:`check_answer` keeps it (None: cut) and why it changed ("" if not).
    Punctuation alone is no sentence. A sentence opening with one of the plain answers' own sentences (a model
    copies "I'm not sure; what I remember is: …" from the session's earlier turns) keeps that opening as the
    assistant's words and is judged by the rest ("what I remember is: I drove…" is not the user's voice)."""
    if not any(c.isalnum() for c in sentence):
        return None, ""
    sentence = _MARKDOWN.sub("", spaced(sentence))  # "**现在**：…", "3. ": a chat answer is plain text
    if not any(c.isalnum() for c in sentence):
        return None, ""
    if language(sentence) == "zh":  # "你拉大提琴的时间是 twelve年。" (a third new user's trial): a number in figures
        sentence = _EN_NUMBER_IN_ZH.sub(lambda m: str(EN_NUMERALS[m.group(1).lower()]), sentence)
    stripped = sentence.lstrip()
    own = _own_opening(sentence)
    if own is not None:
        lead = sentence[:len(sentence) - len(stripped) + len(own)]
        rest = sentence[len(lead):]
        if not any(c.isalnum() for c in rest):
            return sentence, ""
        out, why = check_sentence(rest, message, sources=sources, facts=facts, now=now, replaced=replaced,
                                  restates=restates, times=times)
        return (None if out is None else lead + out), why
    if sources is not None and asks(message) and _PROMPT_ABSTAINS.search(sentence):
        # 'Your waist size is not specified in the given facts.' (bench answers, dev split)
        return NOT_TOLD[language(message) or "en"], "said that it was not told in the user's words, not the prompt's"
    if any(opener.fullmatch(sentence) and not fits.search(message) for opener, fits in _OPENERS):
        return None, "cut an opener the message gives no reason for"  # '不客气！' alone, to '嗯嗯，懂了'
    if sources is not None and repeats_a_question(sentence, sources):
        return None, "cut a question of the user's said back"
    if sources is not None and equates_the_user(sentence, sources):
        return None, "cut a sentence that says the user is one of their own things"
    if sources is not None and knows_nothing_of_a_statement(sentence, message):
        return None, "cut a claim of not knowing, to a statement that asks nothing"
    if sources is not None and in_another_language(sentence, message, sources):
        return None, "cut a sentence in another language than the message's that no memory says"
    if sources is not None and times and reverses_order(sentence, times):
        return None, REORDERED
    if sources is not None and names_only_the_reference(sentence, message):
        return None, REORDERED
    older = stale(sentence, replaced) if replaced and sources is not None else None
    if older is not None:
        return None, f"cut a sentence that states {older!r}, which a newer memory replaced"
    if sources is not None and unsupported(sentence, message, allowed_sources(sources, message, now), facts,
                                           restates):
        return None, UNSUPPORTED
    if sources is not None and says_only_the_question(sentence, message):
        return None, "cut a sentence that gives the question's own words back as its answer"
    if sources is not None and misplaced(sentence, message, facts):
        return None, "cut a sentence that puts a memory's value under another thing than the memory says"
    if sources is not None and off_topic(sentence, message, facts):
        return None, "cut a sentence about something else than the question"
    if sources is not None and asks_when(message) and not says_when(sentence, _NOW):
        # 'Your cat Pickles is a ginger tabby.' for 'When is my cat's birthday?': no answer; the plain one says so
        return None, "cut a sentence that says no time, to a question asking when"
    # the assistant saying it does not know ("I don't remember that.") answers any question
    own_no = bool(_NOT_KNOWING.search(sentence))
    if sources is not None and not own_no and asks_where(message) and not says_where(sentence):
        # 'You bought your bike by bike, a green Brompton.' for 'Where did I buy my bike?': no answer
        return None, "cut a sentence that says no place, to a question asking where"
    if sources is not None and not own_no and answers_who_as_itself(sentence, message):
        return None, "cut a sentence that answers who in the first person"
    if sources is not None and not own_no and asks_name(message) and not says_name(sentence, message):
        # 'Your mum lives in Cork and loves gardening.' for 'What is my mum's name?' (bench answers, dev split)
        return None, "cut a sentence that gives no name, to a question asking one"
    if sources is not None and asks_number(message) and not _SAYS_NUMBER.search(sentence):
        # 'You have a Pixel phone.' for 'What's my phone number?': no answer; the plain one says what it knows
        return None, "cut a sentence that says no number, to a question asking one"
    if sources is not None and recites(sentence, message, facts):
        return None, "cut a memory read out to a message that is not about it"
    if sources is not None and claims_known(sentence, message, facts):
        return None, "cut a sentence that claims to know already what nothing recalled says"
    if sources is not None and retimes(sentence, message, facts):
        return None, RETIMED
    if sources is not None and contradicts(sentence, message):
        return None, "cut a sentence that says the statement back with its negation changed"
    if sources is not None and says_back_otherwise(sentence, message):
        return None, "cut a sentence that says the statement back with a word of it swapped"
    if sources is not None and commentary(sentence, message, sources):
        return None, "cut a remark on a statement or a reaction that adds what nothing said"
    if sources is not None and says_nothing_given(sentence, message, allowed_sources(sources, message, now), facts,
                                                  restates):
        return None, UNSUPPORTED
    if sources is not None and pieced_together(sentence, facts):
        return None, "cut a sentence in the first person pieced together from several memories"
    if sources is not None and given_to_the_user(sentence, facts):
        return None, "cut a sentence that makes the user the one another person's fact is about"
    if sources is not None and given_to_another(sentence, message):
        return None, "cut a sentence that gives what the user said of themselves to another person"
    allowed = allowed_sources(sources or "", message, now)
    made_up = [] if sources is None else (
        invented(sentence, allowed, chinese=asks(message))
        or (["the prompt's time"] if _STAMP.search(sentence) else []))
    others = _in_other_languages(sentence, facts) if made_up and restates is not None else []
    if others and restates is not None:  # a name written in the other language: "Hamburg" of a memory's 汉堡
        theirs = {f: _names_as_written(f, language(sentence)) for f in others}
        named = [w for w in made_up if language(w) and any(c.isalpha() for c in w) and not any(c.isdigit() for c in w)
                 and restates.same_name(w, [n for names in theirs.values() for n in names])]
        made_up = [w for w in made_up if w not in named]

        def rendered(memory: str) -> bool:  # each name it writes is in the sentence, as written or rendered
            return all(n.lower() in sentence.lower() or (named and restates.same_name(n, named))
                       for n in theirs[memory])

        # only Chinese words jieba calls names ("摩托车", "攀岩", "起亚"), in a sentence that says what a memory in
        # the other language says and renders its names: a translation's words, which no source can share.
        # Figures and Latin words a translation keeps are still checked, and a memory's name the sentence does
        # not render makes it none ("Tomas在维也纳开了自己的餐厅。" beside "Tomas opened his own restaurant in Graz.")
        if made_up and not invented(sentence, allowed, chinese=False) and any(
                rendered(f) and restates(sentence, [f]) for f in others):
            made_up = []
    if made_up:
        return None, f"cut a sentence with {', '.join(repr(w) for w in made_up[:3])} that nothing said"
    if speaks_as_user(sentence, facts) or (sources is not None and answers_as_the_user(sentence, message)):
        if takes_over(sentence, facts):
            return None, "cut a sentence that makes the user the one another person's fact is about"
        turned = second_person(sentence)
        if turned != sentence and given_to_the_user(turned, facts):
            # turned to the user, it says another person's fact of them: "Your sister lives in Tromsø, where I work
            # as a radiologist." became "…where you work as a radiologist." (a third new user's trial)
            return None, "cut a sentence that makes the user the one another person's fact is about"
        if turned != sentence:
            return turned, "said to the user, not as the user"
    return sentence, ""


@cache
def _not_told_sentences() -> frozenset[str]:
    return frozenset(" ".join(p.split()).lower() for t in NOT_TOLD.values() for p in sentence_spans(t))


def _not_told(sentence: str) -> bool:
    """Is ``sentence`` one of the plain answer's "You haven't told me that…" sentences?"""
    return " ".join(sentence.split()).lower() in _not_told_sentences()


def check_answer(answer: str, message: str, *, sources: str | None, facts: Sequence[str], now: str = "",
                 replaced: Mapping[str, str] | None = None, cut_stale: Sequence[str] = (),
                 drew_on: str = "", restates: Restates | None = None,
                 times: Mapping[str, int] | None = None) -> Checked:
    """``answer`` without the sentences that hold a number, date or name none of ``sources`` gives (None: not
    checked, for a model with knowledge of its own), and with a sentence that speaks as the user turned to the
    user ("I live in…" -> "You live in…"). ``now``: the current date, a source only when the message asks about
    time or today. ``facts``: the recalled memories, best first, then the message. When nothing is left, a plain
    answer: an acknowledgement (a statement), the best memory (a question recall found something for) or that
    the user has not said. ``replaced``: memories a newer one replaced, with it (:func:`replacements`): a
    sentence restating one is cut and the plain answer states the newer one. ``cut_stale``: the replaced
    memories whose restatement was already cut (a stream's sentences, :class:`SentenceGuard`). ``drew_on``: an
    answer thrown away for repeating an earlier one word for word, which passed every check: the memory it drew on
    is the plain answer's, as for a cut one ("You commute by bike, a green Brompton." to "How do I get to work?",
    after the same words to "Where did I buy my bike?": bench answers). ``restates``: a judge of whether a sentence
    says what one of some memories in another language says (:func:`memory.embeddings.restates`); without one, a
    sentence beside such a memory is not judged as unsupported. ``times``: each recalled memory's time (event, else
    recorded), to cut a sentence that orders two of them the wrong way (:func:`reverses_order`)."""
    kept: list[str] = []
    changes: list[str] = []
    stale_cut = list(cut_stale)
    embellished: list[str] = [drew_on] if drew_on else []  # cut for saying more than any memory: on its topic?
    for sentence in sentence_spans(answer):
        if not sentence.strip():
            continue
        out, why = check_sentence(sentence, message, sources=sources, facts=facts, now=now, replaced=replaced,
                                  restates=restates, times=times)
        if why:
            changes.append(why)
        if why in (UNSUPPORTED, RETIMED):
            embellished.append(sentence)
        if out is None and replaced and (older := stale(sentence, replaced)) is not None:
            stale_cut.append(older)
        if out is not None:
            kept.append(out)
    # "You haven't told me that, so I don't know. Your sister Anika just got engaged in Toronto." (a new user's
    # trial: the model copied the plain answer from the session, then answered): the answer that stands is told
    while kept and _dangling(kept[-1]):  # "I'm not sure;" with what it opened cut: no answer (a new user's trial)
        kept.pop()
        changes.append("cut an opening left without what it opens")
    told = [k for k in kept if not _not_told(k)]
    if told and len(told) < len(kept):
        changes.append("cut a sentence saying it was not told beside one that answers")
        kept = told
    text = "".join(k if not n or kept[n - 1][-1:].isspace() or k[:1].isspace() or CJK.match(k[:1]) else " " + k
                   for n, k in enumerate(kept)).strip()  # as SentenceGuard shows them
    if not text:
        said = language(message) or "en"
        # what the question is about: its words, less the user and the time it asks at ("现在" of
        # "我现在在哪里工作？" is in "她现在在阳光小学读书", which is not about work: the new-user trial got it)
        # and less the words that ask what kind of answer ("old" of "How old am I?" is in "I drive an old blue
        # Skoda", which says no age: a third new user's trial got that car as the answer)
        asking = _ASKS_TIME.sub(" ", re.sub(r"我们?|\b(?:I|my|me|mine)\b", " ", message, flags=re.IGNORECASE))
        for pattern in ASKED_SLOTS.values():
            asking = pattern.sub(" ", asking)
        asked = grounding_units(asking)
        # about whom it asks first: "Where am I living these days?" beside "My sister Ingrid lives in Tromsø" (ranked
        # first) and "I moved to Lyon last month!" is the move (a third new user's trial got the sister's home)
        changed = changes_of(message)  # "I moved to Lyon" states a change of where the user lives, sharing no word
        sharing = [f for f in facts[:-1] if asked & grounding_units(f) or any(c.search(f) for c in changed)]
        about = next((f for f in sharing if same_holder(message, f, known=True)), sharing[0] if sharing else None)
        # none shares a word with the question, but the model's cut answer drew on one: "You ride your Brompton to
        # work every day." for "How do I get to work?" beside "I commute by bike, a green Brompton" (bench answers)
        # shared words cannot tell across languages; the slot the question asks can, read from the memories
        # ("我妹妹住在哪里？" beside "My sister Hana lives in Prague and teaches maths." and "Hana quit teaching",
        # recall's first: my own new-user check got the baker)
        # nor in one language: "What's my job?" beside "I work as a pharmacist in Graz" (job, work)
        wanted = asked_slots(message, alias := aliases(facts[:-1]))
        if about is None and wanted:
            about = next((f for f in facts[:-1] if holds(f, wanted, alias)), None)
        drew = _impersonal_units(" ".join(embellished)) - _impersonal_units(message)
        # not by whom it named: "Your blood type is the same as your friend Karim." (never told) drew on nothing of
        # "My friend Karim lives in Vancouver" but the friend (a fourth new user's trial answered that memory)
        drew -= _persons_named(facts[:-1])
        about = about if about is not None or not drew else max(
            (f for f in facts[:-1] if drew & _impersonal_units(f)), key=lambda f: len(drew & _impersonal_units(f)),
            default=None)
        # the question was about what the model restated from an older memory, when recall put that memory's chain
        # first: "我现在住在哪里？" got the stale job (recall's fifth) said back, and its newer job was answered
        top = facts[0] if len(facts) > 1 else None
        asked_of = next((s for s in stale_cut if top is not None and top in (s, (replaced or {}).get(s))), None)
        about = about if about is not None else asked_of
        # the model ordered two memories the wrong way round, to a question ordering them ("What car did I have
        # before the Volkswagen?"): recall put the memories before the one it names first (recall.before_named)
        if REORDERED in changes and top is not None and (_ORDER_EN.search(message) or _ORDER_ZH.search(message)):
            about = top
        # shared words cannot tell across languages: "我现在住在哪里？" beside "I moved from Lisbon to Madrid", recall's
        # first (its vectors are of both languages) when it is the newest word of a change (a question about now
        # ranks a change first for what changed), said unsure; not any memory in the other language ("How old am
        # I?" beside "感谢听我说这些" is not told)
        top_said = language(top) if top is not None else None
        if about is None and top is not None and top_said and top_said != language(message) and \
                _asks_of_the_users_life(message) and top in (replaced or {}).values():
            about = top
        about = (replaced or {}).get(about, about) if about is not None else None
        # the model answered from an older memory, and this is the newest word on it: the answer, not a guess
        newer = asked_of is not None and about == (replaced or {}).get(asked_of)
        clock = _CLOCK_LINE.match(now)
        if not asks(message) or reaction(message):  # "wild, right?" was not asked for a fact
            text = WELCOME[said] if thanks(message) else NOTED[said]
        elif clock is not None and asks_the_time(message):  # the clock says it: "What time is it?", "今天几号？"
            date, time, weekday = clock.groups()
            zh_weekday = re.search(r"星期[一二三四五六日]", now)
            text = (f"现在是{date} {time}，{zh_weekday.group(0)}。" if said == "zh" and zh_weekday else
                    f"It is {time} on {weekday}, {date}.")
        elif asks_what_is_remembered(message) and (current := _current_memories(facts[:-1], replaced)):
            told = [told_in_another_language(f, said) or _ended(second_person(f).strip())
                    for f in current[:3]]  # recall's first three, said to the user
            text = RECALLED[said] + "".join(t if not n or (said == "zh" and not t.startswith("“")) else " " + t
                                            for n, t in enumerate(told))
        elif about is not None:  # the best memory that shares a word with the question, plainly, said to the user
            # unsure whether a memory sharing a word answers; sure when it is the newest word on what the model
            # answered from an older one ("Where do I live now?": "You moved from Porto to Lisbon.")
            if (as_said := told_in_another_language(about, said)) is not None:
                text = (TOLD if newer else TOLD_UNSURE)[said] + as_said
            else:
                quoted = _ended(second_person(about).rstrip())
                text = quoted if newer else REMEMBERED[said] + quoted
        else:
            text = NOT_TOLD[said]
        return Checked(text=text, changes=tuple(changes))
    return Checked(text=text, changes=tuple(changes))


def _ended(text: str) -> str:
    """``text`` with a full stop when it has none ("。" after a Chinese character)."""
    if text.endswith((".", "!", "?", "。", "！", "？")):
        return text
    return text + ("。" if CJK.search(text[-1:]) else ".")


def told_in_another_language(memory: str, said: str) -> str | None:
    """``memory`` quoted as the user told it, in quotation marks, when it is written in another language than
    ``said`` (the message's) and speaks as the user or of someone else, not of "the user": a plain answer quotes it
    after "You told me:" / "你跟我说过：". A fifth new user's trial got "I'm not sure; what I remember is: 你上个月搬到
    汉堡了…" (the memory turned to "you" in a language the question was not in), and the bundled 0.5B cannot be
    trusted to translate it: of 12 memories, 2 came back faithful there and back, and a check by meaning alone
    took "You are a doctor." for "我在一家药店当药剂师" and "你想学习钢琴。" for "I want to learn the cello". None for
    a memory in the message's language, or one of "the user" (said to the user as the plain answer says it)."""
    written = language(memory)
    if written in ("", said) or THE_USER.search(memory):
        return None
    text = _ended(" ".join(memory.split()).strip("\"'“”‘’「」 "))
    return f"“{text}”"


def _current_memories(recalled: Sequence[str], replaced: Mapping[str, str] | None) -> list[str]:
    """The recalled memories that say something now: none a newer one replaced ("I work as a nurse." after "我换工作了，
    现在是老师": a new user's trial got both in "What I remember: …"), none that is small talk a store kept, none
    said twice."""
    out: list[str] = []
    seen: set[str] = set()
    for memory in recalled:
        if memory in (replaced or {}) or is_junk(memory) or normalized(memory) in seen:
            continue
        seen.add(normalized(memory))
        out.append(memory)
    return out


def replacements(recalled: Sequence[tuple[str, str]], message: str, *, windowed: bool) -> dict[str, str]:
    """For the recalled memories (text, chain mark; best first), each one marked earlier (a newer memory about
    its subject follows it, :func:`memory.recall.mark_chains`) with the newest one above it, which recall put
    right above what it follows. The plain answer (:func:`check_answer`) finds a memory by the words it shares
    with the question, and "I live in Suzhou" shares "live" with "Where do I live now?" where "我搬到杭州了"
    shares nothing: the answer is the move; and a sentence that restates a replaced memory (:func:`stale`) is
    cut. None for a ``message`` about the past or one naming a time (``windowed``: "去年我住在哪里？"): there the
    older memory is the answer."""
    if windowed or time_intent(message) == "past":
        return {}
    out: dict[str, str] = {}
    newest = None
    for n, (text, chain) in enumerate(recalled):
        if chain == "now":
            newest = text
        elif chain == "earlier":  # the newest above it; else, ranked below it (a question about the user in
            # general marks chains at any rank: memory.recall.mark_chains), the first below
            newer = newest if newest is not None else next((t for t, c in recalled[n + 1:] if c == "now"), None)
            if newer is not None:
                out.setdefault(text, newer)
    return out


_ASKS_TIME = re.compile(r"\b(?:today|date|day|time|year|month|now|tonight|week)\b|"
                        r"今天|日期|几号|星期|周几|几点|时间|今年|现在", re.IGNORECASE)


class SentenceGuard:
    """A small model's answer passed on to ``sink`` sentence by sentence, each checked as the stored answer is
    (:func:`check_answer`, :func:`clean_answer`): the user never sees a sentence the stored answer does not have.
    :meth:`context` gives it what the model was given (recall's update, before the model starts); a sentence
    waits until it ends, so the first words come one sentence later than unchecked."""

    def __init__(self, message: str, sink: Callable[[str], None], now: str = "",
                 restates: Restates | None = None) -> None:
        self.message, self.sink, self.now, self.restates = message, sink, now, restates
        self._buffer = ""
        self._sources = message
        self._facts: list[str] = [message]
        self._earlier: list[tuple[str, str]] = []
        self._replaced: dict[str, str] = {}
        self._times: dict[str, int] = {}
        self._stale_cut: list[str] = []
        self._seen: set[str] = set()
        self._sent = False
        self._held: list[str] = []  # a "not told" sentence, shown at the end if nothing that answers follows
        self._ended_space = True
        self._space = ""  # the space after the last sentence shown, held until another follows
        self._opening = ""  # a plain answer's opening ("I'm not sure;"), held until what it opens is shown
        self._copied: list[str] = []  # sentences not shown for repeating an earlier answer, which pass the checks
        self._stored: str | None = None  # the answer as the turn stored it, once known (:meth:`stored`)

    def context(self, *, recalled: Sequence[str], window: Sequence[dict[str, object]], extra: Sequence[str] = (),
                chains: Sequence[str] = (), windowed: bool = False, times: Sequence[int] = ()) -> None:
        """``chains``: each recalled memory's chain mark ("now", "earlier" or ""), as recall gave them;
        ``windowed``: the message names a time (:func:`replacements`); ``times``: each one's time (event, else
        recorded)."""
        self._times = dict(zip(recalled, times, strict=True)) if times else {}
        chains = list(chains) or [""] * len(recalled)
        said = [str(e.get("content", "")) for e in window]
        self._sources = "\n".join([self.message, *said, *recalled, *extra])
        self._facts = [*recalled, self.message]
        self._replaced = replacements(list(zip(recalled, chains, strict=True)), self.message, windowed=windowed)
        asked = ""
        self._earlier = []
        for e in window:
            if e.get("role") == "user":
                asked = str(e.get("content", ""))
            elif e.get("role") == "assistant":
                self._earlier.append((asked, str(e.get("content", ""))))

    def __call__(self, text: str) -> None:
        self._buffer += text
        # a sentence is done when another starts after it (the stored answer is cut the same way)
        done = sentence_spans(self._buffer)[:-1]
        for sentence in done:
            self._buffer = self._buffer[len(sentence):]
            self._emit(sentence)

    def boundary(self) -> None:
        """The model started another answer (a stuck one is generated again): what is pending is a sentence."""
        pending, self._buffer = self._buffer, ""
        for sentence in sentence_spans(pending):
            self._emit(sentence)

    def flush(self) -> None:
        self.boundary()
        if not self._sent and self._held:  # "not told" and nothing else: it is the answer
            self._sent = True
            self.sink(self._held[0])
        if not self._sent and self._stored is not None:  # every sentence was cut: the turn's answer is shown
            self._sent = True
            self.sink(self._stored)
        if not self._sent:  # every sentence was cut: the plain answer the stored one falls back to
            self._sent = True
            self.sink(check_answer("", self.message, sources=self._sources, facts=self._facts, now=self.now,
                                   replaced=self._replaced, cut_stale=self._stale_cut,
                                   drew_on=" ".join(self._copied), restates=self.restates,
                                   times=self._times).text)

    def stored(self, answer: str) -> None:
        """The answer as the turn stored it (the respond node's): when every streamed sentence was cut, :meth:`flush`
        shows it rather than working the plain answer out again, so what the user sees is what was stored."""
        self._stored = answer

    def _emit(self, sentence: str) -> None:
        key = " ".join(sentence.lower().split())
        if not key or key in self._seen or echoes_prompt(sentence):
            return
        self._seen.add(key)
        if _own_opening(sentence) is None and any(
                similar(sentence, said) >= STUCK_SIMILARITY or key in " ".join(said.lower().split())
                for asked, said in self._earlier if not same_question(self.message, asked) and len(key) > 12):
            # copied from an earlier answer to another message (not the plain answer's own words): never shown,
            # but what it drew on may be the plain answer's, when it passes the checks (as the stored answer does)
            if check_sentence(sentence, self.message, sources=self._sources, facts=self._facts, now=self.now,
                              replaced=self._replaced, restates=self.restates, times=self._times)[0] is not None:
                self._copied.append(sentence)
            return
        out, _ = check_sentence(sentence, self.message, sources=self._sources, facts=self._facts, now=self.now,
                                replaced=self._replaced, restates=self.restates, times=self._times)
        if out is None and self._replaced and (older := stale(sentence, self._replaced)) is not None:
            self._stale_cut.append(older)
        if out is not None and _dangling(out):  # shown only with what it opens
            self._opening += out
            return
        if out is not None and self._opening and out.strip():
            out, self._opening = self._opening + ("" if out[:1].isspace() or CJK.match(out[:1]) else " ") + out, ""
        if out is not None and not self._sent and _not_told(out):
            self._held.append(out)  # shown only if nothing that answers follows (check_answer drops it then)
            return
        if out is not None and out.strip():
            if self._sent and not self._ended_space and not out[:1].isspace() and not CJK.match(out[:1]):
                out = " " + out  # "Got it." then "You…": a cut sentence between them took the space
            # the space after a sentence goes out with the next one shown: after the last, the cut sentences'
            # lines would stay on the screen as blank ones (a new user's trial: three)
            body = out.rstrip()
            self.sink((self._space if self._sent else "") + (body if self._sent else body.lstrip()))
            self._sent = True
            self._space = out[len(body):]
            self._ended_space = bool(self._space)
