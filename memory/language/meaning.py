"""Does an extracted memory keep what the user said? (pure logic, English and Chinese)

An extractor rewrites the user's words; a small one changes what they mean while keeping most of them: "I drive a
blue Honda Civic." became "I have always wanted to own a blue Honda Civic." and passed every gate that counts
shared words. What a rewording may never change is carried by a few closed classes of grammar words, the same for
any subject: negation ("not", "never", "不", "没"), modality ("want to", "might", "想", "可能"), the time a
statement holds ("used to", "will", "以前", "将") and who it is about (the user, a kinship word, a name). Nor may it
join what one clause does to the thing another clause names ("I bought the Canon R6" from "I sold the Canon R6 and
bought a Fujifilm X-T5"). :func:`changed_meaning` compares those between a candidate and the clause of the message
it came from.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import lru_cache

from memory.language.links import holders, named_things
from memory.language.slots import THE_USER
from memory.language.standalone import source_sentence
from memory.language.temporal import MONTH_NAMES, WEEKDAY_NAMES, parse_time_window
from memory.language.text import CJK, sentences
from memory.language.words import (
    EN_NUMERALS,
    ZH_NUMERAL_CHARS,
    chinese_compounds,
    chinese_numeral,
    grounding_units,
    names_a_person_first,
    tagged,
)

# Grammar words, not subjects: closed classes of the two languages.
_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing|neither|nor|no longer|without|cannot)\b|n't\b|"
                       r"不(?!错|少|过|仅|但|久|断|停|管|同)|没|别|未|无(?!论)|非(?!常)", re.IGNORECASE)
_MODALITY = re.compile(r"\b(?:wants?|wanted|wanting|wish(?:es|ed)?|hopes?|hoped|hoping|might|maybe|perhaps|"
                       r"(?<!in )(?<!on )(?<!of )(?<!since )(?<!until )(?<!by )(?<!early )(?<!late )(?<!mid-)"
                       r"may(?!\s+\d)|"  # not the month
                       r"would like|'d like|would love|'d love|dream(?:s|ed)? of|plans? to|planned to|planning to|"
                       r"thinking (?:of|about)|considering|could|should|ought to|intends? to|"
                       r"decid(?:e|es|ed|ing) to|if)\b|"
                       r"想|希望|打算|计划|决定|可能|也许|或许|梦想|考虑|如果|要是|应该", re.IGNORECASE)
# "不做…了" / "没…了" is Chinese for "no longer": a negation with the particle of a changed state (了) after it
_EARLIER = re.compile(r"\b(?:used to|formerly|previously|once|back then|in the past|no longer|anymore|any more)\b|"
                      r"以前|曾经|过去|原来|从前|当年|不再|[不没][^，。；,;.!?！？了]{1,10}了(?!解)", re.IGNORECASE)
# a bare 将 before its verb is "will" ("你将弹钢琴"); before an object and a verb with 了 it marks the object ("我将车
# 卖了": I sold the car); 将近 is "nearly"
_LATER = re.compile(r"\b(?:will|'ll|going to|gonna|about to|soon|next)\b|"
                    r"将要|将会|即将|准备|下(?:周|个月|星期|年)|明年|明天|将(?!近|军)(?![^，。；,;.!?！？]*了)",
                    re.IGNORECASE)
_CLAUSE = re.compile(r"[^,;，；、]+(?:[,;，；、]\s*|$)")
_SPLIT_CONJ = re.compile(r"\s+(?:but|and|while|whereas|though|although)\s+|但是|但|可是|而且|而", re.IGNORECASE)

# the user joined with someone else: a candidate that adds it makes the user a party to what another person does
# ("我和阿杰明年六月结婚。" for "我最好的朋友阿杰明年六月结婚。")
_TOGETHER = re.compile(r"我和|和我|我跟|跟我|我与|与我|我们|咱们|\b(?:I and|and I|me and|and me|we|we're|we've|us)\b",
                       re.IGNORECASE)
_MARKS = (("a negation", _NEGATION), ("a modality (want, might, 想…)", _MODALITY), ("an earlier time", _EARLIER),
          ("a later time", _LATER))


def negations(text: str) -> int | None:
    """How many words of negation ``text`` has (not, never, n't, 不, 没, 别…); None when it says a state that
    ended ("You don't smoke anymore." for "I quit smoking.", "你不抽烟了"): a change, whose "not" counts nothing."""
    return None if _EARLIER.search(text) else len(_NEGATION.findall(text))


def clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence``: cut at commas and semicolons (both languages) and at but / and / 但 / 而…."""
    parts = [c.strip() for c in _CLAUSE.findall(sentence) if c.strip()]
    return [p.strip() for c in parts for p in _SPLIT_CONJ.split(c) if p.strip()] or [sentence]


def source_clause(candidate: str, message: str) -> str:
    """The clauses of ``message`` that ``candidate`` was taken from: the one sharing most content units with it,
    and each other clause holding a unit of the candidate that one lacks ("我学习吉他了，三月开始学习大提琴" comes
    from both clauses of "我不学吉他了，三月开始学大提琴", "I love tea" from one of "I don't like coffee, but I love
    tea"); the whole message when none shares any."""
    units = grounding_units(candidate)
    parts = [c for s in sentences(message) for c in clauses(s)]
    best = max(parts, key=lambda c: len(units & grounding_units(c)), default=message)
    if not units & grounding_units(best):
        return message
    rest = units - grounding_units(best)
    return " ".join(c for c in parts if c == best or rest & grounding_units(c))


def without_marks(text: str) -> str:
    """``text`` without its words of negation, modality and time (what :func:`marks` reads)."""
    for _, pattern in _MARKS:
        text = pattern.sub(" ", text)
    return text


def marks(text: str) -> set[str]:
    return {name for name, pattern in _MARKS if pattern.search(text)}


_EN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _doings(clause: str, names: frozenset[str]) -> dict[str, str]:
    """What ``clause`` does with each thing it names (``names``: :func:`memory.language.links.named_things` of
    it): the thing -> the word before it that acts on it: in English the nearest content word before the name
    ("bought" of "bought a Fujifilm X-T5"), in Chinese the nearest verb by jieba's part of speech ("买" of
    "买了富士X-T5")."""
    out: dict[str, str] = {}
    if CJK.search(clause):
        verb = ""
        for word, flag in tagged(clause):
            if flag.startswith("v"):
                verb = word
            elif verb and word.lower() in names:
                out.setdefault(word.lower(), verb)
        return out
    last = ""
    for m in _EN_WORD.finditer(clause):
        word = m.group(0)
        if word.lower() in names:
            if last:
                out.setdefault(word.lower(), last)
        elif grounding_units(word):
            last = next(iter(grounding_units(word)))
    return out


def _says(verb: str, text: str) -> bool:
    """Does ``text`` hold ``verb`` (a Chinese verb as written, an English one as a stemmed unit)?"""
    return verb in text if CJK.search(verb) else verb in grounding_units(text)


def crossed(candidate: str, sentence: str) -> str | None:
    """Does a clause of ``candidate`` join what one clause of ``sentence`` does ("bought", "买") to the thing
    another names ("I bought the Canon R6" from "I sold the Canon R6 and bought a Fujifilm X-T5")? Why, or None. A
    clause that takes its person or its time from another clause ("Tom joined Microsoft" from "Tom left Google, he
    joined Microsoft") changes nothing: only a word that acts on another named thing counts."""
    parts = clauses(sentence)
    named = [named_things(p) for p in parts]
    doings = [_doings(p, n) for p, n in zip(parts, named, strict=True)]
    for c in clauses(candidate):
        mine = named_things(c)
        for i, a in enumerate(parts):
            if not mine & named[i]:
                continue
            for j, done in enumerate(doings):
                for thing, verb in done.items() if j != i else ():
                    if thing not in mine and thing not in named[i] and _says(verb, c) and not _says(verb, a):
                        return f"it puts {verb!r}, said of {thing!r}, on {sorted(mine & named[i])[0]!r}"
    return None


FUNCTION_CHARS = frozenset("我你他她它们的了吗呢吧啊呀着过是在有和把被也都就还很又再要会能对给跟与从向一个这那些")


def said_units(text: str) -> set[str]:
    """What ``text`` says, to compare a rewording with: stemmed English content words and Chinese content
    characters (Chinese bigrams change with any reordering), the user named as the user speaks, without the words of
    negation, modality and time (:func:`changed_meaning` compares those as marks)."""
    mine = THE_USER.sub(" ", text)
    for _, pattern in _MARKS:  # negation, modality and time are compared as marks (计划 for 打算 is a rewording)
        mine = pattern.sub(" ", mine)
    return {u for u in grounding_units(mine) if u.isascii() and not u.isdigit()} | {
        c for c in mine if "\u4e00" <= c <= "\u9fff" and c not in FUNCTION_CHARS}


_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)+")  # "Oak Avenue", "Mercy Hospital", "Honda Civic"


