"""Content units: the words of a text that carry content, in English and Chinese (pure logic, no model).

Latin words of 3+ letters that are no stopword, digits, and Chinese character bigrams (a lone character when it
stands alone). Attribution, grounding, the gates and the links compare texts by them.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import cache
from typing import Any, cast

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


@cache
def _stemmer() -> Callable[[str], str]:
    import snowballstemmer

    return cast("Callable[[str], str]", snowballstemmer.stemmer("english").stemWord)


def grounding_units(text: str) -> set[str]:
    """:func:`content_units` with English words stemmed by the Snowball (Porter 2) stemmer: "moved" and "move",
    "lives" and "living" are one unit, "planes" and "plans" are two."""
    stem = _stemmer()
    return {stem(u) if u.isascii() and u.isalpha() else u for u in content_units(text)}


# Parts of speech of a lexicon (jieba's tags) that name things: nouns of every kind (n, nr, ns, nt, nz, ng...),
# time words (秋天), place and direction words, idioms and abbreviations; verbs (v, vn: 喜欢, 生活), adverbs (经常),
# adjectives (漂亮), pronouns, numerals and particles describe or connect and name nothing.
_NAMING_TAGS = ("n", "t", "s", "f", "i", "j", "l", "eng", "x")


@cache
def _posseg() -> Any:
    """jieba's part-of-speech tagger, its dictionary-load log quieted once."""
    import logging

    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)  # it logs the dictionary load
    return jieba.posseg


def tagged(text: str) -> list[tuple[str, str]]:
    """``text`` cut into words, each with jieba's part of speech ("nr" a person's name, "v" a verb, "n…" a noun)."""
    return [(p.word, p.flag) for p in _posseg().lcut(text)]


@cache
def _tags() -> dict[str, str]:
    tags: dict[str, str] = _posseg().dt.word_tag_tab
    return tags


def in_lexicon(word: str) -> bool:
    """Is ``word`` one of the words of jieba's lexicon (a name the lexicon lacks is more likely a person's)?"""
    return word in _tags()


def names_something(word: str) -> bool:
    """Does the Chinese word ``word`` name something (a noun, a place, a time: 南京, 自行车, 秋天), by jieba's
    lexicon of 349K words with their parts of speech? A word the lexicon lacks ("思域" is in it, "小雨" is not)
    counts as a name: names are what a lexicon misses. Latin words are always taken as names (the caller's rules
    decide those)."""
    if not _CJK_RUN.fullmatch(word):
        return True
    tag = _tags().get(word)
    return tag is None or tag.startswith(_NAMING_TAGS)


def names_a_person_first(text: str) -> str | None:
    """The person's name a Chinese ``text`` opens with ("小梅" of "小梅离开了阿里巴巴": jieba's part of speech nr,
    a person's name, or nrt, a name transliterated: "诺拉", "彼得"), or None (a verb, a pronoun, a noun: "搬到苏州了",
    "我搬到苏州了")."""
    run = _CJK_RUN.match(text.lstrip(" \t\"'“‘("))
    if run is None:
        return None
    first = next(iter(tagged(run.group(0))), None)
    return first[0] if first is not None and first[1] in ("nr", "nrt") and not _pronoun_led(first[0]) else None


def _pronoun_led(word: str) -> bool:
    """Does ``word`` (jieba's person's name) open with a personal pronoun? jieba tags "我在岚澜" of "我在岚澜汐当药剂师"
    a name (a place it does not know, after "我在"): no name opens with one."""
    return word[:1] in "我你您他她它咱"


def names_a_person_in(text: str) -> str | None:
    """The first person's name jieba finds anywhere in a Chinese ``text`` (nr or nrt: "英格丽" of "你知道英格丽住在
    哪里吗？"), or None."""
    return next((w for w, flag in tagged(text) if flag in ("nr", "nrt") and _CJK_RUN.fullmatch(w)
                 and not _pronoun_led(w)), None)


def chinese_name_after(text: str, word: str) -> str | None:
    """The person's name right after ``word`` in a Chinese ``text`` ("英格丽" of "我妹妹英格丽有两个孩子" after "妹妹":
    jieba's part of speech nr; "Karim" of "我朋友Karim住在温哥华"; after 叫: "Erik" of "我哥哥叫Erik"), or None."""
    at = text.find(word)
    if at < 0:
        return None
    rest = text[at + len(word):]
    rest = re.sub(r"^\s*(?:名叫|叫做|叫)", "", rest)  # "我哥哥叫Erik", "我妹妹名叫英格丽": the name after 叫
    latin = re.match(r"\s*([A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?)(?![A-Za-z0-9])", rest)
    if latin:  # a name in Latin letters ("我朋友Karim住在温哥华"): a Chinese sentence writes no capital of its own
        return latin.group(1)
    name = names_a_person_first(rest)
    if name is None:  # a name jieba does not know at all comes apart into single unknown characters ("莉", "娜")
        unknown = "".join(w for w, _ in itertools.takewhile(lambda t: t[1] == "x" and _CJK_RUN.fullmatch(t[0]),
                                                           tagged(rest[:6])))
        name = unknown if 2 <= len(unknown) <= 4 else None
    return name


# English number words (a closed class): "twelve" is 12 wherever a number is compared
EN_NUMERALS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
               "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
               "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
               "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100}
