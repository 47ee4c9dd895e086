"""How ``python -m bench answers`` judges an answer, apart from the product's own checks (memory/language/answers.py).

The product cuts what it finds invented, stuck or in the user's voice; if the bench graded with the same code, the
product would grade itself. These are separate, deliberately plain rules, written from what a reader would call
wrong, each a pure function of the texts:

- :func:`invented`: numbers, capitalised names, Chinese numerals, titles and names after a naming word in the
  answer that nothing the user said in the scenario (nor the dates of its turns) holds;
- :func:`wrong_voice`: a sentence that says the user's facts as the user ("I live in Leeds.", "我住在厦门。");
- :func:`stuck`: an answer (nearly) the same as an earlier one of the session, given to another message;
- :func:`abstains`: the answer says it was not told or does not know.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from difflib import SequenceMatcher

from memory.language.answers import clock_words

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_SENTENCE = re.compile(r"[^.!?。！？;；\n]+[.!?。！？;；]*")
_LATIN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_DIGITS = re.compile(r"\d+")

# Words that open an English sentence without naming anything: a capital there is grammar, not a name.
_OPENER_WORDS = """
a an the you your yours i i'm i've i'd i'll it it's its this that these those there here he she they we his her
their our my me sure yes no not ok okay yeah alright well so and but or also then now just still sorry
unfortunately great glad good nice thanks thank noted got understood of to in on at for from with by as if when
where what which who how why do does did is are was were have has had can could will would should may might let
please hi hello hey sounds that's what's here's there's congratulations congrats wow oh ah haha lol hmm indeed
absolutely certainly exactly right true based according however since because while after before today tonight
yesterday tomorrow currently recently once all some any each every many much more most one two three both either
neither nothing something everything anything someone everyone no-one nobody keep enjoy take have make feel hope
cheers welcome happy let's don't can't it'll awesome cool perfect fantastic wonderful interesting definitely
"""
_OPENERS = frozenset(_OPENER_WORDS.split())
_PRONOUNS = frozenset({"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "ok", "okay"})
# English number words a model may write for a number no one gave ("one" is left out: "one of them")
_SMALL_NUMBERS = ("zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                  "sixteen seventeen eighteen nineteen twenty")
_NUMBER_WORDS = {w: n for n, w in enumerate(_SMALL_NUMBERS.split()) if w != "_"}
_NUMBER_WORDS |= {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
                  "hundred": 100, "thousand": 1000, "million": 1000000}
_ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
             "九": 9}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_ZH_NUMERAL = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
# A Chinese numeral counts as a number when it is two characters or more (三十, 十月) or a count of years, months,
# days, money: "一只" or "一名" is grammar.
_ZH_COUNTED = re.compile(r"(?!一(?![零〇一二两三四五六七八九十百千万]))[零〇一二两三四五六七八九十百千万]+"
                         r"(?=[岁年月日号元块点分秒天周倍次米斤]|小时|公里|个月|个小时)")  # a lone 一 is grammar
_ZH_TITLE = re.compile(r"[《「『“\"]([^》」』”\"]{1,20})[》」』”\"]")
# A word that names what follows: 叫 X, 住在 X, 搬到 X, 去了 X, 在 X 工作...
_ZH_NAMED = re.compile(r"(?:名叫|叫做|叫|名字是|住在|搬到了?|搬去了?|飞去|飞往|去了|来自|姓)([\u4e00-\u9fff]{2})")
_ZH_NAMED_VALUE = re.compile(r"(?:是|为)([\u4e00-\u9fff]{2,4})(?=[。！!？?，,；;]|$)")  # 老师是李华。
_ZH_NAMED_PLACE = re.compile(r"在([\u4e00-\u9fff]{2,4}?)(?:工作|上班|读书|上学)")
_ZH_NOT_NAMES = frozenset({"什么", "哪里", "哪儿", "哪个", "哪家", "这里", "那里", "这个", "那个", "一个", "一只",
                           "一名", "一位", "一家", "一下", "一趟", "自己", "不知", "没有", "还没", "公司",
                           "学校", "医院", "家里", "附近", "真的", "这样", "对的", "好的", "正确", "可以", "知道",
                           "谁呀", "多少", "几岁", "哪天", "不是", "这件", "那件"})


def _zh_number(text: str) -> int | None:
    """The value of a Chinese numeral ("三十" 30, "十月" -> "十" 10, "二〇一九" 2019), or None."""
    if not text:
        return None
    if not any(c in _ZH_UNIT for c in text):  # digit by digit: 二〇一九
        return int("".join(str(_ZH_DIGIT[c]) for c in text))
    total, section, digit = 0, 0, 0
    for c in text:
        if c in _ZH_DIGIT:
            digit = _ZH_DIGIT[c]
        elif c == "万":
            total += (section + digit) * 10000
            section, digit = 0, 0
        else:
            section += (digit or 1) * _ZH_UNIT[c]
            digit = 0
    return total + section + digit


def _numbers(text: str) -> set[int]:
    """Every number ``text`` writes: digits, English number words, Chinese numerals."""
    out = {int(d) for d in _DIGITS.findall(text)}
    out |= {_NUMBER_WORDS[w.lower()] for w in _LATIN.findall(text) if w.lower() in _NUMBER_WORDS}
    out |= {n for m in _ZH_NUMERAL.findall(text) if (n := _zh_number(m)) is not None}
    return out


def _answer_numbers(text: str) -> set[int]:
    """The numbers an answer states (a lone "一" of "一只" is not one)."""
    out = {int(d) for d in _DIGITS.findall(text)}
    out |= {_NUMBER_WORDS[w.lower()] for w in _LATIN.findall(text) if w.lower() in _NUMBER_WORDS}
    runs = {m for m in _ZH_NUMERAL.findall(text) if len(m) >= 2} | set(_ZH_COUNTED.findall(text))
    return out | {n for m in runs if (n := _zh_number(m)) is not None}


def date_words(when: datetime) -> str:
    """How a turn's date may be written, in both languages: what an answer may say of it without inventing (the
    product's own :func:`memory.language.answers.clock_words`: an answer it checks against it is judged by it)."""
    return clock_words(when)