def _compounds(text: str) -> set[str]:
    """The names of several words ``text`` writes (case-folded): runs of capitalised words, runs of Chinese
    nouns (:func:`memory.language.words.chinese_compounds`)."""
    return {m.group(0).casefold() for m in _NAME_RUN.finditer(text)} | set(chinese_compounds(text))


def substituted(candidate: str, clause: str, message: str) -> str | None:
    """Does ``candidate`` put a word the message never says where ``clause`` (what it was taken from) has another
    ("I am an assistant working in the Mercy Hospital" for "I work as a nurse at Mercy Hospital", "我喜欢每天早晨喝
    乌龙茶" for "我每天早上喝乌龙茶")? Why, or None. A candidate that only leaves words out, or only adds words
    the message has, is a rewording."""
    mine = said_units(candidate)
    # a name of several words written as the message never writes it, and one of the clause's own that the
    # candidate no longer writes whole, though each word is said somewhere in the message ("我女儿…在阳光学校读书"
    # for "…从育才小学转走了，她现在在阳光小学读书": 小 is in 育才小学; "Oak Street" for "from Green Street to Oak
    # Avenue")
    added = (mine - said_units(message)) | {n for n in _compounds(candidate) if n not in message.casefold()}
    dropped = (said_units(clause) - mine) | {n for n in _compounds(clause) if n not in candidate.casefold()}
    if added and dropped:
        return f"it says {', '.join(sorted(added)[:3])} where the message says {', '.join(sorted(dropped)[:3])}"
    return None