ZH_NUMERAL_CHARS = "零〇一二两三四五六七八九十百千万"
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000}


def chinese_numeral(numeral: str) -> int | None:
    """The value of a Chinese numeral ("三十" 30, "十二" 12, "三千五" 3500, "三千零五" 3005, "一万二" 12000), or None
    for a character that is none. Without a unit character it is read digit by digit ("二零二六" 2026)."""
    if not numeral or any(ch not in _ZH_DIGITS and ch not in _ZH_UNITS and ch != "万" for ch in numeral):
        return None
    if not any(ch in _ZH_UNITS or ch == "万" for ch in numeral):
        value = 0
        for ch in numeral:
            value = value * 10 + _ZH_DIGITS[ch]
        return value
    total, section, digit, unit = 0, 0, 0, 1
    for ch in numeral:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch in _ZH_UNITS:
            unit = _ZH_UNITS[ch]
            section += (digit or 1) * unit
            digit = 0
        else:  # 万
            total, section, digit, unit = (total + section + digit) * 10000, 0, 0, 10000
    # a digit right after 百, 千 or 万 counts the next unit down: 三千五 is 3500, 两百五 250 (三千零五 is 3005)
    if digit and numeral[-2] in "百千万":
        digit *= unit // 10
    return total + section + digit


# jieba's parts of speech for proper names: a person (nr, nrt: transliterated, nrfg), a place (ns), an organisation
# (nt), another proper noun (nz)
_PROPER_TAGS = frozenset({"nr", "nrt", "nrfg", "ns", "nt", "nz"})
_SURNAME = re.compile(r"姓([\u4e00-\u9fff])(?![\u4e00-\u9fff]*[吗呢么?？])")
_QUOTED = re.compile(r"[\"“「『《]([^\"”」』》]{1,20})[\"”」』》]")


def quoted(text: str) -> list[str]:
    """What ``text`` quotes in Chinese (名为“百味斋”, 《三体》, 被诊断为“不健康”): a name, or a claim in its words."""
    return [m.group(1).strip() for m in _QUOTED.finditer(text) if _CJK_RUN.search(m.group(1))]


ROMANIZED_LONGEST = 4  # characters: a place or a person's given and family name ("乌鲁木齐", "欧阳小雨" are 4)


def spelled(name: str) -> str:
    """A Chinese ``name`` in toneless pinyin, lower case, without spaces ("anna" of 安娜, "lina" of 莉娜)."""
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(name)).lower()


@cache
def romanized(text: str) -> frozenset[str]:
    """Every run of two to :data:`ROMANIZED_LONGEST` Chinese characters of ``text`` in toneless pinyin, lower case
    and without spaces ("我住在成都" holds "chengdu", "zhucheng", …): what an English sentence writes for a Chinese
    name it translates ("Chengdu", "Xiaoyu"). Read in context (pypinyin's phrase table: 重庆 is "chongqing"). One
    character alone is not one: a syllable such as "mei" (没) or "he" (和) is in most Chinese text."""
    from pypinyin import lazy_pinyin

    out: set[str] = set()
    for run in _CJK_RUN.findall(text):
        syllables = lazy_pinyin(run)
        if len(syllables) != len(run):  # one syllable per character, or the positions do not line up
            continue
        for i in range(len(syllables)):
            for j in range(i + 2, min(i + ROMANIZED_LONGEST, len(syllables)) + 1):
                out.add("".join(syllables[i:j]))
    return frozenset(out)


def chinese_names(text: str) -> list[str]:
    """The proper names a Chinese ``text`` says: words jieba tags as a person, a place, an organisation or another
    proper noun ("佩洛西", "罗德曼", "浙江大学"), and what it quotes ("百味斋" of 名为“百味斋”的餐厅, 《三体》): a
    name is quoted or tagged, whatever it names. jieba's tags err (it tags 哥哥 a place): the caller compares
    them with what was said."""
    out = quoted(text)
    out += _SURNAME.findall(text)  # 姓周: a surname is one character, too short for a tag
    for run in _CJK_RUN.findall(text):
        out += [word for word, flag in tagged(run) if flag in _PROPER_TAGS and len(word) >= 2]
    return out


def chinese_compounds(text: str) -> frozenset[str]:
    """The names the Chinese in ``text`` writes as two nouns or more in a row, as written ("阳光小学" of
    "她现在在阳光小学读书", jieba's 阳光 + 小学): a name whose every word is said elsewhere in a message (育才小学,
    阳光小学) is still one thing, and a rewording that keeps the words apart ("阳光学校") does not say it."""
    found: set[str] = set()
    for run in _CJK_RUN.findall(text):
        words: list[str] = []
        for word, flag in [*tagged(run), ("", "")]:
            if flag.startswith(("n", "eng")) and len(word) > 1:
                words.append(word)
                continue
            if len(words) > 1:
                found.add("".join(words))
            words = []
    return frozenset(found)


def chinese_nouns(text: str) -> frozenset[str]:
    """The words of the Chinese in ``text`` that jieba's lexicon tags as nouns (of every kind: places,
    organisations, names) and that are longer than a character ("咖啡", "里斯本", "乌龙茶"): what names a thing,
    by a closed grammar, not a list of subjects."""
    return frozenset(word for run in _CJK_RUN.findall(text) for word, flag in tagged(run)
                     if len(word) > 1 and flag.startswith(("n", "eng")))