def _words(text: str) -> set[str]:
    words = {w.rstrip("'’-").lower() for w in _LATIN.findall(text)}
    return words | {w.removesuffix("'s").removesuffix("’s") for w in words}


def invented(answer: str, said: Iterable[str]) -> list[str]:
    """What ``answer`` states that nothing in ``said`` (everything the user said in the scenario up to this turn,
    and the turns' dates: :func:`date_words`) holds: numbers (digits, number words, Chinese numerals of two
    characters or a count), capitalised words (an English sentence's first word only when it is no common opener),
    titles in quotes or 《》, and two characters after a naming word (叫, 住在, 搬到 ...) or closing a
    sentence after 是 ("老师是李华。").
    Case does not count."""
    source = "\n".join(said)
    known_words, known_numbers = _words(source), _numbers(source)
    out = [str(n) for n in sorted(_answer_numbers(answer) - known_numbers)]
    for sentence in _SENTENCE.findall(answer):
        chinese = bool(_CJK.search(sentence))
        for m in _LATIN.finditer(sentence):
            word = m.group(0).rstrip("'’-")
            low = word.lower()
            if low in _NUMBER_WORDS or low in _PRONOUNS:
                continue
            before = sentence[:m.start()].rstrip(" \t\"'“‘(*-")
            first = not before or before.endswith((":", "：", "—"))
            name_like = any(c.isupper() for c in word)  # "Lisbon", "iPhone"
            opener = low in _OPENERS or re.split("['’]", low)[0] in _OPENERS  # "You're", "Here's"
            if not name_like or (first and not chinese and opener):
                continue
            if low not in known_words and low.removesuffix("'s").removesuffix("’s") not in known_words:
                out.append(word)
    out += [t for t in _ZH_TITLE.findall(answer) if _CJK.search(t) and t not in source]
    named = [m for pattern in (_ZH_NAMED, _ZH_NAMED_PLACE, _ZH_NAMED_VALUE) for m in pattern.findall(answer)
             if m[:2] not in _ZH_NOT_NAMES and m[0] not in "我你他她它什哪这那谁"]
    out += [m for m in named if m[:2] not in source]
    return out


_EN_FIRST = re.compile(r"\b(?:I|I'm|I’m|I've|I’ve|my|My|mine)\b")  # "telling me" is the assistant
_EN_SECOND = re.compile(r"\b(?:you|your|you're|you’re|yours)\b", re.IGNORECASE)
# The assistant speaking of itself: "I don't know", "I remember", "I'm not sure", "I'll keep that in mind".
_EN_ASSISTANT = re.compile(
    r"\bI(?:'m|’m| am)? ?(?:do not|don't|don’t|did not|didn't|have not|haven't|haven’t|can't|can’t|cannot|"
    r"could not|couldn't|remember|recall|know|think|see|understand|hope|will|would|'ll|’ll|'d|’d|am not|'m not|"
    r"’m not|not|glad|sorry|happy|noted|got|have no|only|can|could|may|might|believe|guess|wish|appreciate|"
    r"love to hear|hear)\b|\bmy (?:memory|memories|records?|notes|knowledge|pleasure|apologies|guess)\b",
    re.IGNORECASE)