_QUANTITY = re.compile(rf"(\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)(\s*个)?(\S?)|([{ZH_NUMERAL_CHARS}]+)(个)?(\S?)|"
                       rf"\b({'|'.join(EN_NUMERALS)})\b", re.IGNORECASE)


def _value(numeral: str) -> str:
    """A numeral's value as digits: "30", "三十", "thirty" are "30"; one it cannot read stays as written."""
    if numeral.replace(",", "").replace(".", "", 1).isdigit():
        return str(float(numeral.replace(",", ""))).removesuffix(".0")
    if numeral.lower() in EN_NUMERALS:
        return str(EN_NUMERALS[numeral.lower()])
    value = chinese_numeral(numeral)
    return numeral if value is None else str(value)


@lru_cache(maxsize=256)
def quantities(text: str) -> frozenset[tuple[str, str]]:
    """The numbers ``text`` says, by value, each with how it counts in Chinese: "六个月" (six months) is ("6", "个月"),
    "六月" (June) is ("6", "月"); an English number has no measure word to tell ("six months", "6 months": ("6",
    "")). A lone 一 is a number only before 个 or a unit of the calendar ("一个月", "一月"; not "一直", "一家")."""
    out: set[tuple[str, str]] = set()
    for m in _QUANTITY.finditer(text):
        if m.group(7):
            out.add((_value(m.group(7)), ""))
            continue
        numeral, ge, after = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5),
                                                                                     m.group(6))
        if numeral == "一" and not ge and after not in "月年日号岁天周":  # "一直", "一家": no count of anything
            continue
        counted = ((ge or "").strip() + after) if CJK.match(after or "") else ""
        out.add((_value(numeral), counted))
    return frozenset(out)


def requantified(candidate: str, message: str) -> str | None:
    """Does ``candidate`` say a number the message does not, or count one another way ("我姐姐明年六个月结婚" for "我
    姐姐明年六月结婚": June became six months, bench answers test zh-s-wedding)? Why, or None. A number written
    another way ("30岁" for "三十岁", "5 years" for "five years") is the same number."""
    said = quantities(message)
    values = {v for v, _ in said}
    for value, counted in sorted(quantities(candidate)):
        if value not in values:
            return f"it says {value}, which the message does not"
        if counted and (value, counted) not in said and any(c and c[-1:] == counted[-1:] for v, c in said
                                                             if v == value):
            return f"it counts {value} as {value}{counted}, where the message does not"
    return None


_CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z][\w'’-]*)")
_TIME_NAMES = re.compile(rf"(?:{MONTH_NAMES}|{WEEKDAY_NAMES})\b", re.IGNORECASE)


def names_more(candidate: str, message: str) -> str | None:
    """Does ``candidate`` name what the message never names: a capitalised word inside a sentence that the message
    does not have ("I am Nadia Rahimi, an Italian pharmacist…" for "My name is Nadia Rahimi. … I work as a
    pharmacist at a hospital.": a fourth new user's trial stored the "Italian")? A month or a weekday is a time the
    extractor may resolve; "User" is how it names the user."""
    said = message.casefold()
    for m in _CAPITALISED.finditer(candidate.strip()):
        word = m.group(1)
        if word.casefold() not in said and not _TIME_NAMES.match(word) and not THE_USER.fullmatch(word):
            return f"it names {word}, which the message does not"
    return None


_ANY_NOW = datetime(2000, 1, 1, tzinfo=UTC)  # the parser only has to find a time phrase, not resolve it


def figures(text: str) -> set[str]:
    """The numbers ``text`` says, by value, and its codes (a word of letters and figures: "z0x1", "EV6"),
    lower-cased."""
    lower = text.lower()
    codes = {w for w in re.findall(r"[a-z0-9]+", lower) if re.search(r"\d", w) and re.search(r"[a-z]", w)}
    return {v for v, _ in quantities(lower)} | codes


def dropped_figures(candidate: str, clause: str) -> str | None:
    """Does ``candidate`` leave out a number or a code its ``clause`` says ("I'm using the alarm code z0x1 to set a
    reminder." for "My alarm code z0x1 is 9236": the bundled model under bench serve-load; "The user's office door
    code is 4311." for "My office door code z5x10 is 4311")? Why, or None. Not a number of the clause's time phrase
    ("3 years ago", "三年前": the memory's event time keeps it)."""
    kept = figures(candidate)
    digits = {d for code in kept for d in re.findall(r"\d+", code)}
    lost = {f for f in figures(clause) - kept if not (f.isdigit() and f in digits)}  # "0", "1" inside "z0x1"
    if lost and (window := parse_time_window(clause, _ANY_NOW)) is not None and window.phrase:
        lost -= figures(window.phrase)
    first = min(lost, key=lambda f: (f.isdigit(), f), default=None)  # a code before a number
    return f"it leaves out {first} that the message says" if first is not None else None


def changed_meaning(candidate: str, message: str) -> str | None:
    """Why ``candidate`` does not say what ``message`` said (a mark of negation, modality or time added or
    dropped, or another person as its subject), or None when it keeps the meaning. A mark is compared with the
    sentence the candidate came from when the candidate adds it, and with its clause when it drops it:
    "I don't like coffee, but I love tea" gives "I love tea" without a negation lost."""
    said = sentences(message) or [message]
    at = source_sentence(candidate, said)
    sentence = said[at] if at is not None else message
    clause = source_clause(candidate, sentence)
    has, source_has, clause_has = marks(candidate), marks(sentence), marks(clause)
    added, dropped = has - source_has, clause_has - has
    if added:
        return f"it adds {sorted(added)[0]} that the message does not have"
    if _TOGETHER.search(THE_USER.sub("我", candidate)) and not _TOGETHER.search(sentence):
        return "it makes the user a party to it, which the message does not"
    if dropped:
        return f"it leaves out {sorted(dropped)[0]} that the message has"
    if (why := dropped_figures(candidate, clause) or crossed(candidate, sentence)
            or substituted(candidate, clause, message) or requantified(candidate, message)
            or names_more(candidate, message)) is not None:
        return why
    mine, theirs = holders(candidate), holders(clause) or holders(sentence)
    # "用户小梅离开了阿里巴巴" for "小梅离开了阿里巴巴": the extractor made the user the subject of what the message
    # says of someone it names (a Chinese name has no capital: the lexicon's part of speech finds it)
    if "self" in mine and "self" not in theirs and (name := names_a_person_first(clause)) is not None:
        return f"it is about self, the message about {name}"
    if not mine and (said_by := holders(clause)):  # "搬家杭州了。" for "我搬到杭州了。": whose move?
        return f"it leaves out whom it is about ({'/'.join(sorted(said_by))})"
    if mine and theirs and not mine & theirs:
        return f"it is about {'/'.join(sorted(mine))}, the message about {'/'.join(sorted(theirs))}"
    return None
