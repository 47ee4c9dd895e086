"""One fact: a text cut into the statements it makes about the user, English and Chinese (pure logic, no model)."""

from __future__ import annotations

import re

from memory.language.slots import FIRST_PERSON, single_valued_slots
from memory.language.text import CJK, sentence_spans
from memory.language.words import grounding_units, tagged

# Where a sentence starts another statement about the user: "..., and I love green tea", "...，我喜欢喝龙井茶".
_NEXT_STATEMENT = re.compile(r"(?:,\s*|\s+)and\s+(?=(?:i|i'm|my)\b)|[,;]\s*(?=(?:i|i'm|my)\b)|[，；、]\s*(?=我)"
                             r"|[，,]?\s*(?:而且|并且)\s*(?=我)", re.IGNORECASE)


_LEADING_AND = re.compile(r"^(?:and|also|plus)\s+(i|i'm|my)\b", re.IGNORECASE)  # "And I love green tea."


def split_facts(text: str) -> list[str]:
    """``text`` cut into its facts: sentences, and within one the statements about the user it joins ("I live in
    Hangzhou and I love green tea" is two, so a later "I moved" can retire where the user lived without retiring
    the tea). Decimals ("72.5 kg"), abbreviations ("Dr. Li") and "I live in Hangzhou, China" stay whole."""
    out: list[str] = []
    for sentence in sentence_spans(text):
        start, pieces = 0, []
        for m in _NEXT_STATEMENT.finditer(sentence):
            left = sentence[start:m.start()]
            # "My sister and I love..." stays one; so does "I play the oboe, and I have played it for five years"
            # (alone, the second says nothing of what was played)
            if _whole(left) and not detail_of(piece := _next_piece(sentence, m.end()), left) and \
                    not _POINTS_BACK.search(piece):
                pieces.append(left.strip())
                start = m.end()
        pieces += _by_slot(sentence[start:].strip())
        if out and pieces and detail_of(pieces[0], out[-1]):  # "I play the oboe. I've played it for 5 years."
            pieces[0] = f"{out.pop()}{'' if CJK.search(sentence) else ' '}{pieces[0]}"
        out += pieces
    # a piece cut at a semicolon or a comma does not keep it ("Tomas left the hotel;": a fifth new user's trial)
    return [_capitalized(_LEADING_AND.sub(r"\1", p).rstrip(" ;；,，、")) for p in out if p.rstrip(" ;；,，、")]


def _next_piece(sentence: str, start: int) -> str:
    m = _NEXT_STATEMENT.search(sentence, start)
    return sentence[start:m.start() if m else len(sentence)]


# What says only when, how long or how much of a thing another text names: numerals, measures, time words,
# adverbs ("已经"), pronouns, particles and punctuation (jieba's tags); English numbers and time units.
_DETAIL_TAGS = ("t", "m", "q", "d", "r", "u", "x", "p", "c", "y", "e", "w")
_DETAIL_EN = re.compile(r"\d+|(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                        r"forty|fifty|hundred|few|several|many|couple|half|year|month|week|day|hour|minut|time|"
                        r"decad|ago|sinc|now|alreadi|still|been|almost|about|over|nearli|long|it|there|here|onc|twice|everi|"
                        r"today|tonight|tomorrow|yesterday|later|soon|next|until|weekend)$")


def time_or_measure(word: str) -> bool:
    """Does the content word ``word`` (a stemmed Latin unit, or a Chinese word) say only when, how long or how much
    ("now", "year", "现在", "三年"), by what :func:`detail_only` leaves out?"""
    if CJK.search(word):
        return any(tag.startswith(("t", "m", "q")) for w, tag in tagged(word) if w.strip()) and \
            all(tag.startswith(_DETAIL_TAGS) for w, tag in tagged(word) if w.strip())
    return bool(_DETAIL_EN.match(word))


def detail_only(text: str) -> tuple[set[str], bool]:
    """What ``text`` says besides when, how long and how much (its words, Chinese by content characters), and
    whether it says a when, how long or how much at all."""
    if CJK.search(text):
        words = [(w, tag) for w, tag in tagged(text) if w.strip()]
        rest = {c for w, tag in words if not tag.startswith(_DETAIL_TAGS) for c in w if CJK.match(c)}
        rest -= set(FIRST_PERSON.pattern) | {"我"}
        return rest, any(tag.startswith(("t", "m")) for _, tag in words)
    units = grounding_units(text)
    return {u for u in units if not _DETAIL_EN.match(u)}, any(_DETAIL_EN.match(u) and (u[0].isdigit() or u in (
        "year", "month", "week", "day", "hour", "minut", "decad")) for u in units)


def words_of(text: str) -> set[str]:
    """``text``'s content words (:func:`grounding_units`), a Chinese one's by its characters."""
    return {c for c in text if CJK.match(c)} if CJK.search(text) else grounding_units(text)


def detail_of(detail: str, other: str) -> bool:
    """Does ``detail`` say only when, how long or how much of what ``other`` names ("I have played it for five
    years" of "I play the guitar", "三岁了" of "我养了一只猫")?"""
    rest, says = detail_only(detail)  # it says something of the other: "I'm 35." after "I live in Oslo." does not
    return says and bool(rest) and rest < detail_only(other)[0]


def one_fact(text: str) -> bool:
    """Does ``text`` state one fact (:func:`split_facts` cuts it nowhere)? What such a message says as a whole (a
    time, a change) belongs to that fact."""
    return len(split_facts(text)) == 1