_ZH_ASSISTANT = re.compile(r"我(?:不知道|不清楚|不确定|不太确定|记得|会记住|记住了|记下|知道了|明白|理解|没有|没|还不|"
                           r"无法|不能|可以|会|很高兴|很抱歉|抱歉|猜|想|希望|只)")
_STOP_WORDS = """
the a an and or but is am are was were be been to of in on at for with by from as it its that this i i'm i've my me
mine you your do did does have has had not no so just very really too also about what which who how when where
"""
_EN_STOP = frozenset(_STOP_WORDS.split())


def _content(text: str) -> set[str]:
    """Content words (English, three letters or more) and Chinese character pairs without 我 or 你."""
    words = {w.lower() for w in _LATIN.findall(text) if len(w) >= 3 and w.lower() not in _EN_STOP}
    chars = "".join(c if _CJK.match(c) and c not in "我你们的了是" else " " for c in text)
    return words | {chars[i:i + 2] for i in range(len(chars) - 1) if " " not in chars[i:i + 2]}


_QUOTED = re.compile(r"“[^“”]*”|「[^「」]*」")  # a memory the plain answer quotes as the user told it


def wrong_voice(answer: str, statements: Iterable[str]) -> list[str]:
    """The sentences of ``answer`` that say the user's facts as the user: first person, no second person, not the
    assistant speaking of itself ("I don't know", "我记得"), and a content word or Chinese pair of something the user
    stated (``statements``: the user's facts, not their questions). "I live in Leeds." after "I live in Leeds." is one;
    "You live in Leeds.", "I don't know your age." and "你跟我说过：“I live in Leeds.”" (quoted) are not."""
    told = set().union(*(_content(s) for s in statements))
    out = []
    for sentence in _SENTENCE.findall(_QUOTED.sub(" ", answer)):  # words in quotation marks are the user's, quoted
        english = bool(_EN_FIRST.search(sentence)) and not _EN_ASSISTANT.search(sentence)
        chinese = "我" in sentence and not _ZH_ASSISTANT.search(sentence)
        if not (english or chinese) or _EN_SECOND.search(sentence) or "你" in sentence or "您" in sentence:
            continue
        if _content(sentence) & told:
            out.append(sentence.strip())
    return out


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def alike(a: str, b: str) -> float:
    """How alike two texts are, 0 to 1 (case, punctuation and spacing aside)."""
    return SequenceMatcher(None, _flat(a), _flat(b), autojunk=False).ratio()


STUCK_ALIKE = 0.9
STUCK_MIN_CHARS = 20  # a short acknowledgement said twice ("Noted!") is not stuck


def stuck(answer: str, message: str, earlier: Sequence[tuple[str, str]]) -> bool:
    """Is ``answer`` (nearly) an earlier answer of the session (``earlier``: (message, answer) pairs) that was given to
    a different message? Short answers and a repeated "not told" to another unknown are not: they are right twice."""
    if len(_flat(answer)) < STUCK_MIN_CHARS:
        return False
    return any(alike(answer, said) >= STUCK_ALIKE and alike(message, asked) < STUCK_ALIKE
               and not (abstains(answer) and abstains(said)) for asked, said in earlier)


_ABSTAIN = re.compile(
    r"(?:\bnot|\bnever|n't|n’t) (?:yet )?(?:been )?(?:told|mentioned|said|shared|say|tell|mention|share)\b|"
    r"\b(?:don't|don’t|do not|didn't|didn’t) (?:know|have (?:that|this|any|the|information)|remember|recall)\b|"
    r"\bnot aware\b|"
    r"\bno (?:idea|information|record|memory|details?)\b|\bnot sure\b|\bunknown\b|\bcan(?:'t|’t|not) (?:tell|say|"
    r"recall|remember|find)\b|\bhaven't (?:heard|got)\b|"
    r"没有?(?:告诉|提到|提过|说过|讲过|跟我说|和我说|记录|相关)|未(?:告诉|提到|提及)|不知道|不清楚|不确定|不太确定|不太清楚|无从得知|"
    r"不记得|还不了解|没听你说|没有[^，。,.!?！？]{0,12}(?:信息|记录|资料|印象)",
    re.IGNORECASE)


def abstains(answer: str) -> bool:
    """Does ``answer`` say it was not told, or does not know (either language)?"""
    return bool(_ABSTAIN.search(answer))


BRIEF_WORDS = 15  # an acknowledgement at most this long (English words; Chinese: twice as many characters)


def brief(answer: str) -> bool:
    """Is ``answer`` short enough to be an acknowledgement (a statement or small talk needs no more)?"""
    return 0 < len(_LATIN.findall(answer)) + len(_CJK.findall(answer)) / 2 <= BRIEF_WORDS
