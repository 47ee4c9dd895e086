"""Who a statement is about and what it says of them: one table of persons and slots, English and Chinese (pure
logic, no model).

A memory's slots are ``person:slot`` keys ("self:residence", "sister:name", "self:favourite:book"): the gates let a
verdict act on a memory only about the same slot of the same person (:mod:`memory.language.gates`), facts are cut
where a statement moves from one one-valued slot to another (:mod:`memory.language.facts`), links and recall read
the persons (:mod:`memory.language.links`, :mod:`memory.recall`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memory.language.text import CJK
from memory.language.words import chinese_name_after, names_a_person_first, names_a_person_in, spelled

PERSON_EN = ("sister", "brother", "wife", "husband", "son", "daughter", "mother", "mom", "mum", "father", "dad",
             "boyfriend", "girlfriend", "partner", "boss", "friend", "colleague", "grandmother", "grandfather",
             "grandma", "grandpa", "uncle", "aunt", "cousin", "child", "kid", "baby", "fiancé", "fiancee", "niece",
             "nephew", "neighbour", "neighbor", "roommate", "flatmate", "teammate", "classmate")
PERSON_ZH = ("妹妹", "姐姐", "哥哥", "弟弟", "妻子", "老婆", "太太", "丈夫", "老公", "先生",
             "儿子", "女儿", "妈妈", "母亲", "爸爸", "父亲", "男朋友", "女朋友", "对象", "老板",
             "领导", "朋友", "同事", "奶奶", "爷爷", "外婆", "外公", "姥姥", "叔叔", "阿姨",
             "舅舅", "表哥", "表姐", "孩子", "宝宝", "未婚妻", "未婚夫", "表弟", "表妹", "侄子", "侄女",
             "外甥", "外甥女", "邻居", "室友", "同学", "队友", "妈", "爸", "哥", "姐", "弟", "妹")
# The user, speaking ("I", "my", "我"), and as an extractor names them ("The user lives in…", "用户住在…").
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'll|i'd|my|me|mine|we|our|us)\b|我|咱", re.IGNORECASE)
THE_USER = re.compile(r"\b(?:the\s+)?user(?:'s)?\b|用户", re.IGNORECASE)
# The person a fact is about: named at its start ("My sister Anna lives in Paris"); "I live here with my wife"
# is still about the user.
_OWNER_EN = re.compile(r"^\W*(?:\w+:\s*)?(?:my|his|her|their|the user'?s|user'?s|our)\s+(?:\w+\s+)?("
                       + "|".join(PERSON_EN) + r")s?\b", re.IGNORECASE)
_OWNER_ZH = re.compile(r"^\W*(?:\w{1,4}[：:]\s*)?(?:我|用户|他|她)的?("
                       + "|".join(sorted(PERSON_ZH, key=len, reverse=True)) + ")")

# What someone is by trade: "I am a software engineer at Alibaba" holds the work slot as "I work at Alibaba" does.
_OCCUPATIONS_EN = ("engineer", "developer", "programmer", "doctor", "nurse", "teacher", "lawyer", "accountant",
                   "designer", "manager", "scientist", "analyst", "consultant", "researcher", "professor", "intern",
                   "architect", "editor", "chef", "pilot", "technician", "salesperson", "director", "officer",
                   "specialist", "clerk", "dentist", "pharmacist", "journalist", "librarian", "mechanic",
                   "electrician", "plumber", "paramedic", "surgeon", "physician", "therapist", "cashier")
_OCCUPATIONS_ZH = ("工程师", "程序员", "医生", "护士", "老师", "教师", "律师", "会计", "设计师", "经理", "分析师",
                   "顾问", "研究员", "教授", "实习生", "架构师", "编辑", "厨师", "飞行员", "技术员", "销售", "总监",
                   "主管", "职员", "员工", "记者", "司机", "店员", "医师", "药剂师")

# An age as a statement gives it: "5 years old", "turns 40", "五岁", "12岁" (the age slot; and no date: "今年五岁").
_AGE_EN = r"\b\d+ years? old\b|\bturns? \d+\b"
_AGE_ZH = r"[\d一二两三四五六七八九十]+岁"
AGE = re.compile(f"{_AGE_EN}|{_AGE_ZH}", re.IGNORECASE)

# slot -> patterns (English, Chinese). A memory's slots are those whose pattern it matches.
_SLOTS: dict[str, tuple[str, str]] = {
    "residence": (r"\b(live[sd]?|(?<!for a )living|moved|move[sd]?|moving|relocat\w*|resid\w*|home ?town|based in)\b",
                  # 住 after 得 or 不 is a verb's result ("记不住", "靠得住": can or cannot hold), not living
                  # somewhere, unless a place follows ("我不住在杭州了")
                  r"(?<![记抓顶站忍禁得不])住|不住在|搬到|搬家|定居|老家|家在"),
    "work": (r"\b(work(s|ed|ing)?|job|employ\w*|career|profession|occupation|for a living)\b|(\b(am|is|are|was|"
             r"were|as)|"
             r"['’](m|s|re))\s+(a|an)\s+([\w-]+\s+){0,2}?("
             + "|".join(_OCCUPATIONS_EN) + r")s?\b",
             r"工作|上班|就职|任职|职业|单位|(?<![想要望算])(是|当|做)[^，。,.；;]{0,12}?("
             + "|".join(_OCCUPATIONS_ZH) + ")"
             # or any word a trade's suffix makes one (面包师, 摄影师, 快递员, 公务员), whole
             r"|(?<![想要望算])(是|当|做)(一名|一位|一个|名|位|个)?[一-鿿]{1,4}?[师员](?=了|[^一-鿿]|$)"),
    "name": (r"\b(name is|named|called|call me)\b", r"名字|叫"),
    "birthday": (r"\b(birthday|born)\b", r"生日|出生"),
    "age": (_AGE_EN + r"|\bage[ds]?\b", _AGE_ZH + r"|年龄|年纪"),
    "passport": (r"\bpassport\b", r"护照"),
    "phone": (r"\b(phone|mobile|cell)\b", r"电话|手机号"),
    "email": (r"\be-?mail\b", r"邮箱|电子邮件"),
    "allergy": (r"\ballerg\w*", r"过敏"),
    "pet": (r"\b(dog|cat|pet|puppy|kitten)s?\b", r"狗|猫|宠物"),
    "car": (r"\b(car|drives?)\b", r"车"),
    "school": (r"\b(school|university|college|studies|studying|major)\b", r"学校|大学|读书|专业|上学"),
}
_SLOT_RES = {name: (re.compile(en, re.IGNORECASE), re.compile(zh)) for name, (en, zh) in _SLOTS.items()}
_FAVOURITE_EN = re.compile(r"\bfavou?rite\s+(\w+)", re.IGNORECASE)
_FAVOURITE_ZH = re.compile(r"最喜欢的([\u3400-\u9fff]{1,4}?)(?:是|：|:|叫|为)")
# A favourite's noun in one spelling, so "favourite book" and "最喜欢的书" name one slot.
_FAVOURITE_NOUN = {"movie": "film", "电影": "film", "影片": "film", "书": "book", "小说": "book", "歌": "song",
                   "歌曲": "song", "colour": "color", "颜色": "color", "食物": "food", "菜": "food", "运动": "sport",
                   "歌手": "singer", "饮料": "drink", "水果": "fruit", "城市": "city", "动物": "animal",
                   "游戏": "game", "writer": "author", "作家": "author", "作者": "author", "乐队": "band",
                   "演员": "actor", "电视剧": "show", "节目": "show", "剧": "show", "季节": "season", "花": "flower",
                   "茶": "tea", "咖啡": "coffee", "国家": "country", "球队": "team", "画家": "painter"}


# "I have a daughter called Lily", "我有一个女儿叫小雨": the name (and the age after it) is the daughter's.
_INTRODUCES_EN = re.compile(r"^\W*(?:i|the user)\s+(?:have|has|had|got)\s+(?:a|an|one|two|three|\d+)\s+"
                            r"(?:[\w-]+\s+){0,2}?(" + "|".join(PERSON_EN) + r")s?\b", re.IGNORECASE)
_INTRODUCES_ZH = re.compile(r"^\W*(?:我|用户)有(?:一个|一位|个|位|两个|三个|\d+个)?(?:[\u3400-\u9fff]{0,3}?的)?("
                            + "|".join(sorted(PERSON_ZH, key=len, reverse=True)) + ")")


def person(text: str) -> str:
    """Whom ``text`` is about: a kinship word ("sister", "妹妹"), or "self"."""
    m = _OWNER_EN.search(text) or _INTRODUCES_EN.search(text)
    if m:
        return m.group(1).lower()
    z = _OWNER_ZH.search(text) or _INTRODUCES_ZH.search(text)
    return z.group(1) if z else "self"


# The user's own name and age, said of the user ("My name is Lena", "call me Lena", "I'm 34", "我叫王芳",
# "我今年三十岁"): a name or an age in a statement about the user that is not said of the user is a thing's ("I have a
# dog named Rex, he is 4", "My cat Miso is 3 years old", "我养了一只猫叫咪咪"): the user's pet, car or plant, never the
# user's slot (a probe: the cat's name followed the user's, and recall put it first for "What's my name?").
_USER_NAMED = re.compile(r"\bmy name\b|\bcall me\b|\b(?:i'm|i am|i was) (?:called|named)\b|\bthe user'?s name\b|"
                         r"\bthe user is (?:called|named)\b|"
                         r"(?:我|用户)(?:现在|就|也|还|本来)?(?:叫|名叫)|(?:我|用户)的名字",
                         re.IGNORECASE)
_USER_AGED = re.compile(r"\b(?:i'm|i am|i was|i turn(?:s|ed)?|i'm turning|i will be|i'll be|the user is)\s+(?:now\s+"
                        r"|just\s+|already\s+|almost\s+|nearly\s+)?\d+\b|\bmy age\b|\bthe user'?s age\b|"
                        r"(?:我|用户)(?:今年|已经|现在|快|刚|刚满|才)?[\d一二三四五六七八九十两]+岁|"
                        r"(?:我|用户)的(?:年龄|年纪)", re.IGNORECASE)
# A question about a thing of the user's by its name or age ("What's my dog called?", "How old is my cat?", "我的猫
# 叫什么？"), not about the user: "my" before a noun that is no person.
_ASKS_OF_A_THING = re.compile(r"\bmy\s+(?!name\b|age\b)[a-z][\w-]*\b|我的?(?!名字|年龄|年纪)[\u3400-\u9fff]{1,3}?"
                              r"(?:叫|的名字|几岁|多大|的年龄)", re.IGNORECASE)


# How a statement says a name or an age ("named", "is called", "my name is", "4 years old", "叫", "三岁"): the wording
# of the slot, which two statements share whoever's name or age they give ("I have a dog named Rex, he is 4 years
# old" and "My name is Lena Weber"; "I'm 34 years old"): no evidence that one follows the other.
_NAME_OR_AGE_WORDING = re.compile(r"\b(?:name[sd]?|called|call)\b|" + _AGE_EN + "|" + _AGE_ZH + r"|名叫|名字|叫",
                                  re.IGNORECASE)


def without_name_or_age_wording(text: str) -> str:
    """``text`` without the words that say a name or an age (:data:`_NAME_OR_AGE_WORDING`), what is named or aged
    left: for comparing what two statements are about."""
    return _NAME_OR_AGE_WORDING.sub(" ", text)


def slots(text: str) -> frozenset[str]:
    """What ``text`` is about, as ``person:slot`` keys ("self:residence", "sister:name", "self:favourite:book")."""
    who = person(text)
    found = {f"{who}:{name}" for name, (en, zh) in _SLOT_RES.items() if en.search(text) or zh.search(text)}
    if who == "self":  # a thing's name or age is not the user's
        if not _USER_NAMED.search(text):
            found.discard("self:name")
        if not _USER_AGED.search(text):
            found.discard("self:age")
    nouns = [m.lower().rstrip("s") for m in _FAVOURITE_EN.findall(text)] + _FAVOURITE_ZH.findall(text)
    found |= {f"{who}:favourite:{_FAVOURITE_NOUN.get(n, n)}" for n in nouns}
    if any(k.startswith(f"{who}:favourite:") for k in found):  # "favourite book" is its own slot, not "name"
        found.discard(f"{who}:name")
    if who != "self" and not found:
        found.add(f"{who}:")  # something about the sister: the same person at least
    return frozenset(found)


# One name per person across the two languages, for matching a question in one language with a memory in the other.
PERSON_CANON = {"妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妻子": "wife",
                 "老婆": "wife", "太太": "wife", "丈夫": "husband", "老公": "husband", "先生": "husband",
                 "儿子": "son", "女儿": "daughter", "妈妈": "mother", "母亲": "mother", "mom": "mother",
                 "mum": "mother", "爸爸": "father", "父亲": "father", "dad": "father", "男朋友": "boyfriend",
                 "女朋友": "girlfriend", "对象": "partner", "老板": "boss", "领导": "boss", "朋友": "friend",
                 "同事": "colleague", "奶奶": "grandmother", "外婆": "grandmother", "姥姥": "grandmother",
                 "grandma": "grandmother", "爷爷": "grandfather", "外公": "grandfather", "grandpa": "grandfather",
                 "叔叔": "uncle", "舅舅": "uncle", "阿姨": "aunt", "表哥": "cousin", "表姐": "cousin",
                 "孩子": "child", "kid": "child", "宝宝": "baby", "未婚妻": "fiancee", "fiancé": "fiancee",
                 "未婚夫": "fiance", "表弟": "cousin", "表妹": "cousin", "侄子": "nephew",
                 "侄女": "niece", "外甥": "nephew", "外甥女": "niece", "邻居": "neighbour", "neighbor": "neighbour",
                 "室友": "roommate", "flatmate": "roommate", "同学": "classmate", "队友": "teammate",
                 "妈": "mother", "爸": "father", "哥": "brother", "姐": "sister", "弟": "brother", "妹": "sister"}
# A question names its person anywhere ("What is my wife's name?") and asks for a slot in fewer words than a
# statement gives it ("name", "how old").
_ASKEDPERSON_EN = re.compile(r"\bmy\s+(?:\w+\s+)?(" + "|".join(PERSON_EN) + r")s?\b", re.IGNORECASE)
_ASKEDPERSON_ZH = re.compile(r"我的?(" + "|".join(sorted(PERSON_ZH, key=len, reverse=True)) + ")")
# the words that ask for a name or an age (what kind of answer, not what it is about)
ASKED_SLOTS = {"name": re.compile(r"\bname\b|叫什么|名字", re.IGNORECASE),
                "age": re.compile(r"\bhow old\b|多大|几岁", re.IGNORECASE)}


_CAPITALISED = re.compile(r"(?<![A-Za-z0-9'’])[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?(?![A-Za-z0-9])")


# Function words that open a sentence capitalised without naming anything (a closed class, not subjects): the links
# and the answer check read a capitalised word that opens a sentence as a name unless it is one.
FUNCTION_OPENERS = frozenset({
    "i", "i'm", "i've", "i'd", "i'll", "my", "me", "we", "our", "us", "you", "your", "he", "she", "they", "it",
    "his", "her", "their", "its", "the", "a", "an", "this", "that", "these", "those", "and", "but", "so", "then",
    "also", "now", "just", "last", "next", "yesterday", "today", "tomorrow", "since", "after", "before",
    "when", "every", "each", "there", "here", "recently", "lately", "currently", "still", "no", "not", "mr", "mrs",
    "ms", "dr", "prof", "as", "at", "in", "on", "for", "from", "with", "by", "to", "of", "we're", "we've",
    "you're", "he's", "she's", "they're", "it's", "there's",
})


def _function_word(word: str) -> bool:
    return word.lower() in FUNCTION_OPENERS


def asked_name(question: str) -> str | None:
    """The person a question asks about by name, not about the user (no "I", "my", "我" in it), lower-cased:
    "karim" of "Karim现在住在哪里？" and of "Where does Karim live now?", "英格丽" of "英格丽现在做什么工作？"
    (jieba's part of speech), else None. In an English question a capitalised word after its first counts; in a
    Chinese one any Latin word with a capital (a Chinese sentence writes none of its own)."""
    if FIRST_PERSON.search(question) or THE_USER.search(question):
        return None
    if CJK.search(question):
        latin = next((w for w in _CAPITALISED.findall(question) if not _function_word(w)), None)
        return latin.lower() if latin else names_a_person_in(question)
    words = [m for m in _CAPITALISED.finditer(question) if m.start() > 0 and question[:m.start()].strip()]
    return next((m.group(0).lower() for m in words if not _function_word(m.group(0))), None)


def asked_slots(question: str, alias: Mapping[str, str] | None = None) -> frozenset[str]:
    """The ``person:slot`` keys a question asks about, persons in one language ("wife:name" for "What is my wife's
    name?" and for "我妻子叫什么名字？"); a person asked about by name (:func:`asked_name`) is that name ("karim:
    residence" for "Karim现在住在哪里？"), or its kinship word where ``alias`` (:func:`aliases`) knows it."""
    m = _ASKEDPERSON_EN.search(question) or _ASKEDPERSON_ZH.search(question)
    named = None if m else asked_name(question)
    who = m.group(1).lower() if m else (alias or {}).get(named, named) if named else "self"
    names = {name for name, (en, zh) in _SLOT_RES.items() if en.search(question) or zh.search(question)}
    names |= {name for name, pattern in ASKED_SLOTS.items() if pattern.search(question)}
    if who == "self" and _ASKS_OF_A_THING.search(question):  # "What's my dog called?": the dog's, no slot of the user
        names -= {"name", "age"}
    nouns = [n.lower().rstrip("s") for n in _FAVOURITE_EN.findall(question)] + _FAVOURITE_ZH.findall(question)
    names |= {f"favourite:{_FAVOURITE_NOUN.get(n, n)}" for n in nouns}
    return frozenset(f"{PERSON_CANON.get(who, who)}:{name}" for name in names)


def held_slots(text: str) -> frozenset[str]:
    """:func:`slots` of a memory with its person in one language."""
    out = set()
    for key in slots(text):
        who, _, name = key.partition(":")
        out.add(f"{PERSON_CANON.get(who, who)}:{name}")
    return frozenset(out)


# Slots that hold one value at a time: a new value replaces the old one. (Pets, allergies, cars: people have several.)
_SINGLE_VALUED = ("residence", "work", "name", "birthday", "age", "passport", "phone", "email", "school", "favourite:")


def single_valued_slots(text: str) -> frozenset[str]:
    """The slots of ``text`` that hold one value at a time (residence, work, a favourite X, ...)."""
    return single_valued(slots(text))


def single_valued(keys: frozenset[str]) -> frozenset[str]:
    """The ``person:slot`` keys of ``keys`` whose slot holds one value at a time."""
    return frozenset(k for k in keys if any(k.split(":", 1)[1].startswith(s) for s in _SINGLE_VALUED))


def aliases(texts: Sequence[str]) -> dict[str, str]:
    """Names the user's own words give a kinship word ("My sister Ingrid…", "我妹妹英格丽…": "ingrid" and "英格丽" are
    "sister"; a Chinese name's pinyin too, "anna" of 安娜), from ``texts`` (memories): a name given two kinship words
    is nobody's alias."""
    found: dict[str, set[str]] = {}
    for text in texts:
        who = person(text)
        kin = PERSON_CANON.get(who, who)
        if kin not in PERSON_CANON.values():
            continue
        after = re.search(r"\b" + re.escape(who) + r"s?\s+([A-Z][a-z]+)\b", text, re.IGNORECASE) if who.isascii() \
            else None
        name = after.group(1).lower() if after and after.group(1)[0].isupper() else chinese_name_after(text, who)
        if name:
            found.setdefault(name.lower(), set()).add(kin)
            if CJK.search(name):  # and its pinyin, as an English sentence may write it ("Anna quit nursing" after
                # "我有一个姐姐叫安娜": a seventh new user's trial never linked the sister's new job)
                found.setdefault(spelled(name), set()).add(kin)
    return {name: next(iter(kins)) for name, kins in found.items() if len(kins) == 1}


def opening_name(text: str) -> str | None:
    """The name ``text`` opens with, lower-cased: a Chinese person's name (jieba's part of speech) or a capitalised
    Latin word (a name or not: "Ingrid", "The"), or None."""
    if CJK.search(text):
        return names_a_person_first(text)
    first = re.match(r"\W*([A-Z][a-z]+)(?![A-Za-z0-9])", text)
    return first.group(1).lower() if first else None


def alias_of(text: str, alias: Mapping[str, str] | None) -> str | None:
    """The kinship word of the name ``text`` opens with, where ``alias`` (:func:`aliases`) knows that name:
    "sister" for "英格丽不当放射科医生了" and for "Ingrid quit radiology" beside "My sister Ingrid…"; else None."""
    if not alias:
        return None
    name = opening_name(text)
    if name is None and CJK.search(text):  # a name jieba does not tag ("诺拉"), as the user's memories wrote it
        start = text.lstrip(" \t\"'“‘(")
        name = max((n for n in alias if CJK.match(n) and start.startswith(n)), key=len, default=None)
    return alias.get(name) if name else None


def slots_as(text: str, alias: Mapping[str, str] | None = None) -> frozenset[str]:
    """:func:`held_slots` of ``text``, read as its person where ``alias`` knows the name it opens with: "英格丽不当放射
    科医生了" holds "sister:work", not "self:work", beside "My sister Ingrid works as a radiologist"."""
    held = held_slots(text)
    kin = alias_of(text, alias)
    if kin is None:
        return held
    return frozenset(k.replace("self:", f"{kin}:", 1) if k.startswith("self:") else k for k in held)


def named_first(text: str) -> str | None:
    """The person's name ``text`` opens with, lower-cased: jieba's name in Chinese ("英格丽不当放射科医生了"), a
    capitalised word that is no function word ("Karim lives in 温哥华", "Karim住在温哥华"), else None."""
    if CJK.search(text) and (name := names_a_person_first(text)) is not None:
        return name
    first = re.match(r"\W*([A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)?)(?![A-Za-z0-9'’])", text)
    return first.group(1).lower() if first and not _function_word(first.group(1)) else None


def a_person_in(name: str, texts: Sequence[str], alias: Mapping[str, str] | None = None) -> bool:
    """Do ``texts`` (memories) speak of ``name`` (lower-cased) as a person: a kinship word given to it ("My friend
    Karim…", "我朋友Karim…") or a sentence about it opening with it ("Karim lives in…")? A place they name
    ("I moved to Lyon") is none. ``alias``: :func:`aliases` of ``texts``, when the caller has it."""
    return name in (aliases(texts) if alias is None else alias) or any(named_first(t) == name for t in texts)


def holds(text: str, asked: frozenset[str], alias: Mapping[str, str] | None = None) -> bool:
    """Does ``text`` hold one of the ``asked`` slots (:func:`asked_slots`)? The slot table reads a sentence that
    names nobody as the user's ("Meeting with the design team moved to Friday" holds "self:residence"): a memory
    about the user says so ("I", "我", "the user"). A Chinese sentence opening with a name is about that name
    ("英格丽不当放射科医生了": jieba's part of speech), and with ``alias`` (:func:`aliases`), a name's kinship word:
    "英格丽:work" is "sister:work" where a memory says "我妹妹英格丽" (a third new user's trial: the sister's new
    job, read as the user's, was never recalled for "What does my sister do now?"); so is an English sentence that
    opens with such a name ("Nora quit being a baker…" beside "我奶奶诺拉…")."""
    held = slots_as(text, alias)
    opening = named_first(text)
    if opening is not None:  # a name the memories give a kinship word is that person ("karim" of "my friend Karim")
        opening = (alias or {}).get(opening, opening)
        opening = PERSON_CANON.get(opening, opening)
    if opening is not None:  # not the user's: "英格丽不当放射科医生了" holds no "self:work" (an aliased name is
        # its kinship word already: slots_as)
        held = frozenset(k.replace("self:", f"{opening}:", 1) if k.startswith("self:") else k for k in held)
    found = held & asked
    return bool(found) and (any(not k.startswith("self:") for k in found)
                            or bool(FIRST_PERSON.search(text) or THE_USER.search(text)))
