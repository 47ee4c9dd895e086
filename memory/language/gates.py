"""Deterministic gates on the verifier's verdicts (pure logic, no model): what a verdict may do to memory.

A model's verdict is untrusted input. ``duplicate`` may merge a candidate into an existing memory only when the
two say the same thing (cosine at least the embedder's duplicate threshold, the same numbers, and the candidate's
content words almost all in the existing memory: a duplicate that adds detail is stored). ``update`` and
``conflict`` may retire or dispute an existing memory only when both are about the same thing: the same slot
(where the user lives, works, their favourite book, their sister's name, ...) for the same person, or, for facts
no slot covers, mostly the same content words. A verdict that fails its gate, or whose reason argues for another
decision, becomes ``add``: both memories stay, nothing is lost.

Thresholds are per embedder (the bundled e5's cosines sit in a narrow band: unrelated sentences score ~0.8);
``tests/data/gate_pairs.py`` holds the labelled English and Chinese pairs they are calibrated on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.language.attribution import content_units


@dataclass(frozen=True)
class GateConfig:
    duplicate_cosine: float  # at least this similar to be the same statement
    topic_cosine: float  # at least this similar to be about the same thing (with shared words)
    slot_cosine: float = 0.0  # with the same slot of the same person (the stronger evidence); 0: topic_cosine
    duplicate_coverage: float = 0.6  # share of the candidate's content units the existing memory must contain
    topic_overlap: float = 0.5  # Jaccard of content units when no slot names the subject


# Calibrated on tests/data/gate_pairs.py: e5 duplicates >= 0.988, same-thing pairs 0.887-0.972 in one language and
# 0.805-0.831 across English and Chinese (a slot in common), other 0.756-0.936.
GATES_BY_EMBEDDER: dict[str, GateConfig] = {
    "e5": GateConfig(duplicate_cosine=0.97, topic_cosine=0.85, slot_cosine=0.78),
}
# For an embedder that is not calibrated: OpenAI-style models spread cosines widely (unrelated ~0.1-0.3).
DEFAULT_GATES = GateConfig(duplicate_cosine=0.9, topic_cosine=0.5, slot_cosine=0.5)


def gates_for(embedder: str) -> GateConfig:
    """The calibrated gates of an embedder (by name: "e5" for the bundled one), else the generic ones."""
    key = embedder.lower()
    return next((g for name, g in GATES_BY_EMBEDDER.items() if name in key), DEFAULT_GATES)


_PERSON_EN = ("sister", "brother", "wife", "husband", "son", "daughter", "mother", "mom", "mum", "father", "dad",
              "boyfriend", "girlfriend", "partner", "boss", "friend", "colleague", "grandmother", "grandfather",
              "grandma", "grandpa", "uncle", "aunt", "cousin", "child", "kid", "baby", "fiancé", "fiancee", "niece",
              "nephew", "neighbour", "neighbor", "roommate", "flatmate", "teammate", "classmate")
_PERSON_ZH = ("妹妹", "姐姐", "哥哥", "弟弟", "妻子", "老婆", "太太", "丈夫", "老公", "先生",
              "儿子", "女儿", "妈妈", "母亲", "爸爸", "父亲", "男朋友", "女朋友", "对象", "老板",
              "领导", "朋友", "同事", "奶奶", "爷爷", "外婆", "外公", "姥姥", "叔叔", "阿姨",
              "舅舅", "表哥", "表姐", "孩子", "宝宝", "未婚妻", "未婚夫", "表弟", "表妹", "侄子", "侄女",
              "外甥", "外甥女", "邻居", "室友", "同学", "队友", "妈", "爸", "哥", "姐", "弟", "妹")
# The person a fact is about: named at its start ("My sister Anna lives in Paris"); "I live here with my wife"
# is still about the user.
_OWNER_EN = re.compile(r"^\W*(?:\w+:\s*)?(?:my|his|her|their|the user'?s|user'?s|our)\s+(?:\w+\s+)?("
                       + "|".join(_PERSON_EN) + r")s?\b", re.IGNORECASE)
_OWNER_ZH = re.compile(r"^\W*(?:\w{1,4}[：:]\s*)?(?:我|用户|他|她)的?("
                       + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + ")")

# What someone is by trade: "I am a software engineer at Alibaba" holds the work slot as "I work at Alibaba" does.
_OCCUPATIONS_EN = ("engineer", "developer", "programmer", "doctor", "nurse", "teacher", "lawyer", "accountant",
                   "designer", "manager", "scientist", "analyst", "consultant", "researcher", "professor", "intern",
                   "architect", "editor", "chef", "pilot", "technician", "salesperson", "director", "officer",
                   "specialist", "clerk", "dentist", "pharmacist", "journalist", "librarian", "mechanic",
                   "electrician", "plumber", "paramedic", "surgeon", "physician", "therapist", "cashier")
_OCCUPATIONS_ZH = ("工程师", "程序员", "医生", "护士", "老师", "教师", "律师", "会计", "设计师", "经理", "分析师",
                   "顾问", "研究员", "教授", "实习生", "架构师", "编辑", "厨师", "飞行员", "技术员", "销售", "总监",
                   "主管", "职员", "员工", "记者", "司机", "店员", "医师", "药剂师")

# slot -> patterns (English, Chinese). A memory's slots are those whose pattern it matches.
_SLOTS: dict[str, tuple[str, str]] = {
    "residence": (r"\b(live[sd]?|living|moved|move[sd]?|moving|relocat\w*|resid\w*|home ?town|based in)\b",
                  r"(?<![记抓顶站忍禁])住|搬到|搬家|定居|老家|家在"),
    "work": (r"\b(work(s|ed|ing)?|job|employ\w*|career|profession|occupation)\b|(\b(am|is|are|was|were|as)|"
             r"['’](m|s|re))\s+(a|an)\s+([\w-]+\s+){0,2}?("
             + "|".join(_OCCUPATIONS_EN) + r")s?\b",
             r"工作|上班|就职|任职|职业|单位|(?<![想要望算])(是|当|做)[^，。,.；;]{0,12}?("
             + "|".join(_OCCUPATIONS_ZH) + ")"),
    "name": (r"\b(name is|named|called|call me)\b", r"名字|叫"),
    "birthday": (r"\b(birthday|born)\b", r"生日|出生"),
    "age": (r"\b(\d+ years? old|age[ds]?)\b", r"[\d一二两三四五六七八九十]+岁|年龄|年纪"),
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
_NUMBER = re.compile(r"\d+")


# "I have a daughter called Lily", "我有一个女儿叫小雨": the name (and the age after it) is the daughter's.
_INTRODUCES_EN = re.compile(r"^\W*(?:i|the user)\s+(?:have|has|had|got)\s+(?:a|an|one|two|three|\d+)\s+"
                            r"(?:[\w-]+\s+){0,2}?(" + "|".join(_PERSON_EN) + r")s?\b", re.IGNORECASE)
_INTRODUCES_ZH = re.compile(r"^\W*(?:我|用户)有(?:一个|一位|个|位|两个|三个|\d+个)?(?:[\u3400-\u9fff]{0,3}?的)?("
                            + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + ")")


def _person(text: str) -> str:
    m = _OWNER_EN.search(text) or _INTRODUCES_EN.search(text)
    if m:
        return m.group(1).lower()
    z = _OWNER_ZH.search(text) or _INTRODUCES_ZH.search(text)
    return z.group(1) if z else "self"


def slots(text: str) -> frozenset[str]:
    """What ``text`` is about, as ``person:slot`` keys ("self:residence", "sister:name", "self:favourite:book")."""
    who = _person(text)
    found = {f"{who}:{name}" for name, (en, zh) in _SLOT_RES.items() if en.search(text) or zh.search(text)}
    nouns = [m.lower().rstrip("s") for m in _FAVOURITE_EN.findall(text)] + _FAVOURITE_ZH.findall(text)
    found |= {f"{who}:favourite:{_FAVOURITE_NOUN.get(n, n)}" for n in nouns}
    if any(k.startswith(f"{who}:favourite:") for k in found):  # "favourite book" is its own slot, not "name"
        found.discard(f"{who}:name")
    if who != "self" and not found:
        found.add(f"{who}:")  # something about the sister: the same person at least
    return frozenset(found)


# One name per person across the two languages, for matching a question in one language with a memory in the other.
_PERSON_CANON = {"妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妻子": "wife",
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
_ASKED_PERSON_EN = re.compile(r"\bmy\s+(?:\w+\s+)?(" + "|".join(_PERSON_EN) + r")s?\b", re.IGNORECASE)
_ASKED_PERSON_ZH = re.compile(r"我的?(" + "|".join(sorted(_PERSON_ZH, key=len, reverse=True)) + ")")
_ASKED_SLOTS = {"name": re.compile(r"\bname\b|叫什么|名字", re.IGNORECASE),
                "age": re.compile(r"\bhow old\b|多大|几岁", re.IGNORECASE)}


def asked_slots(question: str) -> frozenset[str]:
    """The ``person:slot`` keys a question asks about, persons in one language ("wife:name" for "What is my wife's
    name?" and for "我妻子叫什么名字？")."""
    m = _ASKED_PERSON_EN.search(question) or _ASKED_PERSON_ZH.search(question)
    who = m.group(1).lower() if m else "self"
    names = {name for name, (en, zh) in _SLOT_RES.items() if en.search(question) or zh.search(question)}
    names |= {name for name, pattern in _ASKED_SLOTS.items() if pattern.search(question)}
    nouns = [n.lower().rstrip("s") for n in _FAVOURITE_EN.findall(question)] + _FAVOURITE_ZH.findall(question)
    names |= {f"favourite:{_FAVOURITE_NOUN.get(n, n)}" for n in nouns}
    return frozenset(f"{_PERSON_CANON.get(who, who)}:{name}" for name in names)


def held_slots(text: str) -> frozenset[str]:
    """:func:`slots` of a memory with its person in one language."""
    out = set()
    for key in slots(text):
        who, _, name = key.partition(":")
        out.add(f"{_PERSON_CANON.get(who, who)}:{name}")
    return frozenset(out)


# Slots that hold one value at a time: a new value replaces the old one. (Pets, allergies, cars: people have several.)
_SINGLE_VALUED = ("residence", "work", "name", "birthday", "age", "passport", "phone", "email", "school", "favourite:")
# The user says the value changed: "I moved to Shanghai", "I now work at ...", "我搬到了上海", "我现在在医院工作".
_CHANGE = re.compile(r"\b(moved|moving|relocated|now|no longer|anymore|any more|changed|switched|new (job|home|"
                     r"address|number|phone|email|school|favou?rite)|started (working|a new job)|these days)\b"
                     r"|现在|搬到|搬去|搬家|换了|换成|改成|改为|跳槽|不再|新工作|新家|如今|目前", re.IGNORECASE)
def says_change(text: str) -> bool:
    """Does ``text`` say that a value changed ("moved", "now", "现在", "搬到", "跳槽")?"""
    return bool(_CHANGE.search(text))


# A memory with several clauses says more than its slot: superseding it would retire the rest too.
_SEVERAL_CLAUSES = re.compile(r"[,;，；、]|\s(and|but)\s|而且|并且|还有|和我|也", re.IGNORECASE)


def single_valued_slots(text: str) -> frozenset[str]:
    """The slots of ``text`` that hold one value at a time (residence, work, a favourite X, ...)."""
    return frozenset(k for k in slots(text) if any(k.split(":", 1)[1].startswith(s) for s in _SINGLE_VALUED))


def _squeezed(text: str) -> str:
    return re.sub(r"[\s.。!！,，;；]+", "", text.lower())


def _subsequence(short: str, long: str) -> bool:
    rest = iter(long)
    return all(ch in rest for ch in short)


def drops_slot(candidate: str, message: str, held: frozenset[str] = frozenset()) -> bool:
    """Is ``candidate`` one of the message's statements with words left out, among them what said what it is
    about, or who? The extractor wrote "我在杭州" for "我住在杭州": the memory no longer says where the user lives,
    so a later "我搬到了上海" cannot retire it. The user's own clause is kept instead (fact_check). ``held``: the
    slots the turn's other candidates hold (a one-valued slot one of them keeps is not lost)."""
    from memory.language.junk import grounding_units, split_facts

    short = _squeezed(re.sub(r"^\s*用户", "我", candidate))  # the extractor's third person is the user's "I"
    if not short:
        return False
    units = grounding_units(candidate)
    for clause in split_facts(message):
        long = _squeezed(clause)
        if len(short) < len(long) and _subsequence(short, long) and slots(clause) - slots(candidate):
            return True
        # or it lost who the statement is about: "我喜欢小梅，她在北京读大学" for "我妹妹叫小梅，她在北京读大学",
        # "Mei's name is Mei" for "My sister's name is Mei"
        # or a one-valued slot: "I like the novel 'One Hundred Years of Solitude'" for "My favourite book is One
        # Hundred Years of Solitude" can never be retired by a new favourite
        lost = _people(clause) - _people(candidate) - {"self"}
        lost_slots = single_valued_slots(clause) - slots(candidate) - held
        if (lost or lost_slots) and units and len(units & grounding_units(clause)) / len(units) >= 0.5:
            return True
    return False


def _people(text: str) -> set[str]:
    return {k.split(":", 1)[0] for k in slots(text)}


_NEGATION = re.compile(r"\b(?:not|no|never|none|nobody|nothing)\b|n't|[不没别未无]", re.IGNORECASE)


def subsumed(short: str, long: str) -> bool:
    """Does ``long`` say all that ``short`` says, about the same things? Two candidates of one turn: "I love tea"
    and "I love green tea", "我喜欢书《红楼梦》" and "我最喜欢的书是《红楼梦》" (the extractor's restatement). Every
    number and slot of ``short`` is in ``long``, and its words all are, or it is ``long`` with words left out."""
    from memory.language.junk import grounding_units

    a, b = _squeezed(short), _squeezed(long)
    if not a or len(a) >= len(b) or not set(_NUMBER.findall(short)) <= set(_NUMBER.findall(long)):
        return False
    if not slots(short) <= slots(long) or len(_NEGATION.findall(short)) != len(_NEGATION.findall(long)):
        return False  # "I like tea" is not in "I do not like tea anymore"
    units = grounding_units(short)
    if not units:
        return False
    coverage = len(units & grounding_units(long)) / len(units)
    return coverage == 1.0 or (coverage >= 0.5 and _subsequence(a, b))


def states_change(candidate: str, existing: str, cosine: float, config: GateConfig) -> bool:
    """Does ``candidate`` say, in the user's words, that the value ``existing`` holds has changed? Both hold the same
    one-valued slot of the same person, the candidate names the change ("moved", "now", "现在", "搬到"...), the
    existing memory is one clause (retiring it retires nothing else) and the gates' topic test passes. A rule, not a
    model's verdict: a weak verifier that answers "add" must not leave two places the user lives both current."""
    if not _CHANGE.search(candidate) or _SEVERAL_CLAUSES.search(existing.strip().rstrip(".。!！")):
        return False
    if not single_valued_slots(candidate) & single_valued_slots(existing):
        return False
    return same_subject(candidate, existing, cosine, config)[0]


def _units(text: str) -> set[str]:
    return {u for u in content_units(text) if not u.isdigit()}


def same_statement(candidate: str, existing: str, cosine: float, config: GateConfig) -> tuple[bool, str]:
    """May ``candidate`` be merged into ``existing`` as a duplicate? (ok, why not)."""
    if cosine < config.duplicate_cosine:
        return False, f"not similar enough to be the same (cosine {cosine:.3f} < {config.duplicate_cosine})"
    if set(_NUMBER.findall(candidate)) != set(_NUMBER.findall(existing)):
        return False, "the numbers differ"
    a, b = slots(candidate), slots(existing)
    if a and b and not a & b:
        return False, "they are about different things"
    units = _units(candidate)
    if units:
        coverage = len(units & _units(existing)) / len(units)
        if coverage < config.duplicate_coverage:
            return False, f"the candidate adds detail ({coverage:.0%} of its words are in the memory)"
    return True, ""


def same_subject(candidate: str, existing: str, cosine: float, config: GateConfig) -> tuple[bool, str]:
    """May ``candidate`` update or dispute ``existing``: are both about the same thing? (ok, why not). A slot in
    common (the same person's residence, passport, favourite book...) is the stronger evidence and needs only
    ``slot_cosine``: a fact restated in the other language scores lower (e5: 0.81 for the same passport in English
    and Chinese)."""
    a, b = slots(candidate), slots(existing)
    needed = config.slot_cosine or config.topic_cosine if a & b else config.topic_cosine
    if cosine < needed:
        return False, f"not about the same thing (cosine {cosine:.3f} < {needed})"
    if a or b:
        if a & b:
            return True, ""
        return False, "they are about different things"
    ua, ub = _units(candidate), _units(existing)
    overlap = len(ua & ub) / len(ua | ub) if ua | ub else 0.0
    if overlap >= config.topic_overlap:
        return True, ""
    return False, f"they share too few words to be about the same thing ({overlap:.0%})"


def could_change(candidate: str, existing: str, cosine: float, config: GateConfig) -> bool:
    """Could any verdict act on ``existing`` (merge into it, update or dispute it)? If not, a verifier's answer
    about the pair cannot change memory: the gates would make it add."""
    return same_statement(candidate, existing, cosine, config)[0] or same_subject(candidate, existing, cosine,
                                                                                  config)[0]


_ARGUES = {
    "add": re.compile(r"\b(new (information|fact)|unrelated|not related|different (topic|thing|subject|fact|"
                      r"information)|no (relation|overlap)|not the same|does not (contradict|conflict|match|"
                      r"repeat)|doesn'?t (contradict|conflict|match)|no conflict|not a duplicate|not duplicate|"
                      r"independent)\b|不相关|无关|新信息|不同的|不是同一|没有冲突|不矛盾|不重复", re.IGNORECASE),
    "duplicate": re.compile(r"\b(same (thing|fact|information)|already (stored|known|says)|duplicate|identical|"
                            r"repeats?)\b|重复|相同|一样", re.IGNORECASE),
    "update": re.compile(r"\b(update[sd]?|changed|moved|now|replaces?|no longer|anymore)\b|更新|变了|搬|现在|不再",
                         re.IGNORECASE),
    "conflict": re.compile(r"\b(conflicts?|contradicts?|contradiction|inconsistent|disagree\w*)\b|冲突|矛盾|不一致",
                           re.IGNORECASE),
}


def reason_contradicts(decision: str, reason: str) -> bool:
    """The verdict's own reason argues for "add" while the decision is another one ("conflict" decided with
    "no conflict", "duplicate" decided with "this is new information"), or names only another decision."""
    if decision == "add" or not reason.strip():
        return False
    if _ARGUES["add"].search(reason):
        return True
    named = {d for d, pattern in _ARGUES.items() if d != "add" and pattern.search(reason)}
    if not named or decision in named:
        return False
    same_thing = {"update", "conflict"}  # either says both memories are about one thing
    return not (decision in same_thing and named <= same_thing)


@dataclass(frozen=True)
class Gated:
    decision: str  # the decision that is carried out
    note: str  # empty when the verdict passed; else why it became "add"


def gate(decision: str, reason: str, candidate: str, existing: str | None, cosine: float | None,
         config: GateConfig) -> Gated:
    """The decision a verdict may carry out on ``existing`` (None for add)."""
    if decision == "add" or existing is None or cosine is None:
        return Gated("add", "")
    if reason_contradicts(decision, reason):
        return Gated("add", f"the verifier said {decision} but its reason says otherwise ({reason.strip()[:80]!r})")
    if decision == "duplicate":
        ok, why = same_statement(candidate, existing, cosine, config)
    else:
        ok, why = same_subject(candidate, existing, cosine, config)
    return Gated(decision, "") if ok else Gated("add", f"the verifier said {decision}, but {why}")
