"""What is never a memory: questions, greetings, thanks, small talk, requests to the assistant, emoji-only and
content-free text, in English and Chinese (pure logic, no model).

A text is split into sentences; a sentence is junk when it is one of the above. A text is junk when every
sentence is, so "Hi, I'm Bob. I work at a law firm." keeps its statement and "hello" is dropped. Models may drop
more (an empty extraction), never less: a candidate the gate calls junk is not stored whatever a model said.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from itertools import pairwise

from memory.language.facts import detail_of, detail_only, split_facts, words_of
from memory.language.links import entities
from memory.language.meaning import clauses, said_units
from memory.language.slots import FIRST_PERSON, person, single_valued_slots
from memory.language.standalone import opens_with_a_persons_pronoun, person_named
from memory.language.text import CJK, language, sentences
from memory.language.words import grounding_units, in_lexicon, tagged

_LETTER_OR_DIGIT = re.compile(r"[^\W_]", re.UNICODE)

_GREETING_EN = (r"(hi|hello|hey|hiya|howdy|yo|greetings|good (morning|afternoon|evening|night|day)|morning|"
                r"evening|hello again|hi again|hey there|hi there|hello there|welcome back|nice to meet you|"
                r"how are you( doing| today)?|how'?s it going|what'?s up|sup|bye|goodbye|good ?bye|see you( later| "
                r"soon| tomorrow)?|see ya|cya|take care|good night|have a (nice|good|great) (day|evening|one)|cheers)")
_THANKS_EN = r"(thanks?( you)?( so much| a lot| very much)?|thx|ty|thank u|much appreciated|appreciate it|cheers)"
_SMALLTALK_EN = (r"(ok(ay)?|k|sure|yes|yeah|yep|yup|no|nope|nah|fine|cool|nice|great|awesome|perfect|alright|all "
                 r"right|got it|i see|understood|right|lol|haha+|hehe+|hmm+|uh+|um+|oh|ah|wow|oops|ha|well|"
                 r"good|sounds good|no problem|np|never ?mind|whatever|maybe|interesting|indeed|of course|"
                 r"test(ing)?|ping|hello world|me too|same|agreed)")
_ADDRESS_EN = r"([,!. ]*(there|again|everyone|all|friend|buddy|mate|palace|bot|assistant|man|dude))*"
_TOKEN_EN = rf"({_GREETING_EN}|{_THANKS_EN}|{_SMALLTALK_EN}){_ADDRESS_EN}"
_JUNK_EN = re.compile(rf"^\W*{_TOKEN_EN}([\s,;:!.~-]+{_TOKEN_EN})*\W*$", re.IGNORECASE)

_GREETING_ZH = (r"(你好|您好|你们好|大家好|嗨|哈喽|哈啰|喂|早上好|早安|早|中午好|下午好|晚上好|晚安|"
                r"再见|拜拜|拜|回头见|明天见|好久不见|又见面了|很高兴认识你|你好吗|最近怎么样|在吗|在不在)")
_THANKS_ZH = r"(谢谢|谢谢你|谢谢您|多谢|感谢|感谢你|非常感谢|谢啦|谢了|辛苦了)"
_SMALLTALK_ZH = (r"(好|好的|好吧|好啊|行|行吧|可以|嗯|嗯嗯|哦|噢|喔|啊|哈|哈哈+|呵呵+|嘿嘿+|是的|是|"
                 r"对|对的|没错|不是|不|不用了|没事|没关系|知道了|明白了|明白|了解|收到|好滴|ok|OK|厉害|"
                 r"真棒|不错|太好了|随便|测试)")
_TOKEN_ZH = rf"({_GREETING_ZH}|{_THANKS_ZH}|{_SMALLTALK_ZH})[啊呀呢吧哦啦了哈]*"
_JUNK_ZH = re.compile(rf"^\W*{_TOKEN_ZH}([\s,，、!！.。~～]*{_TOKEN_ZH})*[!！~～。.,，\s]*$")

# Thanks alone, maybe after a word of small talk ("ok thanks!", "谢谢", "好的，谢谢"): answered as thanks are.
_THANKS_ONLY = re.compile(rf"^\W*(?:{_SMALLTALK_EN}[\s,;:!.~-]+)?{_THANKS_EN}{_ADDRESS_EN}\W*$|"
                          rf"^\W*(?:{_SMALLTALK_ZH}[\s,，、!！.。~～]*)?{_THANKS_ZH}[啊呀呢吧哦啦了哈]*[!！~～。.,，\s]*$",
                          re.IGNORECASE)


def thanks(text: str) -> bool:
    """Is ``text`` thanks and nothing else ("thanks!", "ok thank you", "谢谢", "好的，谢谢")?"""
    return bool(_THANKS_ONLY.match(text.strip()))


_QUESTION_END = re.compile(r"[?？]\s*$")
# A sentence opening like a question and not closed like a statement ("When I was ten I lived in Paris." stays).
_QUESTION_EN = re.compile(
    r"^\W*(what|where|when|who|whom|whose|which|why|how|do|does|did|is|are|was|were|am|can|could|will|would|"
    r"shall|should|may|might|have|has|had)\b(?!.*[.!。！]\W*$)", re.IGNORECASE)
_QUESTION_ZH = re.compile(r"(吗|呢|么)\W*$|嘛\s*[?？]\W*$|^(请问|问一下|为什么|怎么|怎样|什么|哪|谁|几|多少)|"
                          r"(是什么|是谁|在哪|去哪|哪里|哪儿|哪个|哪家|哪天|哪年|什么时候|几点|几号|多少|怎么样|如何|有没有|"
                          r"干啥|做啥|啥|干嘛|"
                          r"是不是|对不对|能不能|可不可以|要不要)\W*$")
# Asking for a task to be made ("Please create a task to renew my passport", "帮我创建一个任务").
_TASK_EN = r"(create|make|add|set up|start|open) (me )?(a |an |the )?(new )?(task|reminder|to-?do|checklist|plan)s?"
_TASK_ZH = r"(帮我)?(创建|新建|建|添加|加|设置|设)(一个|一下|个)?(新的?)?(任务|待办|提醒|计划|清单)"
_TASK_REQUEST = re.compile(r"^\W*(please\s+)?(can you |could you |would you |will you )?(please\s+)?" + _TASK_EN
                           + r"\b|^\W*(请)?(你)?" + _TASK_ZH, re.IGNORECASE)
_REQUEST_EN = re.compile(
    r"^\W*(please\s+)?(tell me|show me|give me|list|recall|summari[sz]e|explain|describe|remind me what|"
    r"what about|let me know|can you|could you|would you|will you|do you (know|remember)|help me (find|remember "
    r"what)|search|look up|find|" + _TASK_EN + r")\b", re.IGNORECASE)
_REQUEST_ZH = re.compile(r"^\W*(请)?(告诉我|给我讲|给我看|跟我说说|帮我查|帮我找|查一下|搜一下|"
                         r"列出|说说|讲讲|总结一下|你记得|你还记得|你知道|" + _TASK_ZH + ")")
# A candidate memory that only reports the conversation itself ("The user asked where they live.").
_META = re.compile(r"^\W*(the user|user|用户)\s*(asked|is asking|asks|wants to know|wanted to know|greeted|said "
                   r"(hello|hi|thanks)|thanked|inquired|is wondering|问了?|询问|打招呼|问候|表示感谢|想知道|"
                   r"(wants|would like|asked|asks|requested)( me| you| the assistant)? to (create|make|add|set up|"
                   r"remind)|(想|要|希望|要求|请求)(我|你|助手)?(帮忙)?(创建|新建|添加|设置|提醒))",
                   re.IGNORECASE)


# thanks for what the assistant did, one clause ("Thanks for listening to me", "谢谢你听我说这些", "感谢听我说这些"): a
# fact after it is a clause of its own ("谢谢，我下周去上海" keeps "我下周去上海", junk.without_greeting)
_THANKS_FOR = re.compile(rf"^\W*{_THANKS_EN}\s+for\b[^,;.!?]*[.!~\s]*$|"
                         r"^\W*(?:谢谢|感谢|多谢)[你您]?[^，,；;。！!？?]+[。！!~～\s]*$", re.IGNORECASE)


def _content_free(sentence: str) -> bool:
    """Emoji, punctuation or symbols only, or too little text to say anything (one Latin letter, one CJK char)."""
    chars = [c for c in sentence if _LETTER_OR_DIGIT.match(c) and unicodedata.category(c) != "So"]
    if not chars:
        return True
    cjk = sum(1 for c in chars if CJK.match(c))
    letters = sum(1 for c in chars if c.isalpha())
    return letters == 0 or (cjk < 2 and letters - cjk < 2)


# English only: a Chinese token may be one character of a statement (是, 好, 对 of "我的生日是三月十四号")
_TOKEN = re.compile(rf"(?<![\w'’]){_TOKEN_EN}(?![\w'’])", re.IGNORECASE)


def _small_talk_and_time(sentence: str) -> bool:
    """Is ``sentence`` small talk with nothing besides but when or how long ("bye for now!", "ok thanks, bye for
    now!": a sixth new user's trial stored it, and it was recalled as a fact about the user), in English words?"""
    rest = _TOKEN.sub(" ", sentence)
    if rest == sentence or not _LETTER_OR_DIGIT.search(sentence):
        return False
    said, _ = detail_only(rest)
    return not said and not entities(rest) and not re.search(r"\d", rest)


def junk_sentence(sentence: str) -> str | None:
    """Why ``sentence`` is not worth remembering, or None when it may state something."""
    s = sentence.strip()
    if _content_free(s):
        return "no content"
    if _QUESTION_END.search(s) or _QUESTION_EN.search(s) or _QUESTION_ZH.search(s):
        return "a question"
    if _JUNK_EN.match(s) or _JUNK_ZH.match(s) or _THANKS_FOR.match(s) or _small_talk_and_time(s):
        return "a greeting, thanks or small talk"
    if _REQUEST_EN.search(s) or _REQUEST_ZH.search(s):
        return "a request to the assistant"
    if _META.search(s):
        return "about the conversation, not the user"
    return None


def asks(text: str) -> bool:
    """Does ``text`` ask something (a question or a request to the assistant), rather than only state facts?"""
    return any(junk_sentence(p) in ("a question", "a request to the assistant") for p in sentences(text))


def junk_reason(text: str) -> str | None:
    """Why ``text`` is not a memory (every sentence of it is junk), or None when some sentence may be a fact."""
    parts = sentences(text)
    if not parts:
        return "no content"
    reasons = [junk_sentence(p) for p in parts]
    if any(r is None for r in reasons):
        return None
    return next(r for r in reasons if r)


def is_junk(text: str) -> bool:
    return junk_reason(text) is not None


def statements(text: str) -> str:
    """``text`` without its junk sentences ("Hi! I live in Hangzhou. Where do I live?" -> "I live in Hangzhou.")."""
    kept = [p for p in sentences(text) if junk_sentence(p) is None]
    return " ".join(kept)


# "Remember that ...", "Note: ...", "记住：……", "请记住……": how the user asks to keep a fact, not the fact.
_PREAMBLE = re.compile(r"^\s*(?:(?:please|pls|and)\s+)?(?:remember|note|keep in mind|don'?t forget|do not forget|never "
                       r"forget|fyi|for the record|just so you know)(?:\s+(?:this|that))?\s*[:,：，-]?\s+"
                       r"|^\s*(?:请|麻烦)?(?:你)?(?:记住|记一下|记下|记着|别忘了|不要忘了|备注)(?:一下)?(?![了吗没住])[：:，,\s]*",
                       re.IGNORECASE)


# How a model echoes the request when it extracts from "Remember that ...": "I remember that ...", "The user wants
# me to remember that ...", "记得：……", "用户要求记住……". Stripped only when the user's message asked to remember.
_ECHO = re.compile(r"^\s*(?:i|the user|user)\s+(?:remember(?:s|ed)?|wants? (?:me |you )?to remember|"
                   r"asks? (?:me |you )?to remember|asked (?:me |you )?to remember|would like (?:me |you )?to "
                   r"remember)(?:\s+(?:this|that))?"
                   r"\s*[:,：，-]?\s+|^\s*(?:用户)?(?:要求|希望|让我|请)?(?:记得|记住)(?![了吗没住])[：:，,\s]*",
                   re.IGNORECASE)


def without_preamble(text: str, *, asked: bool = False) -> str:
    """``text`` without a leading "remember that" / "记住：" (the fact itself, capitalised as a sentence).
    ``asked``: the user's message asked to remember, so a model's echo of it ("I remember that", "记得：") goes too."""
    rest = _PREAMBLE.sub("", text, count=1)
    if asked and rest == text:
        rest = _ECHO.sub("", text, count=1)
    if rest == text or not rest.strip() or not _LETTER_OR_DIGIT.search(rest):
        return text
    return rest[:1].upper() + rest[1:]


def normalized(text: str) -> str:
    """For exact comparisons: case, spacing and closing punctuation do not count."""
    return " ".join(text.lower().split()).rstrip(".!。！ ")


def about_the_user(text: str) -> str:
    """The statements of ``text`` that speak about the user ("I ...", "my ...", "我……")."""
    return " ".join(p for p in sentences(text) if junk_sentence(p) is None and FIRST_PERSON.search(p))


def speaks_of_someone(sentence: str) -> bool:
    """Does ``sentence`` say something about a person or a named thing: the user ("I", "我"), a kinship word
    ("my sister", "我妈"), or a name anywhere but its first word ("Tom just left Google", "Anna moved to Berlin")?
    "That sounds great." and "It's raining today." do not; they are reactions, not facts to keep."""
    if FIRST_PERSON.search(sentence) or person(sentence) != "self":
        return True
    first = re.match(r"\W*([A-Za-z][\w'-]*)", sentence)
    return bool(entities(sentence[first.end():] if first else sentence))


def _of_someone(said: Sequence[str]) -> list[bool]:
    """For each sentence of a message (``said``, in order): does it speak of someone (:func:`speaks_of_someone`),
    or open with a pronoun for a person while a sentence before it names one ("David called me last night. He
    stopped working as a firefighter…", "周末和我女儿聊了聊。她从育才小学转走了…"; standalone resolves the pronoun
    or keeps the two sentences as one memory)? A pronoun that points at nobody named ("haha he is funny",
    "她说得对") is a reaction."""
    out, named_before = [], False
    for p in said:
        out.append(speaks_of_someone(p) or (named_before and opens_with_a_persons_pronoun(p)))
        named_before = named_before or person_named(p) is not None
    return out


# the assistant as the subject of a clause: "you can't remember", "you're funny", "你记性真好" (not "your X", "你的")
_ASSISTANT_DOES = re.compile(r"\byou(?:'re|’re|'ve|’ve|'ll|’ll|'d|’d)?\s+(?!guys\b)[a-z]+|^\W*你(?![的们])",
                             re.IGNORECASE)


def to_the_assistant(sentence: str) -> bool:
    """Is every clause of ``sentence`` said to the assistant about the assistant ("no worries if you can't
    remember", "你记性真好"; a clause of one word aside) and none about the user or someone named? A remark on
    the conversation, not a fact; "你知道吗，小雨毕业了" has a clause that is not."""
    if FIRST_PERSON.search(sentence) or speaks_of_someone(sentence):
        return False
    return all(_ASSISTANT_DOES.search(c) or junk_sentence(c) is not None or len(grounding_units(c)) < 2
               for c in clauses(sentence))  # "…, seriously": a word that says nothing of its own


# a label before a colon that opens a statement ("Big news: I moved to Oslo.", "好消息：我升职了。"): four words at most
_LABEL = re.compile(r"^\s*([^:：,，.。!！?？]{1,30})[:：]\s*(?=\S)")
# the words before an English statement's first-person subject ("Oh and I bought a bike", "So my sister…")
_BEFORE_SUBJECT = re.compile(r"^\W*((?:[A-Za-z']+\s+){1,3}?)(?=(?:I|I'm|I've|I'd|I'll|my|My|we|We)\b)")


# The words that join what the user says to what they said before, and say nothing themselves ("Oh and", "Also,",
# "还有，", "对了，"): a closed class of discourse markers. A fourth new user's trial kept "Oh and Karim quit…" and
# "还有，我换工作了…" as memories, and "What do you remember about me?" read them out so.
_CONNECTIVE = re.compile(r"^\W*(?:(?:oh|ah|and|also|plus|anyway|anyways|btw|by the way|besides|so|well|one more thing|"
                         r"another thing)\W*)+$|^\W*(?:还有|另外|对了|顺便说一下|顺便一提|而且|此外|然后|哦|噢)\W*$",
                         re.IGNORECASE)
_BEFORE_NAME = re.compile(r"^\W*((?:[A-Za-z']+,?\s+){1,3}?)(?=[A-Z][a-z]+\b)")


def _states_nothing(piece: str) -> bool:
    """Does ``piece``, the opening of a statement, say nothing of its own: no one named, no first person, no number,
    no time ("Big news", "说实话", "对了", "Oh and"), or is it a greeting, thanks or small talk? "Last week, I moved"
    and "In Oslo, I…" open with what they say."""
    if junk_sentence(piece) is not None or _CONNECTIVE.match(piece):
        return True
    if FIRST_PERSON.search(piece) or speaks_of_someone(piece) or re.search(r"\d", piece) or relative_times(piece):
        return False
    return _says_nothing(piece) if CJK.search(piece) else not grounding_units(piece)


def _label(text: str) -> re.Match[str] | None:
    """The label before a colon that opens a first-person statement, when it says nothing the statement needs: four
    words (eight characters) at most, no first person, number or time ("Big news:", "Update:", "好消息：", "Note:";
    not "Tom: he lives in Rome", "My favourite food: sushi", "2019: I moved")."""
    label = _LABEL.match(text)
    if label is None or not FIRST_PERSON.search(text[label.end():]):
        return None
    said = label.group(1).strip()
    short = len(said) <= 8 if CJK.search(said) else len(said.split()) <= 4
    return label if short and not FIRST_PERSON.search(said) and not re.search(r"\d", said) and \
        not relative_times(said) else None


def without_greeting(sentence: str) -> str:
    """``sentence`` without the greeting, thanks, small talk or label it opens with, and the greeting or small talk
    it ends with ("Hi, I'm Marta." and "I'm Marta, nice to meet you!" are "I'm Marta.", "嗨，我是小王" is "我是小王",
    "Big news: I moved to Oslo." is "I moved to Oslo.", "Oh and I bought a bike" is "I bought a bike", "对了，我搬家了"
    is "我搬家了"): the fact, without the words said to the assistant or about the telling. A new user's trials kept
    "Big news:" and "Oh and" in memories."""
    text = sentence.strip()
    label = _label(text)
    if label is not None:
        text = text[label.end():]
    pieces = re.split(r"(?<=[,，、!！~～])\s*", text)
    while len(pieces) > 1 and _states_nothing(pieces[0].rstrip(",，、!！~～ ")):
        pieces.pop(0)
    while len(pieces) > 1 and junk_sentence(pieces[-1]) is not None:  # "…, nice to meet you!"
        pieces.pop()
        pieces[-1] = pieces[-1].rstrip(",，、 ") + ("" if CJK.search(pieces[-1][-1:]) else ".")
    rest = " ".join(pieces) if not CJK.search(sentence) else "".join(pieces)
    before = _BEFORE_SUBJECT.match(rest)
    if before is not None and _states_nothing(before.group(1)):
        rest = rest[before.end():]
    elif (named := _BEFORE_NAME.match(rest)) is not None and _CONNECTIVE.match(named.group(1)):
        rest = rest[named.end():]  # "Oh and Karim quit engineering…"
    return rest[:1].upper() + rest[1:] if rest[:1].islower() and (rest[:2].lower() in ("i ", "i'") or
                                                                  rest[:3] == "my ") else rest


def kept_statements(message: str, refused: Sequence[str] = ()) -> str:
    """What ``message`` states, as the user wrote it, when a model's extraction gave nothing usable: its
    statements that speak of someone (:func:`_of_someone`), and every statement one of the ``refused``
    candidates was taken from (the extractor saw a fact there; its words were refused, the user's are kept:
    "小雨毕业了" has no name a rule can see). An extractor cannot make a stated fact disappear."""
    said = [p for p in sentences(message) if junk_sentence(p) is None and not to_the_assistant(p)]
    pointed: set[int] = set()
    for text in refused:
        units = grounding_units(text)
        overlap = [len(units & grounding_units(p)) for p in said]
        if overlap and max(overlap) > 0:
            pointed.add(overlap.index(max(overlap)))
        else:  # translated or reworded beyond recognition: it could be any of them, and none may be lost
            pointed.update(range(len(said)))
    someone = _of_someone(said)
    return " ".join(without_greeting(p) for i, p in enumerate(said) if i in pointed or someone[i])


_WORD = re.compile(r"[A-Za-z][\w'-]*")


def respaced(candidate: str, message: str) -> str:
    """``candidate`` with the words a model glued together split as the user wrote them ("a blueToyota Corolla"
    from "a blue Toyota Corolla"): a word the message does not have, that two or three of its consecutive words
    spell, becomes those words; and a word of the message the model re-cased past its first letter is spelled as
    the user did ("ByteDANCE" for "ByteDance", "Iphone" for "iPhone")."""
    said = _WORD.findall(message)
    known = {w.lower(): w for w in said}
    joined: dict[str, str] = {}
    for n in (2, 3):
        for i in range(len(said) - n + 1):
            joined.setdefault("".join(said[i:i + n]).lower(), " ".join(said[i:i + n]))

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        user = known.get(word.lower())
        if user is None:
            return joined.get(word.lower(), word)
        if word[1:] != user[1:] or (word[:1].islower() and user[:1].isupper()):  # "octavia" for "Octavia" too
            return str(user)
        return word  # "My" for "my" at a sentence's start stays

    return _WORD.sub(fix, candidate)


def asks_for_task(text: str) -> bool:
    """Does a sentence of ``text`` ask for a task to be made ("Please create a task…", "帮我创建一个任务")?"""
    return any(_TASK_REQUEST.search(s) for s in sentences(text))


def grounded(candidate: str, message: str) -> bool:
    """Does ``candidate`` come from ``message``? At least half of its content units (stemmed words, Chinese
    bigrams) appear in the message, and every number it states does: a model's invention is not the user's fact."""
    if not set(re.findall(r"\d+", candidate)) <= set(re.findall(r"\d+", message)):
        return False
    # codes with letters and digits (E12345678, A-42) must be copied whole: "12345678" is not the passport
    code = re.compile(r"\b[A-Za-z]+[-]?\d[\w-]*|\d+[A-Za-z][\w-]*")
    said = {c.lower() for c in code.findall(message)}
    for digits in re.findall(r"(?<![A-Za-z\d-])\d{4,}(?![A-Za-z\d-])", candidate):
        if any(digits in c and digits != c for c in said) and digits not in re.findall(
                r"(?<![A-Za-z\d-])\d{4,}(?![A-Za-z\d-])", message):
            return False
    if not {c.lower() for c in code.findall(candidate)} <= said:
        return False
    if not relative_times(candidate) <= relative_times(message):
        return False  # "下周五" extracted as "上周五": a memory must not move the user's plans in time
    if not in_the_users_language(candidate, message):
        return False
    units = grounding_units(candidate)
    if not units:
        return False
    said = grounding_units(message)
    # and so must each clause: "I live in Hangzhou, which is a beautiful city with many green teas." for "I live in
    # Hangzhou and I love green tea." holds 4 of its 7 units, but its second clause is the model's own
    parts = [grounding_units(c) for c in clauses(candidate)]
    return len(units & said) / len(units) >= 0.5 and all(len(p & said) / len(p) >= 0.5 for p in parts if p)


_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def in_the_users_language(candidate: str, message: str) -> bool:
    """A memory is written in the language the user wrote (the extraction prompt asks for it). When no sentence of
    the message is in English, the candidate's English words must be words of the message ("我在Google工作" keeps
    Google; "I live in杭州" for "我住在杭州" is a translation, and its half-match on 杭州 must not pass for the
    user's fact); when none is in Chinese, every Chinese character it has must be in the message."""
    said = {language(s) for s in sentences(message)}
    if "en" not in said and not {w.lower() for w in _LATIN_WORD.findall(candidate)} <= {
            w.lower() for w in _LATIN_WORD.findall(message)}:
        return False
    return "zh" in said or set(CJK.findall(candidate)) <= set(CJK.findall(message))


# Relative time words: a candidate may only use those the message used.
_RELATIVE_TIME = re.compile(
    r"\b(?:yesterday|tomorrow|today|tonight|(?:last|next|this) (?:week|weekend|month|year|monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|spring|summer|autumn|fall|winter)|(?:a|one|two|three|\d+) (?:days?|weeks?|"
    r"months?|years?) (?:ago|from now|later))\b|(?:上上|下下|上|下|这|本)(?:个)?(?:周|星期|礼拜|月)"
    r"|大前天|前天|昨天|今天|明天|后天|大后天|去年|前年|今年|明年|后年")


_PIECE = re.compile(r"[,;，；、]")
# jieba's parts of speech of what a piece of a Chinese clause names: nouns of every kind and numerals ("弹钢琴",
# "医院", "三十岁", "十年"), abbreviations ("北大") and onomatopoeia, where it files a pet's name ("咪咪"); a word its
# lexicon lacks is a name too. Verbs ("喜欢", "工作": an extractor rewords them), adverbs, pronouns, set phrases
# ("说实话") and time words (they date a memory) name nothing. Its lexicon errs (围棋 and 象棋 are verbs to it).
_THING_TAGS = ("n", "m", "o", "j", "eng")


# jieba's parts of speech that state nothing by themselves: set phrases, adverbs, conjunctions, particles,
# interjections, prepositions, pronouns ("说实话", "其实吧", "总之", "不过呢" open a sentence; they are no fact)
_EMPTY_TAGS = ("l", "i", "d", "c", "y", "e", "u", "p", "r", "x")


def _one_word_fact(clause: str) -> bool:
    """Is ``clause`` a fact of one word about the user, a name or a number ("I'm Leo", "I'm 35"): the user's
    name was lost in a new user's trial ("Hi! I'm Leo. I live in Chengdu…": the extractor gave the rest)."""
    return bool(FIRST_PERSON.search(clause)) and (bool(entities(clause)) or bool(re.search(r"\d", clause)))


def _says_nothing(clause: str) -> bool:
    """Is the Chinese ``clause`` only words that state nothing (:data:`_EMPTY_TAGS`)? "说实话" of "说实话，我最近搬到
    杭州了。" was kept beside the move as "我说实话"."""
    words = [tag for w, tag in tagged(clause) if w.strip(" ，,。.!！")]
    return bool(CJK.search(clause)) and bool(words) and all(t.startswith(_EMPTY_TAGS) for t in words)


def _unsaid_piece(clause: str, have: set[str]) -> bool:
    """Does a comma-separated piece of ``clause`` say a thing of which ``have`` (the units the extraction said)
    holds nothing? "我会弹钢琴，已经学了十年" extracted as "我已经学了十年" keeps six of the clause's eleven units
    and loses the piano: half the words is not the fact, and a thing the extraction does not touch is lost whatever
    its size. An English piece counts by its content words (two or more, none said; its time words aside: "Next
    Friday, ..."); a Chinese one by the words jieba's lexicon takes for things, each compared by its content
    characters (its noun "我会" has none)."""
    pieces = _PIECE.split(clause)
    if len(pieces) < 2:
        return False
    chars = {c for u in have for c in u if CJK.match(c)}
    for piece in pieces:
        if CJK.search(piece):
            things = [w for w, tag in tagged(piece) if CJK.match(w) and (tag.startswith(_THING_TAGS)
                                                                     or not in_lexicon(w))]
            if any((units := said_units(w)) and not units & chars for w in things):
                return True
        elif len(units := grounding_units(_RELATIVE_TIME.sub(" ", piece.lower()))) >= 2 and not units & have:
            return True
    return False


def _clause_holding(message: str, texts: Sequence[str]) -> str | None:
    """The first clause of ``message`` (a :func:`split_facts` part of one of its sentences, a sentence, or two
    sentences side by side) holding what ``texts`` name and half or more of each one's content units, in the first
    person when its sentence is."""
    said = sentences(message)
    spans = [(c.strip(), s) for s in said for c in split_facts(s)] + [(s.strip(), s) for s in said]
    spans += [(f"{a.strip()} {b.strip()}", f"{a} {b}") for a, b in pairwise(said)]
    named = set().union(*(detail_only(t)[0] for t in texts))
    for clause, sentence in spans:
        have = grounding_units(clause)
        if named <= words_of(clause) and all(
                (u := grounding_units(t)) and len(u & have) / len(u) >= 0.5 for t in texts):
            if FIRST_PERSON.search(sentence) and not FIRST_PERSON.search(clause):
                clause = f"我{clause}" if CJK.search(clause) else f"I {clause}"
            return clause
    return None


def with_details(texts: Sequence[str], message: str) -> list[str]:
    """``texts`` (one message's extracted memories) with a memory that says only when, how long or how much of what
    another says put back together with it, as the user said the two ("我会弹吉他" + "我已经弹了五年" is "我会弹吉他，
    已经弹了五年": alone, "我已经弹了五年" says nothing of what was played, and "what do I play, for how long?"
    finds half). Which thing a detail belongs to is read from the words they share, never from a list of things;
    the pair is joined only where one clause of the message (or two sentences side by side) holds both."""
    out = list(texts)
    for detail in texts:
        if detail not in out:
            continue
        for other in out:
            if other == detail or not detail_of(detail, other):
                continue
            clause = _clause_holding(message, [detail, other])
            if clause is not None:
                out[out.index(other)] = clause
                out.remove(detail)
                break
    return out


def relative_times(text: str, *, moving: bool = False) -> set[str]:
    """The relative time words ``text`` says ("yesterday", "last weekend", "上周五"), lowercased; ``moving``: only
    those that move away from now ("this week", "today", "今年" say now)."""
    found = set(_RELATIVE_TIME.findall(text.lower()))
    return {t for t in found if not _NOW_TIME.match(t)} if moving else found


_NOW_TIME = re.compile(r"(?:this|today|tonight)\b|[这本今]")


def uncovered_statements(message: str, extracted: list[str], refused: Sequence[str] = ()) -> list[str]:
    """The parts of ``message`` that state something about the user and that none of ``extracted`` covers:
    a model that returns one fact of "I live in Hangzhou and I love green tea" does not lose the other. A part is
    covered when half its content units are in the extracted texts, they hold its one-valued slots, and it holds
    no word of a ``refused`` candidate (one the gates refused for what it left out or changed) that none of them
    holds: "I commute by bike." refused for leaving out the Brompton, "A green Brompton." kept, and the commute
    would be lost (bench answers)."""
    have = set().union(*(grounding_units(t) for t in extracted)) if extracted else set()
    lost = set().union(*(grounding_units(t) for t in refused)) - have if refused else set()
    held = frozenset().union(*(single_valued_slots(t) for t in extracted))
    out = []
    parts = sentences(message)
    for sentence, someone in zip(parts, _of_someone(parts), strict=True):
        if junk_sentence(sentence) is not None or not someone:
            continue
        mine = bool(FIRST_PERSON.search(sentence))  # "I live in X and love tea": "love tea" is the user's
        subject = "我" if CJK.search(sentence) else "I"
        for clause in (without_greeting(c).strip(" .!。！") for c in split_facts(sentence)):
            units = grounding_units(clause)
            if (len(units) < 2 and not _one_word_fact(clause)) or junk_sentence(clause) is not None or _says_nothing(
                    clause):
                continue
            # a one-valued slot none of them holds is not covered by shared words: "我喜欢在杭州" does not say
            # where the user lives
            if (len(units & have) / len(units) < 0.5 or single_valued_slots(clause) - held or units & lost
                    or _unsaid_piece(clause, have)):
                said = clause if FIRST_PERSON.search(clause) or not mine else (
                    f"{subject}{'' if subject == '我' else ' '}{clause}")
                out.append(said)
                have |= units
    return out