# A clause joined to a fact, which :func:`split_facts` leaves with it as it cannot stand alone ("I live in Hangzhou,
# China", "The user lives in Hangzhou and loves green tea", "我住在杭州，也喜欢这里"): it may say more than the fact.
_JOINED = re.compile(r"[,;，；、]|\s(and|but)\s|而且|并且|还有|和我|也", re.IGNORECASE)


def nothing_else(text: str) -> bool:
    """Does ``text`` say one fact and nothing else (:func:`one_fact`, and no clause joined to it)? A stated change
    may retire such a memory; one that says more stays (retiring it would retire the rest too)."""
    return one_fact(text) and not _JOINED.search(text.strip().rstrip(".。!！"))


def _capitalized(statement: str) -> str:
    """A statement cut from its sentence starts one of its own: "my favourite book is ..." from "..., and my
    favourite book is ...", "I love green tea." from "And I love green tea." (``_LEADING_AND`` takes the "And")."""
    return statement[0].upper() + statement[1:] if re.match(r"(?:i|i'm|my)\b", statement) else statement


def _whole(part: str) -> bool:
    """Enough of a statement to stand alone (three words or three Chinese characters)."""
    return len(part.split()) >= 3 or len(CJK.findall(part)) >= 3


# Where a sentence goes on about something else without saying who: "... and work at Tencent", "...，现在在阿里工作".
_NOT_ANOTHER_SUBJECT = r"(?!(?:she|he|they|it|we|you|his|her|their|its)\b)"
_GOES_ON = re.compile(r",?\s+and\s+" + _NOT_ANOTHER_SUBJECT + r"(?=[a-z])"
                      r"|[，,]\s*(?![我你他她它])" + _NOT_ANOTHER_SUBJECT, re.IGNORECASE)


_USER_SUBJECT = re.compile(r"\W*(I(?=\s|'m\b)|the user|我|用户)", re.IGNORECASE)


def _by_slot(statement: str) -> list[str]:
    """``statement`` cut where it moves from one one-valued slot of the user to another, the subject repeated: "I
    live in Shenzhen and work at Tencent" is "I live in Shenzhen" and "I work at Tencent" (as one memory, a later
    "I moved" could retire neither)."""
    held = single_valued_slots(statement)
    # the user's, whose subject opens the statement and is given to the part cut off: "Tom lives in Shenzhen and
    # works at Tencent" is Tom's (cut, its job was the user's, "I works at Tencent"), "The user lives in Shenzhen
    # and works at Tencent" (a model's wording) is "The user works at Tencent"
    subject = _USER_SUBJECT.match(statement)
    if not held or any(not k.startswith("self:") for k in held) or subject is None:
        return [statement]
    said = subject.group(1)
    for m in _GOES_ON.finditer(statement):
        left, right = statement[:m.start()].strip(), statement[m.end():].strip()
        if _OTHER_SUBJECT.match(right):  # "…Miso, she is 3 years old": the cat's age, not the user's
            continue
        if not right.lower().startswith(said.lower()):
            right = f"{said}{'' if CJK.match(said) else ' '}{right}"
        if not (_whole(left) and _whole(right)):
            continue
        a, b = single_valued_slots(left), single_valued_slots(right)
        # two slots; or a slot and something else the user does, said without a subject ("I work at Alibaba and
        # love hiking", an extractor's "我是在阿里巴巴工作，喜欢爬山"): a later "I changed jobs" must not retire it
        if (a and b and not a & b) or (bool(a) != bool(b) and _GOES_ON_DOING.match(statement[m.end():].strip())
                                       and not _ABOUT_THE_OTHER.search(right)):
            return [left, *_by_slot(right)]
    return [statement]


# A statement that says what it does in place of, or against, the one before it ("I gave up climbing, I play chess
# now instead": a fifth new user's trial stored "I play chess now instead" alone): discourse words, not subjects.
# So does one that speaks of the other's thing by a pronoun ("…cello, I've been doing it for years": a sixth new
# user's trial stored "I've been doing it for years" alone).
_POINTS_BACK = re.compile(r"\b(?:instead|rather|either|it|them)\b|代替|取而代之|改成|改为|反而|而是|它",
                          re.IGNORECASE)
# A clause with a subject of its own that is not the user ("…, she is 3 years old", "…，它三岁了"): a pronoun.
_OTHER_SUBJECT = re.compile(r"(?:he|she|it|they|his|her|its|their)\b|(?:他|她|它)", re.IGNORECASE)
# A clause that only points back at the other ("and love it", "喜欢这里"): cut off, it says nothing.
_ABOUT_THE_OTHER = re.compile(r"\b(it|that|this|them|there|here)(\s+(a lot|so much|very much|there|here))?\W*$|"
                              r"(它|这里|那里|这儿|那儿|这个|那个)\W*$", re.IGNORECASE)
# What a clause without a subject starts with when it says what the user does (not "…, a big company").
_GOES_ON_DOING = re.compile(
    r"(?:also\s+|often\s+|usually\s+)?(?:like|love|enjoy|hate|prefer|play|have|own|speak|drink|eat|study|"
    r"practi[cs]e|collect|read|watch|cook|run|swim|ride|drive|keep|live|work|am)\b|"
    r"(?:也|还|平时|经常|常常|每天|每周|周末)?(?:喜欢|爱|热爱|讨厌|养|有|会|擅长|学|住|在)", re.IGNORECASE)
