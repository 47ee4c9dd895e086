"""Generated scenarios for ``python -m bench updates``: a fact, its change in a later session, "now" and "before".

Each scenario is one subject of the user's life (their city, car, employer, doctor, a partner's city, a friend's
job, …): the original fact is told in an early session among 2–4 unrelated facts of the same user, its change in a
later one (3–28 days before the question), sometimes followed by another unrelated fact. Then two questions: one
about the present ("What car do I drive now?", or naming no time: "Where does Tom work?") and one about the past
("What did I drive before?", "去年我住在哪里？").

The change comes in three forms (variant tags): ``plain`` (the fact restated, no change word: "I live in
Hangzhou."), ``word`` (a change word: "I moved to Hangzhou.") and ``two`` (two clauses: "I sold the Civic last week
and bought a Tesla Model 3"). A change about another person names them (``name``) or names them in a first sentence
and says the change with a pronoun (``pronoun``); the user's own subjects are ``self``. Questions: ``now`` or
``untimed``; ``before`` or ``last-year`` (then the original was told last year).

Everything comes from templates × value pools through a RNG seeded by the scenario id, so the set is the same on
every run; the split (``dev`` / ``test``) is a hash of the id.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import cache

CHANGES = ("plain", "word", "two")
PER_KIND = 4  # scenarios per kind and language


@dataclass(frozen=True)
class Phrasing:
    """One kind of subject in one language. Templates: ``{v}`` the value (``{av}`` with its English article),
    ``{o}``/``{ao}`` the old value in a change, ``{p}``/``{P}`` the person (or, in a pronoun change, the pronoun),
    ``{he}``/``{He}`` their pronoun. A value ``"Honda Civic|Civic"`` is written as its first form and matched by any.
    """

    values: tuple[str, ...]
    told: tuple[str, ...]
    plain: tuple[str, ...]
    word: tuple[str, ...]
    two: tuple[str, ...]
    now: tuple[str, ...]
    untimed: tuple[str, ...]
    before: tuple[str, ...]
    last_year: tuple[str, ...]
    persons: tuple[tuple[str, str], ...] = ()  # (how the user names them, pronoun); empty: the user's own subject


@dataclass(frozen=True)
class Kind:
    name: str
    en: Phrasing
    zh: Phrasing


@dataclass(frozen=True)
class UpdateScenario:
    id: str
    lang: str
    kind: str
    variants: tuple[str, ...]  # (change form, subject, now-question form, before-question form)
    facts: tuple[tuple[int, str], ...]  # (days before the questions, what the user said), oldest first
    original: str
    change: str
    now_question: str
    before_question: str
    new_values: tuple[str, ...]  # any of these in a text means the new value
    old_values: tuple[str, ...]

    @property
    def kept(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """(question, what its answer holds) for each unrelated fact told: facts that did not change."""
        return tuple(FILLER_QUESTIONS[text] for _, text in self.facts if text in FILLER_QUESTIONS)

    @property
    def split(self) -> str:
        return split_of(self.id)


def split_of(scenario_id: str) -> str:
    """``dev`` or ``test``, from a hash of the id (about half each; never changes for an id)."""
    return "dev" if hashlib.sha256(scenario_id.encode()).digest()[0] % 2 == 0 else "test"


# How a pronoun change names the person first (then the template says the change with the pronoun).
LEADS = {
    "en": ("I talked to {p} on the phone yesterday. ", "{P} called me last night. ",
           "I caught up with {p} over the weekend. "),
    "zh": ("昨天和{p}通了电话。", "{p}昨晚给我打了个电话。", "周末和{p}聊了聊。"),
}

# Unrelated facts of the same user, told around the original and sometimes after the change.
FILLERS = {
    "en": ("My birthday is on March 14th.", "I'm allergic to shellfish.", "My favourite colour is dark green.",
           "My blood type is O negative.", "I'm a bit afraid of heights.", "My favourite season is autumn.",
           "I can't stand horror movies.", "My favourite dessert is tiramisu.", "I'm left-handed.",
           "Our wedding anniversary is in June.", "I sleep badly when it's hot.",
           "I'm terrible at remembering names.", "My favourite film is Spirited Away.",
           "I hate the smell of cilantro.", "My star sign is Leo.", "I always ask for a window seat on planes."),
    "zh": ("我的生日是三月十四号。", "我对海鲜过敏。", "我最喜欢的颜色是墨绿色。", "我的血型是O型。", "我有点恐高。",
           "我最喜欢秋天。", "我不敢看恐怖片。", "我最爱吃的甜点是提拉米苏。", "我是左撇子。",
           "我们的结婚纪念日在六月。", "天热的时候我睡不好。", "我总是记不住别人的名字。",
           "我最喜欢的电影是《千与千寻》。", "我受不了香菜的味道。",
           "我是狮子座。", "坐飞机我喜欢靠窗的位置。"),
}

# A question about each unrelated fact and what its answer holds: recall must still find the fact that did not
# change ("recall_kept_top1"), however the links between memories rank the others.
FILLER_QUESTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "My birthday is on March 14th.": ("When is my birthday?", ("March 14",)),
    "I'm allergic to shellfish.": ("What am I allergic to?", ("shellfish",)),
    "My favourite colour is dark green.": ("What's my favourite colour?", ("green",)),
    "My blood type is O negative.": ("What's my blood type?", ("O negative",)),
    "I'm a bit afraid of heights.": ("What am I afraid of?", ("heights",)),
    "My favourite season is autumn.": ("Which season do I like best?", ("autumn",)),
    "I can't stand horror movies.": ("What kind of films can't I stand?", ("horror",)),
    "My favourite dessert is tiramisu.": ("What's my favourite dessert?", ("tiramisu",)),
    "I'm left-handed.": ("Which hand do I write with?", ("left-handed",)),
    "Our wedding anniversary is in June.": ("When is our wedding anniversary?", ("June",)),
    "I sleep badly when it's hot.": ("When do I sleep badly?", ("hot",)),
    "I'm terrible at remembering names.": ("What am I bad at remembering?", ("names",)),
    "My favourite film is Spirited Away.": ("What's my favourite film?", ("Spirited Away",)),
    "I hate the smell of cilantro.": ("Which smell do I hate?", ("cilantro",)),
    "My star sign is Leo.": ("What's my star sign?", ("Leo",)),
    "I always ask for a window seat on planes.": ("Which seat do I ask for on planes?", ("window",)),
    "我的生日是三月十四号。": ("我的生日是哪天？", ("三月十四",)),
    "我对海鲜过敏。": ("我对什么过敏？", ("海鲜",)),
    "我最喜欢的颜色是墨绿色。": ("我最喜欢什么颜色？", ("墨绿",)),
    "我的血型是O型。": ("我是什么血型？", ("O型",)),
    "我有点恐高。": ("我害怕什么？", ("恐高",)),
    "我最喜欢秋天。": ("我最喜欢哪个季节？", ("秋天",)),
    "我不敢看恐怖片。": ("我不敢看哪种电影？", ("恐怖片",)),
    "我最爱吃的甜点是提拉米苏。": ("我最爱吃什么甜点？", ("提拉米苏",)),
    "我是左撇子。": ("我习惯用哪只手？", ("左撇子",)),
    "我们的结婚纪念日在六月。": ("我们的结婚纪念日是什么时候？", ("六月",)),
    "天热的时候我睡不好。": ("我什么时候睡不好？", ("天热",)),
    "我总是记不住别人的名字。": ("我总是记不住什么？", ("名字",)),
    "我最喜欢的电影是《千与千寻》。": ("我最喜欢哪部电影？", ("千与千寻",)),
    "我受不了香菜的味道。": ("我受不了什么味道？", ("香菜",)),
    "我是狮子座。": ("我是什么星座？", ("狮子座",)),
    "坐飞机我喜欢靠窗的位置。": ("坐飞机我喜欢什么座位？", ("靠窗",)),
}

_EN_FRIENDS = (("Tom", "he"), ("Anna", "she"), ("David", "he"), ("Lucy", "she"), ("Marco", "he"),
               ("Priya", "she"), ("Ben", "he"), ("Grace", "she"))
_ZH_FRIENDS = (("小王", "他"), ("李雷", "他"), ("韩梅梅", "她"), ("张伟", "他"), ("刘婷", "她"), ("老陈", "他"),
               ("小美", "她"), ("阿杰", "他"))
_EN_PARTNERS = (("my wife", "she"), ("my husband", "he"), ("my girlfriend", "she"), ("my boyfriend", "he"))
_ZH_PARTNERS = (("我老婆", "她"), ("我老公", "他"), ("我女朋友", "她"), ("我男朋友", "他"))

_EN_LIVES = dict(
    now=("Where does {p} live now?", "Which city is {p} in these days?"),
    untimed=("Where does {p} live?", "Which city does {p} live in?"),
    before=("Where did {p} live before?", "Which city was {p} in before?"),
    last_year=("Where did {p} live last year?",))
_ZH_LIVES = dict(
    now=("{p}现在住在哪里？", "{p}目前在哪个城市？"), untimed=("{p}住在哪里？", "{p}在哪个城市生活？"),
    before=("{p}以前住在哪里？", "{p}之前在哪个城市？"), last_year=("{p}去年住在哪里？",))

KINDS: tuple[Kind, ...] = (
    Kind("city", Phrasing(
        values=("Suzhou", "Hangzhou", "Chengdu", "Shenzhen", "Nanjing", "Xiamen", "Wuhan", "Toronto"),
        told=("I live in {v}.", "I've been living in {v} for a few years now.", "Home for me is {v}."),
        plain=("I live in {v}.", "My home is in {v}."),
        word=("I moved to {v}.", "I'm living in {v} now."),
        two=("I sold my flat in {o} last month and moved to {v}.", "I left {o} in the spring, I live in {v} now."),
        now=("Where do I live now?", "Which city am I living in these days?"),
        untimed=("Where do I live?", "Which city do I live in?"),
        before=("Where did I live before?", "Which city did I live in before?"),
        last_year=("Where did I live last year?",)), Phrasing(
        values=("苏州", "杭州", "成都", "深圳", "南京", "厦门", "武汉"),
        told=("我住在{v}。", "我在{v}生活好些年了。", "我家在{v}。"),
        plain=("我住在{v}。", "我家在{v}。"),
        word=("我搬到{v}了。", "我现在住在{v}。"),
        two=("我上个月把{o}的房子卖了，搬到了{v}。", "我春天离开了{o}，现在在{v}安家。"),
        now=("我现在住在哪里？", "我目前住在哪个城市？"), untimed=("我住在哪里？", "我在哪个城市生活？"),
        before=("我以前住在哪里？", "我之前住在哪个城市？"), last_year=("去年我住在哪里？",))),
    Kind("employer", Phrasing(
        values=("Google", "Microsoft", "Amazon", "Alibaba", "Tencent", "ByteDance", "Huawei", "Siemens"),
        told=("I work at {v}.", "I've been at {v} for about two years, on the payments team."),
        plain=("I work at {v}.", "My employer is {v}."),
        word=("I just started a new job at {v}.", "I'm working at {v} now."),
        two=("I quit {o} last month and joined {v}.", "I left {o} in the summer, I'm at {v} now."),
        now=("Where do I work now?", "Which company am I working for at the moment?"),
        untimed=("Where do I work?", "Who is my employer?"),
        before=("Where did I work before?", "Which company was I at before?"),
        last_year=("Where did I work last year?",)), Phrasing(
        values=("阿里巴巴", "腾讯", "字节跳动", "华为", "百度", "美团", "京东", "网易"),
        told=("我在{v}上班。", "我在{v}工作，做支付相关的业务。"),
        plain=("我在{v}上班。", "我在{v}工作。"),
        word=("我跳槽到{v}了。", "我现在在{v}上班了。"),
        two=("我上个月从{o}离职了，加入了{v}。", "{o}那边我已经辞了，现在在{v}工作。"),
        now=("我现在在哪家公司上班？", "我目前在哪里工作？"), untimed=("我在哪家公司工作？",),
        before=("我以前在哪家公司上班？", "我之前在哪里工作？"), last_year=("去年我在哪家公司上班？",))),
    Kind("role", Phrasing(
        values=("software engineer", "product manager", "data analyst", "graphic designer", "accountant",
                "architect", "nurse"),
        told=("I work as {av}.", "I'm {av} by profession."),
        plain=("I work as {av}.", "I'm {av}."),
        word=("I'm {av} now.", "These days I work as {av}."),
        two=("I stopped being {ao} in March and retrained as {av}.", "I gave up my {o} job, I work as {av} now."),
        now=("What is my job now?", "What do I do for a living these days?"),
        untimed=("What is my job?", "What do I do for work?"),
        before=("What was my job before?", "What did I do for a living before?"),
        last_year=("What was my job last year?",)), Phrasing(
        values=("程序员", "产品经理", "数据分析师", "平面设计师", "会计", "建筑师", "护士"),
        told=("我是一名{v}。", "我的工作是{v}。"),
        plain=("我是一名{v}。", "我做{v}。"),
        word=("我现在改行做{v}了。", "我转行当{v}了。"),
        two=("我不做{o}了，转行当了{v}。", "我辞掉了{o}的工作，现在是{v}。"),
        now=("我现在是做什么工作的？", "我目前的职业是什么？"), untimed=("我是做什么工作的？",),
        before=("我以前是做什么工作的？", "我之前的职业是什么？"), last_year=("去年我是做什么工作的？",))),
    Kind("school", Phrasing(
        values=("Fudan University|Fudan", "Zhejiang University", "Tsinghua University|Tsinghua",
                "Peking University", "Nanjing University", "Wuhan University"),
        told=("I'm doing a master's at {v}.", "I study at {v}."),
        plain=("I study at {v}.", "I'm a student at {v}."),
        word=("I transferred to {v}.", "I'm studying at {v} now."),
        two=("I finished at {o} in June and started a PhD at {v}.", "I left {o}, I'm doing my PhD at {v} now."),
        now=("Where do I study now?", "Which university am I at these days?"),
        untimed=("Where do I study?", "Which university do I go to?"),
        before=("Where did I study before?", "Which university was I at before?"),
        last_year=("Where did I study last year?",)), Phrasing(
        values=("复旦大学|复旦", "浙江大学", "清华大学|清华", "北京大学", "南京大学", "武汉大学"),
        told=("我在{v}读研。", "我是{v}的学生。"),
        plain=("我在{v}读书。", "我是{v}的学生。"),
        word=("我转学到{v}了。", "我现在在{v}读博。"),
        two=("我六月从{o}毕业了，现在在{v}读博。", "我从{o}退学了，重新考进了{v}。"),
        now=("我现在在哪所大学读书？", "我目前在哪个学校？"), untimed=("我在哪所大学读书？",),
        before=("我以前在哪所大学读书？", "我之前在哪个学校？"), last_year=("去年我在哪所大学读书？",))),
    Kind("car", Phrasing(
        values=("Honda Civic|Civic", "Tesla Model 3|Tesla", "Toyota Corolla|Corolla", "Volkswagen Golf|Volkswagen",
                "Mazda CX-5|Mazda", "Ford Focus", "Nissan Leaf|Nissan", "Volvo XC40|Volvo"),
        told=("I drive {av}.", "My car is {av}, I bought it second-hand."),
        plain=("I drive {av}.", "My car is {av}."),
        word=("I switched to {av}.", "I drive {av} now."),
        two=("I sold the {o} last week and bought {av}.", "I got rid of my {o}, I'm driving {av} now."),
        now=("What car do I drive now?", "What's my car these days?"),
        untimed=("What car do I drive?", "What do I drive?"),
        before=("What did I drive before?", "What car did I have before?"),
        last_year=("What car did I drive last year?",)), Phrasing(
        values=("本田思域|思域", "特斯拉", "丰田卡罗拉|卡罗拉", "比亚迪汉", "大众高尔夫", "蔚来ES6", "小鹏P7",
                "理想L7"),
        told=("我开的是{v}。", "我的车是一辆{v}，二手买的。"),
        plain=("我开{v}。", "我的车是{v}。"),
        word=("我换车了，现在开{v}。", "我现在开{v}了。"),
        two=("我上周把{o}卖了，买了一辆{v}。", "{o}我已经卖掉了，现在开的是{v}。"),
        now=("我现在开什么车？", "我目前的车是什么？"), untimed=("我开什么车？",),
        before=("我以前开什么车？", "我之前开的是什么车？"), last_year=("去年我开的是什么车？",))),
    Kind("phone", Phrasing(
        values=("iPhone 15", "Pixel 8", "Samsung Galaxy S23|Galaxy", "Xiaomi 14|Xiaomi", "Huawei Mate 60|Mate 60",
                "OnePlus 12|OnePlus", "Sony Xperia|Xperia"),
        told=("My phone is {av}.", "I use {av} as my phone."),
        plain=("My phone is {av}.", "I use {av}."),
        word=("I switched to {av}.", "I'm using {av} now."),
        two=("My {o} died last week, so I got {av}.", "I gave my {o} to my nephew and bought {av}."),
        now=("What phone do I use now?", "Which phone am I using at the moment?"),
        untimed=("What phone do I have?", "What's my phone?"),
        before=("What phone did I use before?", "Which phone did I have before?"),
        last_year=("What phone did I use last year?",)), Phrasing(
        values=("iPhone 15", "华为Mate 60", "小米14", "谷歌Pixel 8", "三星Galaxy S23", "OPPO Find X7", "vivo X100"),
        told=("我的手机是{v}。", "我用的手机是{v}。"),
        plain=("我用{v}。", "我的手机是{v}。"),
        word=("我换了{v}。", "我现在用{v}了。"),
        two=("我的{o}上周坏了，就买了{v}。", "我把{o}送给了侄子，自己换了{v}。"),
        now=("我现在用什么手机？", "我目前的手机是什么牌子？"), untimed=("我用什么手机？",),
        before=("我以前用什么手机？", "我之前的手机是什么？"), last_year=("去年我用的是什么手机？",))),
    Kind("laptop", Phrasing(
        values=("MacBook Air", "MacBook Pro", "ThinkPad X1|ThinkPad", "Dell XPS 13|XPS", "Surface Laptop|Surface",
                "HP Spectre|Spectre"),
        told=("My laptop is {av}.", "I do all my work on {av}."),
        plain=("My laptop is {av}.", "I work on {av}."),
        word=("I upgraded to {av}.", "I'm on {av} now."),
        two=("I sold my old {o} and got {av}.", "The {o} stopped charging, I bought {av} instead."),
        now=("What laptop do I use now?", "Which laptop am I working on these days?"),
        untimed=("What laptop do I use?", "What's my laptop?"),
        before=("What laptop did I have before?", "Which laptop did I use before?"),
        last_year=("What laptop did I use last year?",)), Phrasing(
        values=("MacBook Air", "MacBook Pro", "ThinkPad X1", "戴尔XPS", "华为MateBook", "小米笔记本", "Surface"),
        told=("我的笔记本电脑是{v}。", "我平时用{v}办公。"),
        plain=("我用{v}。", "我的电脑是{v}。"),
        word=("我换了一台{v}。", "我现在用{v}办公了。"),
        two=("我把旧的{o}卖了，买了{v}。", "{o}充不进电了，我换成了{v}。"),
        now=("我现在用什么笔记本？", "我目前用的是什么电脑？"), untimed=("我用什么笔记本电脑？",),
        before=("我以前用什么电脑？", "我之前的笔记本是什么？"), last_year=("去年我用的是什么电脑？",))),
    Kind("commute", Phrasing(
        values=("subway", "bicycle", "ferry", "tram", "scooter", "motorbike"),
        told=("I get to work by {v}.", "I commute by {v} every day."),
        plain=("I get to work by {v}.", "I commute by {v}."),
        word=("I've started commuting by {v}.", "I go to work by {v} now."),
        two=("I gave up on the {o} and switched to the {v}.", "The {o} got too slow, so I commute by {v} these days."),
        now=("How do I get to work now?", "How am I commuting these days?"),
        untimed=("How do I get to work?", "How do I commute?"),
        before=("How did I get to work before?", "How did I commute before?"),
        last_year=("How did I get to work last year?",)), Phrasing(
        values=("坐地铁|地铁", "坐公交|公交", "骑自行车|自行车", "骑电动车|电动车", "坐轮渡|轮渡", "走路"),
        told=("我每天{v}上班。", "我上班一般{v}。"),
        plain=("我{v}上班。", "我每天{v}去公司。"),
        word=("我现在改成{v}上班了。", "我最近开始{v}上班。"),
        two=("我不再{o}了，改成{v}上班。", "{o}太折腾了，我现在{v}去公司。"),
        now=("我现在怎么去上班？", "我目前通勤用什么方式？"), untimed=("我怎么去上班？",),
        before=("我以前怎么去上班？", "我之前是怎么通勤的？"), last_year=("去年我是怎么去上班的？",))),
    Kind("diet", Phrasing(
        values=("vegetarian", "vegan", "keto", "pescatarian", "gluten-free", "low-carb"),
        told=("I follow a {v} diet.", "I've been on a {v} diet for a while."),
        plain=("I'm on a {v} diet.", "I eat {v}."),
        word=("I've gone {v}.", "I'm on a {v} diet now."),
        two=("I dropped the {o} diet last month and went {v}.", "{o} didn't work for me, I'm {v} now."),
        now=("What diet am I on now?", "What kind of diet do I follow these days?"),
        untimed=("What diet am I on?", "What diet do I follow?"),
        before=("What diet was I on before?", "What diet did I follow before?"),
        last_year=("What diet was I on last year?",)), Phrasing(
        values=("素食", "生酮饮食|生酮", "纯素", "低碳水饮食|低碳水", "地中海饮食|地中海", "无麸质饮食|无麸质"),
        told=("我在吃{v}。", "我一直坚持{v}。"),
        plain=("我吃{v}。", "我坚持{v}。"),
        word=("我改吃{v}了。", "我现在开始{v}了。"),
        two=("我上个月放弃了{o}，改成了{v}。", "{o}对我没用，我现在吃{v}。"),
        now=("我现在是哪种饮食方式？", "我目前在坚持哪种饮食？"), untimed=("我是哪种饮食方式？",),
        before=("我以前是哪种饮食方式？", "我之前坚持的是哪种饮食？"), last_year=("去年我是哪种饮食方式？",))),
    Kind("morning-drink", Phrasing(
        values=("black coffee", "green tea", "oat latte", "matcha", "espresso", "hot chocolate", "orange juice"),
        told=("I start every morning with {v}.", "My morning drink is {v}."),
        plain=("My morning drink is {v}.", "I have {v} every morning."),
        word=("I've switched to {v} in the mornings.", "I drink {v} in the morning now."),
        two=("I gave up {o} last month and have {v} instead.",
             "{o} was keeping me up, so I start the day with {v} now."),
        now=("What do I drink in the morning now?", "What's my morning drink these days?"),
        untimed=("What do I drink in the morning?", "What is my morning drink?"),
        before=("What did I drink in the morning before?", "What was my morning drink before?"),
        last_year=("What did I drink in the mornings last year?",)), Phrasing(
        values=("黑咖啡", "绿茶", "燕麦拿铁", "抹茶", "豆浆", "热可可", "普洱茶"),
        told=("我每天早上喝{v}。", "早上我习惯喝一杯{v}。"),
        plain=("我每天早上喝{v}。", "早上我喝{v}。"),
        word=("我早上改喝{v}了。", "我现在早上喝{v}。"),
        two=("我上个月戒了{o}，早上改喝{v}。", "{o}喝了睡不好，现在早上都喝{v}。"),
        now=("我现在早上喝什么？", "我最近早上习惯喝什么？"), untimed=("我早上喝什么？",),
        before=("我以前早上喝什么？", "我之前早上习惯喝什么？"), last_year=("去年我早上喝什么？",))),
    Kind("workout", Phrasing(
        values=("running", "swimming", "yoga", "cycling", "boxing", "rock climbing", "pilates"),
        told=("My main exercise is {v}.", "I keep fit with {v}, three times a week."),
        plain=("My main exercise is {v}.", "I keep fit with {v}."),
        word=("I've switched to {v} for exercise.", "I'm doing {v} now to keep fit."),
        two=("I hurt my knee and stopped {o}, I do {v} now.", "I quit {o} in the spring and took up {v}."),
        now=("What exercise do I do now?", "How do I keep fit these days?"),
        untimed=("What exercise do I do?", "How do I keep fit?"),
        before=("What exercise did I do before?", "How did I keep fit before?"),
        last_year=("What exercise did I do last year?",)), Phrasing(
        values=("跑步", "游泳", "瑜伽", "骑行", "拳击", "攀岩", "普拉提"),
        told=("我每周{v}三次。", "我主要的锻炼方式是{v}。"),
        plain=("我的锻炼方式是{v}。", "我靠{v}锻炼身体。"),
        word=("我现在锻炼改成{v}了。", "我最近改练{v}了。"),
        two=("我膝盖受伤后不再{o}了，改成了{v}。", "我春天放弃了{o}，开始{v}。"),
        now=("我现在做什么运动锻炼？", "我最近靠什么锻炼身体？"), untimed=("我平时做什么运动？",),
        before=("我以前做什么运动？", "我之前靠什么锻炼？"), last_year=("去年我做什么运动？",))),
    Kind("race", Phrasing(
        values=("Berlin Marathon|Berlin", "Boston Marathon|Boston", "Tokyo Marathon|Tokyo",
                "Chicago Marathon|Chicago", "London Marathon|London", "Sydney Marathon|Sydney"),
        told=("I'm training for the {v}.", "I signed up for the {v}."),
        plain=("I'm training for the {v}.", "My next race is the {v}."),
        word=("I switched my target race to the {v}.", "I'm running the {v} now instead."),
        two=("I pulled out of the {o}, I'm training for the {v} instead.",
             "The {o} was cancelled, so I entered the {v}."),
        now=("Which race am I training for now?", "What race am I preparing for at the moment?"),
        untimed=("Which race am I training for?", "What is my next race?"),
        before=("Which race was I training for before?", "What race did I sign up for before?"),
        last_year=("Which race was I training for last year?",)), Phrasing(
        values=("北京马拉松", "上海马拉松", "柏林马拉松", "东京马拉松", "厦门马拉松", "广州马拉松"),
        told=("我在备战{v}。", "我报名了{v}。"),
        plain=("我在备战{v}。", "我下一场比赛是{v}。"),
        word=("我改报了{v}。", "我现在准备跑{v}了。"),
        two=("我退出了{o}，改为备战{v}。", "{o}取消了，所以我报了{v}。"),
        now=("我现在在备战哪场比赛？", "我目前准备跑哪个马拉松？"), untimed=("我在备战哪场比赛？",),
        before=("我以前在备战哪场比赛？", "我之前报名的是哪场比赛？"), last_year=("去年我在备战哪场比赛？",))),
    Kind("team", Phrasing(
        values=("Arsenal", "Liverpool", "Barcelona", "Real Madrid", "Bayern Munich", "Juventus", "Chelsea"),
        told=("I support {v}.", "I'm a big {v} fan."),
        plain=("I support {v}.", "My team is {v}."),
        word=("I've switched to supporting {v}.", "I follow {v} now."),
        two=("I gave up on {o} after the season, I support {v} now.",
             "I stopped following {o} and became a fan of {v}."),
        now=("Which football team do I support now?", "What team am I a fan of these days?"),
        untimed=("Which football team do I support?", "What's my team?"),
        before=("Which team did I support before?", "What team was I a fan of before?"),
        last_year=("Which team did I support last year?",)), Phrasing(
        values=("阿森纳", "利物浦", "巴塞罗那", "皇家马德里", "拜仁慕尼黑|拜仁", "尤文图斯|尤文", "切尔西"),
        told=("我支持{v}。", "我是{v}的铁杆球迷。"),
        plain=("我支持{v}。", "我是{v}球迷。"),
        word=("我改支持{v}了。", "我现在是{v}的球迷了。"),
        two=("赛季结束后我不再支持{o}了，转粉了{v}。", "我对{o}失望了，现在支持{v}。"),
        now=("我现在支持哪支球队？", "我目前是哪个队的球迷？"), untimed=("我支持哪支球队？",),
        before=("我以前支持哪支球队？", "我之前是哪个队的球迷？"), last_year=("去年我支持哪支球队？",))),
    Kind("doctor", Phrasing(
        values=("Dr Patel", "Dr Novak", "Dr Okafor", "Dr Lindqvist", "Dr Romero", "Dr Fischer"),
        told=("My family doctor is {v}.", "I see {v} for my check-ups."),
        plain=("My doctor is {v}.", "I see {v} for check-ups."),
        word=("I changed doctors, I see {v} now.", "My doctor is {v} now."),
        two=("{o} retired in the spring, so I see {v} now.", "I stopped seeing {o} and registered with {v}."),
        now=("Who is my doctor now?", "Which doctor do I see these days?"),
        untimed=("Who is my doctor?", "Which doctor do I see?"),
        before=("Who was my doctor before?", "Which doctor did I see before?"),
        last_year=("Who was my doctor last year?",)), Phrasing(
        values=("王医生", "李医生", "陈医生", "赵医生", "周医生", "孙医生"),
        told=("我的家庭医生是{v}。", "我体检都找{v}。"),
        plain=("我的医生是{v}。", "我看病找{v}。"),
        word=("我换医生了，现在找{v}。", "我现在的家庭医生是{v}。"),
        two=("{o}春天退休了，所以我改找{v}。", "我不再找{o}看病了，换成了{v}。"),
        now=("我现在的医生是谁？", "我最近看病找哪位医生？"), untimed=("我的家庭医生是谁？",),
        before=("我以前的医生是谁？", "我之前找哪位医生看病？"), last_year=("去年我的医生是谁？",))),
    Kind("pet", Phrasing(
        values=("golden retriever", "tabby cat", "parrot", "rabbit", "hamster", "corgi", "tortoise"),
        told=("I have {av}.", "We keep {av} at home."),
        plain=("I have {av}.", "My pet is {av}."),
        word=("I've got {av} now.", "My pet is {av} now."),
        two=("We gave the {o} to my cousin and adopted {av}.",
             "Our {o} passed away in the spring, we got {av} last month."),
        now=("What pet do I have now?", "What kind of pet do I have these days?"),
        untimed=("What pet do I have?", "What is my pet?"),
        before=("What pet did I have before?", "What kind of pet did I keep before?"),
        last_year=("What pet did I have last year?",)), Phrasing(
        values=("金毛", "橘猫", "鹦鹉", "兔子", "仓鼠", "柯基", "乌龟"),
        told=("我养了一只{v}。", "我家里有只{v}。"),
        plain=("我养了一只{v}。", "我的宠物是一只{v}。"),
        word=("我现在养的是{v}了。", "我新养了一只{v}。"),
        two=("我们把{o}送给了表哥，领养了一只{v}。", "我们家的{o}春天去世了，上个月又养了一只{v}。"),
        now=("我现在养的是什么宠物？", "我最近养了什么宠物？"), untimed=("我养的是什么宠物？",),
        before=("我以前养的是什么宠物？", "我之前养过什么宠物？"), last_year=("去年我养的是什么宠物？",))),
    Kind("hobby", Phrasing(
        values=("painting", "pottery", "photography", "chess", "knitting", "gardening", "woodworking"),
        told=("My hobby is {v}.", "I spend my weekends on {v}."),
        plain=("My hobby is {v}.", "I spend my weekends on {v}."),
        word=("I've taken up {v}.", "My hobby is {v} now."),
        two=("I lost interest in {o}, I'm into {v} now.", "I put {o} aside this year and got into {v}."),
        now=("What is my hobby now?", "What do I do for fun these days?"),
        untimed=("What is my hobby?", "What do I do on weekends?"),
        before=("What was my hobby before?", "What did I do for fun before?"),
        last_year=("What was my hobby last year?",)), Phrasing(
        values=("画画", "陶艺", "摄影", "下棋", "织毛衣", "养花", "木工"),
        told=("我的爱好是{v}。", "我周末都花在{v}上。"),
        plain=("我的爱好是{v}。", "我喜欢{v}。"),
        word=("我最近迷上了{v}。", "我现在的爱好是{v}。"),
        two=("我对{o}没兴趣了，现在迷上了{v}。", "今年我把{o}放下了，开始学{v}。"),
        now=("我现在的爱好是什么？", "我最近喜欢做什么消遣？"), untimed=("我的爱好是什么？",),
        before=("我以前的爱好是什么？", "我之前喜欢做什么？"), last_year=("去年我的爱好是什么？",))),
    Kind("streaming", Phrasing(
        values=("Netflix", "Disney+", "HBO Max", "Apple TV+", "Hulu", "Amazon Prime Video|Prime Video"),
        told=("I subscribe to {v}.", "I pay for {v} every month."),
        plain=("I subscribe to {v}.", "I pay for {v}."),
        word=("I switched my subscription to {v}.", "I'm subscribed to {v} now."),
        two=("I cancelled {o} last month and signed up for {v}.", "{o} got too expensive, so I pay for {v} now."),
        now=("Which streaming service do I pay for now?", "What am I subscribed to these days?"),
        untimed=("Which streaming service do I subscribe to?", "What streaming service do I pay for?"),
        before=("Which streaming service did I pay for before?", "What was I subscribed to before?"),
        last_year=("Which streaming service did I pay for last year?",)), Phrasing(
        values=("爱奇艺", "腾讯视频", "优酷", "芒果TV", "哔哩哔哩大会员|哔哩哔哩", "Netflix"),
        told=("我开了{v}的会员。", "我每个月都续费{v}。"),
        plain=("我是{v}会员。", "我订阅了{v}。"),
        word=("我改订{v}了。", "我现在用的是{v}会员。"),
        two=("我上个月退订了{o}，开了{v}。", "{o}涨价了，所以我现在订的是{v}。"),
        now=("我现在订的是哪个视频会员？", "我目前开着哪家的会员？"), untimed=("我订了哪个视频平台的会员？",),
        before=("我以前订的是哪个视频会员？", "我之前开的是哪家的会员？"), last_year=("去年我订的是哪个视频会员？",))),
    Kind("gym", Phrasing(
        values=("Fitness First", "Anytime Fitness", "Pure Gym", "Planet Fitness", "Gold's Gym", "Virgin Active"),
        told=("I'm a member of {v}.", "I work out at {v} near my office."),
        plain=("I go to {v}.", "My gym is {v}."),
        word=("I switched gyms to {v}.", "I train at {v} now."),
        two=("I cancelled my {o} membership and joined {v}.", "{o} closed down, so I go to {v} now."),
        now=("Which gym do I go to now?", "What's my gym these days?"),
        untimed=("Which gym do I go to?", "What gym am I a member of?"),
        before=("Which gym did I go to before?", "What gym was I a member of before?"),
        last_year=("Which gym did I go to last year?",)), Phrasing(
        values=("威尔士健身", "一兆韦德", "超级猩猩", "乐刻健身", "金吉鸟健身", "中田健身"),
        told=("我办了{v}的卡。", "我常去公司附近的{v}。"),
        plain=("我去{v}锻炼。", "我的健身房是{v}。"),
        word=("我换到{v}了。", "我现在在{v}练。"),
        two=("我退了{o}的卡，办了{v}。", "{o}倒闭了，所以我现在去{v}。"),
        now=("我现在去哪家健身房？", "我目前在哪个健身房办卡？"), untimed=("我去哪家健身房？",),
        before=("我以前去哪家健身房？", "我之前在哪个健身房办的卡？"), last_year=("去年我去哪家健身房？",))),
    Kind("bank", Phrasing(
        values=("HSBC", "Barclays", "Citibank", "Santander", "Monzo", "Revolut", "Lloyds"),
        told=("My bank is {v}.", "I keep my savings at {v}."),
        plain=("My bank is {v}.", "I bank with {v}."),
        word=("I moved my account to {v}.", "I bank with {v} now."),
        two=("I closed my {o} account and opened one at {v}.", "{o} raised its fees, so I switched to {v}."),
        now=("Which bank do I use now?", "Who do I bank with these days?"),
        untimed=("Which bank do I use?", "Who do I bank with?"),
        before=("Which bank did I use before?", "Who did I bank with before?"),
        last_year=("Which bank did I use last year?",)), Phrasing(
        values=("招商银行", "工商银行", "建设银行", "中国银行", "交通银行", "浦发银行"),
        told=("我的工资卡在{v}。", "我的存款放在{v}。"),
        plain=("我用{v}。", "我在{v}开的户。"),
        word=("我把账户转到{v}了。", "我现在用{v}了。"),
        two=("我注销了{o}的账户，在{v}开了新户。", "{o}手续费太高，我换成了{v}。"),
        now=("我现在用哪家银行？", "我目前的工资卡在哪家银行？"), untimed=("我用哪家银行？",),
        before=("我以前用哪家银行？", "我之前的存款放在哪家银行？"), last_year=("去年我用的是哪家银行？",))),
    Kind("trip-plan", Phrasing(
        values=("Japan", "Iceland", "Portugal", "New Zealand", "Morocco", "Peru", "Vietnam"),
        told=("I'm planning a trip to {v} in the spring.", "My next holiday will be in {v}."),
        plain=("My next holiday is in {v}.", "I'm planning a trip to {v}."),
        word=("Change of plans: I'm going to {v} instead.", "I'm going to {v} now for my holiday."),
        two=("I cancelled the {o} trip and booked flights to {v}.",
             "{o} was too expensive, so we picked {v} for the holiday."),
        now=("Where am I going on holiday now?", "Where is my next holiday now?"),
        untimed=("Where am I going on holiday?", "Where is my next trip?"),
        before=("Where was I planning to go before?", "Which trip did I plan before?"),
        last_year=("Where was I planning to travel last year?",)), Phrasing(
        values=("日本", "冰岛", "葡萄牙", "新西兰", "摩洛哥", "秘鲁", "越南"),
        told=("我计划春天去{v}旅游。", "我下次度假打算去{v}。"),
        plain=("我下次度假去{v}。", "我计划去{v}旅游。"),
        word=("计划有变，我改去{v}了。", "我现在打算去{v}度假。"),
        two=("我取消了去{o}的行程，订了去{v}的机票。", "{o}太贵了，所以我们改去{v}度假。"),
        now=("我现在打算去哪里度假？", "我下次旅行目前定在哪里？"), untimed=("我下次打算去哪里旅游？",),
        before=("我以前计划去哪里旅游？", "我之前打算去哪里度假？"), last_year=("去年我计划去哪里旅游？",))),
    Kind("instrument", Phrasing(
        values=("piano", "violin", "guitar", "cello", "drums", "saxophone", "ukulele"),
        told=("I'm learning the {v}.", "I play the {v} in the evenings."),
        plain=("I play the {v}.", "I'm learning the {v}."),
        word=("I switched to the {v}.", "I'm learning the {v} now."),
        two=("I gave up the {o}, I practise the {v} now.", "I stopped {o} lessons in March and started on the {v}."),
        now=("Which instrument do I play now?", "What instrument am I learning these days?"),
        untimed=("Which instrument do I play?", "What instrument am I learning?"),
        before=("Which instrument did I play before?", "What instrument was I learning before?"),
        last_year=("Which instrument did I play last year?",)), Phrasing(
        values=("钢琴", "小提琴", "吉他", "大提琴", "架子鼓", "萨克斯", "尤克里里"),
        told=("我在学{v}。", "我晚上会练{v}。"),
        plain=("我在学{v}。", "我会{v}。"),
        word=("我改学{v}了。", "我现在在练{v}。"),
        two=("我不学{o}了，三月开始学{v}。", "我把{o}卖了，开始学{v}。"),
        now=("我现在在学什么乐器？", "我最近在练什么乐器？"), untimed=("我在学什么乐器？",),
        before=("我以前学的是什么乐器？", "我之前在练什么乐器？"), last_year=("去年我在学什么乐器？",))),
    Kind("language", Phrasing(
        values=("Spanish", "Japanese", "French", "German", "Korean", "Italian", "Arabic"),
        told=("I'm learning {v}.", "I take {v} classes twice a week."),
        plain=("I'm learning {v}.", "I take {v} classes."),
        word=("I switched to learning {v}.", "I'm studying {v} now."),
        two=("I dropped {o} in the summer and started {v}.", "I gave up on {o}, I'm learning {v} now."),
        now=("Which language am I learning now?", "What language am I studying these days?"),
        untimed=("Which language am I learning?", "What language am I studying?"),
        before=("Which language was I learning before?", "What language did I study before?"),
        last_year=("Which language was I learning last year?",)), Phrasing(
        values=("西班牙语", "日语", "法语", "德语", "韩语", "意大利语", "阿拉伯语"),
        told=("我在学{v}。", "我每周上两次{v}课。"),
        plain=("我在学{v}。", "我在上{v}课。"),
        word=("我改学{v}了。", "我现在在学{v}。"),
        two=("我夏天放弃了{o}，开始学{v}。", "{o}我不学了，现在在学{v}。"),
        now=("我现在在学什么语言？", "我最近在学哪门外语？"), untimed=("我在学什么语言？",),
        before=("我以前在学什么语言？", "我之前学的是哪门外语？"), last_year=("去年我在学什么语言？",))),
    Kind("reading", Phrasing(
        values=("Dune", "Middlemarch", "The Three-Body Problem|Three-Body", "War and Peace", "Moby-Dick", "Beloved",
                "Sapiens"),
        told=("I'm reading {v} at the moment.", "The book on my nightstand is {v}."),
        plain=("I'm reading {v}.", "The book I'm reading is {v}."),
        word=("I've started reading {v} now.", "I'm on {v} now."),
        two=("I finished {o} last week and started {v}.", "I gave up on {o}, I'm reading {v} now."),
        now=("What book am I reading now?", "Which book am I reading at the moment?"),
        untimed=("What book am I reading?", "What's on my nightstand?"),
        before=("What book was I reading before?", "Which book did I read before?"),
        last_year=("What book was I reading last year?",)), Phrasing(
        values=("三体", "活着", "红楼梦", "百年孤独", "围城", "平凡的世界"),
        told=("我最近在读《{v}》。", "我床头放着一本《{v}》。"),
        plain=("我在读《{v}》。", "我在看《{v}》。"),
        word=("我开始读《{v}》了。", "我现在在看《{v}》。"),
        two=("我上周读完了《{o}》，开始读《{v}》。", "《{o}》我没读下去，现在在读《{v}》。"),
        now=("我现在在读什么书？", "我最近在看哪本书？"), untimed=("我在读什么书？",),
        before=("我以前在读什么书？", "我之前在看哪本书？"), last_year=("去年我在读什么书？",))),
    Kind("camera", Phrasing(
        values=("Sony A7 IV|Sony", "Fujifilm X-T5|Fujifilm", "Canon R6|Canon", "Nikon Z6|Nikon", "Leica Q2|Leica",
                "Ricoh GR III|Ricoh"),
        told=("I shoot with {av}.", "My camera is {av}."),
        plain=("My camera is {av}.", "I shoot with {av}."),
        word=("I upgraded to {av}.", "I shoot with {av} now."),
        two=("I traded in my {o} for {av}.", "I sold the {o} and bought {av} last month."),
        now=("What camera do I use now?", "Which camera am I shooting with these days?"),
        untimed=("What camera do I have?", "What camera do I shoot with?"),
        before=("What camera did I use before?", "Which camera did I have before?"),
        last_year=("What camera did I use last year?",)), Phrasing(
        values=("索尼A7", "富士X-T5", "佳能R6", "尼康Z6", "徕卡Q2", "理光GR3"),
        told=("我的相机是{v}。", "我拍照用{v}。"),
        plain=("我用{v}拍照。", "我的相机是{v}。"),
        word=("我换了{v}。", "我现在用{v}拍照了。"),
        two=("我把{o}折价换了一台{v}。", "我上个月卖了{o}，买了{v}。"),
        now=("我现在用什么相机？", "我最近用哪台相机拍照？"), untimed=("我用什么相机？",),
        before=("我以前用什么相机？", "我之前的相机是什么？"), last_year=("去年我用的是什么相机？",))),
    Kind("game", Phrasing(
        values=("Zelda", "Elden Ring", "Stardew Valley", "Minecraft", "Baldur's Gate 3", "Hades", "Civilization VI"),
        told=("I'm playing {v} in the evenings.", "The game I'm hooked on is {v}."),
        plain=("I'm playing {v}.", "I play {v} in the evenings."),
        word=("I've moved on to {v}.", "I'm playing {v} now."),
        two=("I finished {o} last week and started {v}.", "I got bored of {o}, I'm hooked on {v} now."),
        now=("What game am I playing now?", "Which video game am I into these days?"),
        untimed=("What game am I playing?", "Which video game do I play?"),
        before=("What game was I playing before?", "Which video game was I into before?"),
        last_year=("What game was I playing last year?",)), Phrasing(
        values=("原神", "塞尔达", "艾尔登法环", "星露谷物语", "动物森友会", "王者荣耀", "黑神话悟空"),
        told=("我晚上在玩{v}。", "我最近沉迷{v}。"),
        plain=("我在玩{v}。", "我晚上玩{v}。"),
        word=("我改玩{v}了。", "我现在在玩{v}。"),
        two=("我上周通关了{o}，开始玩{v}。", "{o}玩腻了，我现在沉迷{v}。"),
        now=("我现在在玩什么游戏？", "我最近沉迷哪款游戏？"), untimed=("我在玩什么游戏？",),
        before=("我以前在玩什么游戏？", "我之前沉迷哪款游戏？"), last_year=("去年我在玩什么游戏？",))),
    Kind("manager", Phrasing(
        values=("Lisa Wong", "Mark Evans", "Sarah Kim", "James Miller", "Olivia Brown", "Daniel Lee"),
        told=("My manager is {v}.", "I report to {v}."),
        plain=("My manager is {v}.", "I report to {v}."),
        word=("I have a new manager, {v}.", "I report to {v} now."),
        two=("{o} moved to another team, so I report to {v} now.",
             "{o} left the company and {v} took over as my manager."),
        now=("Who is my manager now?", "Who do I report to these days?"),
        untimed=("Who is my manager?", "Who do I report to?"),
        before=("Who was my manager before?", "Who did I report to before?"),
        last_year=("Who was my manager last year?",)), Phrasing(
        values=("王芳", "刘洋", "陈静", "杨帆", "赵磊", "黄敏"),
        told=("我的领导是{v}。", "我直接向{v}汇报。"),
        plain=("我的领导是{v}。", "我向{v}汇报工作。"),
        word=("我换领导了，现在是{v}。", "我现在向{v}汇报。"),
        two=("{o}调去别的部门了，所以我现在向{v}汇报。", "{o}离职了，{v}接手当了我的领导。"),
        now=("我现在的领导是谁？", "我目前向谁汇报？"), untimed=("我的领导是谁？",),
        before=("我以前的领导是谁？", "我之前向谁汇报？"), last_year=("去年我的领导是谁？",))),
    # --- other people the user names ----------------------------------------------------------------------
    Kind("partner-city", Phrasing(
        persons=_EN_PARTNERS,
        values=("Singapore", "Sydney", "Vancouver", "London", "Dubai", "Seoul", "Munich"),
        told=("{P} lives in {v}; we're long-distance for now.", "{P} works and lives in {v}."),
        plain=("{P} lives in {v}.", "{P} is based in {v}."),
        word=("{P} moved to {v}.", "{P} lives in {v} now."),
        two=("{P} left {o} in the autumn, {he} lives in {v} now.", "{P} gave up the flat in {o} and moved to {v}.",
             "{P} left {o} last month. {He} lives in {v} now."),
        **_EN_LIVES), Phrasing(
        persons=_ZH_PARTNERS,
        values=("新加坡", "悉尼", "温哥华", "伦敦", "迪拜", "首尔", "慕尼黑"),
        told=("{p}住在{v}，我们现在是异地。", "{p}在{v}工作和生活。"),
        plain=("{p}住在{v}。", "{p}在{v}生活。"),
        word=("{p}搬到{v}了。", "{p}现在住在{v}。"),
        two=("{p}秋天离开了{o}，{he}现在住在{v}。", "{p}退掉了{o}的房子，搬去了{v}。",
             "{p}上个月离开了{o}。{he}现在住在{v}。"),
        **_ZH_LIVES)),
    Kind("parent-city", Phrasing(
        persons=(("my mother", "she"), ("my father", "he"), ("my mum", "she"), ("my dad", "he")),
        values=("Qingdao", "Kunming", "Guilin", "Dalian", "Harbin", "Sanya", "Lhasa"),
        told=("{P} lives in {v}.", "{P} has a small flat in {v}."),
        plain=("{P} lives in {v}.", "{P} is settled in {v}."),
        word=("{P} moved to {v}.", "{P} lives in {v} now."),
        two=("{P} sold the house in {o} and moved to {v}.", "{P} left {o} after retiring, {he} lives in {v} now."),
        **_EN_LIVES), Phrasing(
        persons=(("我妈", "她"), ("我爸", "他"), ("我妈妈", "她"), ("我父亲", "他")),
        values=("青岛", "昆明", "桂林", "大连", "哈尔滨", "三亚", "拉萨"),
        told=("{p}住在{v}。", "{p}在{v}有套小房子。"),
        plain=("{p}住在{v}。", "{p}家在{v}。"),
        word=("{p}搬去{v}了。", "{p}现在住在{v}。"),
        two=("{p}把{o}的房子卖了，搬到了{v}。", "{p}退休后离开了{o}，{he}现在住在{v}。"),
        **_ZH_LIVES)),
    Kind("friend-employer", Phrasing(
        persons=_EN_FRIENDS,
        values=("Apple", "Netflix", "Meta", "Nvidia", "Intel", "Spotify", "Airbnb"),
        told=("{P} works at {v}.", "{P} is an engineer at {v}."),
        plain=("{P} works at {v}.", "{P} is at {v}."),
        word=("{P} just joined {v}.", "{P} works at {v} now."),
        two=("{P} just left {o}, {he} joined {v} last month.", "{P} quit {o} in the summer and started at {v}.",
             "{P} left {o} last month. {He} joined {v}."),
        now=("Where does {p} work now?", "Which company is {p} at these days?"),
        untimed=("Where does {p} work?", "Who does {p} work for?"),
        before=("Where did {p} work before?", "Which company was {p} at before?"),
        last_year=("Where did {p} work last year?",)), Phrasing(
        persons=_ZH_FRIENDS,
        values=("小米", "拼多多", "快手", "滴滴", "携程", "蚂蚁集团", "大疆"),
        told=("{p}在{v}上班。", "{p}是{v}的工程师。"),
        plain=("{p}在{v}上班。", "{p}在{v}工作。"),
        word=("{p}跳槽去{v}了。", "{p}现在在{v}上班。"),
        two=("{p}刚从{o}离职，{he}上个月去了{v}。", "{p}夏天辞了{o}的工作，加入了{v}。",
             "{p}上个月从{o}离职了。{he}去了{v}。"),
        now=("{p}现在在哪里工作？", "{p}目前在哪家公司？"), untimed=("{p}在哪里工作？", "{p}在哪家公司上班？"),
        before=("{p}以前在哪里工作？", "{p}之前在哪家公司？"), last_year=("{p}去年在哪里工作？",))),
    Kind("friend-role", Phrasing(
        persons=_EN_FRIENDS,
        values=("nurse", "lawyer", "chef", "pilot", "journalist", "dentist", "firefighter"),
        told=("{P} is {av}.", "{P} works as {av}."),
        plain=("{P} is {av}.", "{P} works as {av}."),
        word=("{P} became {av}.", "{P} works as {av} now."),
        two=("{P} stopped working as {ao} and retrained as {av}.", "{P} quit being {ao}, {he} is {av} now."),
        now=("What does {p} do for a living now?", "What is {p}'s job these days?"),
        untimed=("What does {p} do for a living?", "What is {p}'s job?"),
        before=("What did {p} do for a living before?", "What was {p}'s job before?"),
        last_year=("What was {p}'s job last year?",)), Phrasing(
        persons=_ZH_FRIENDS,
        values=("护士", "律师", "厨师", "飞行员", "记者", "牙医", "消防员"),
        told=("{p}是{v}。", "{p}的工作是{v}。"),
        plain=("{p}是一名{v}。", "{p}做{v}。"),
        word=("{p}改行当{v}了。", "{p}现在是{v}了。"),
        two=("{p}不当{o}了，转行做了{v}。", "{p}辞去了{o}的工作，{he}现在是{v}。"),
        now=("{p}现在是做什么的？", "{p}目前的职业是什么？"), untimed=("{p}是做什么工作的？",),
        before=("{p}以前是做什么的？", "{p}之前的职业是什么？"), last_year=("{p}去年是做什么工作的？",))),
    Kind("child-school", Phrasing(
        persons=(("my son", "he"), ("my daughter", "she")),
        values=("Greenwood Primary|Greenwood", "Riverside Academy|Riverside", "Oakfield School|Oakfield",
                "Hillcrest Primary|Hillcrest", "Maple Leaf School|Maple Leaf", "Westbrook Academy|Westbrook"),
        told=("{P} goes to {v}.", "{P} is in year three at {v}."),
        plain=("{P} goes to {v}.", "{P} is at {v}."),
        word=("{P} transferred to {v}.", "{P} goes to {v} now."),
        two=("{P} left {o} in the summer and started at {v} in September.", "{P} finished at {o}, {he} is at {v} now."),
        now=("Which school does {p} go to now?", "Where does {p} go to school these days?"),
        untimed=("Which school does {p} go to?", "Where does {p} go to school?"),
        before=("Which school did {p} go to before?", "Where did {p} go to school before?"),
        last_year=("Which school did {p} go to last year?",)), Phrasing(
        persons=(("我儿子", "他"), ("我女儿", "她")),
        values=("实验小学", "育才小学", "外国语学校", "阳光小学", "第二中学", "育英学校"),
        told=("{p}在{v}上学。", "{p}在{v}读三年级。"),
        plain=("{p}在{v}上学。", "{p}在{v}读书。"),
        word=("{p}转学到{v}了。", "{p}现在在{v}上学。"),
        two=("{p}暑假离开了{o}，九月去了{v}。", "{p}从{o}转走了，{he}现在在{v}读书。"),
        now=("{p}现在在哪所学校上学？", "{p}目前在哪个学校读书？"), untimed=("{p}在哪所学校上学？",),
        before=("{p}以前在哪所学校上学？", "{p}之前在哪个学校读书？"), last_year=("{p}去年在哪所学校上学？",))),
    Kind("friend-city", Phrasing(
        persons=_EN_FRIENDS,
        values=("Chicago", "Austin", "Dublin", "Lisbon", "Auckland", "Montreal", "Prague"),
        told=("{P} lives in {v}.", "{P} has been living in {v} for years."),
        plain=("{P} lives in {v}.", "{P} is based in {v}."),
        word=("{P} moved to {v}.", "{P} lives in {v} now."),
        two=("{P} packed up and left {o}, {he} lives in {v} now.", "{P} sold the place in {o} and moved to {v}.",
             "{P} left {o} in the spring. {He} lives in {v} now."),
        **_EN_LIVES), Phrasing(
        persons=_ZH_FRIENDS,
        values=("西安", "长沙", "重庆", "天津", "福州", "合肥", "贵阳"),
        told=("{p}住在{v}。", "{p}在{v}住了好多年。"),
        plain=("{p}住在{v}。", "{p}在{v}生活。"),
        word=("{p}搬到{v}了。", "{p}现在住在{v}。"),
        two=("{p}离开了{o}，{he}现在住在{v}。", "{p}卖了{o}的房子，搬去了{v}。", "{p}春天离开了{o}。{he}现在住在{v}。"),
        **_ZH_LIVES)),
    Kind("relative-car", Phrasing(
        persons=(("my dad", "he"), ("my sister", "she"), ("my brother", "he"), ("my aunt", "she")),
        values=("Subaru Outback|Subaru", "Jeep Wrangler|Jeep", "BMW X3|BMW", "Audi A4|Audi",
                "Hyundai Tucson|Hyundai", "Lexus RX|Lexus"),
        told=("{P} drives {av}.", "{P} has {av} that {he} loves."),
        plain=("{P} drives {av}.", "{P} has {av}."),
        word=("{P} bought {av}.", "{P} drives {av} now."),
        two=("{P} sold the {o} and bought {av}.", "{P} traded in the {o}, {he} drives {av} now."),
        now=("What car does {p} drive now?", "What is {p} driving these days?"),
        untimed=("What car does {p} drive?", "What does {p} drive?"),
        before=("What car did {p} drive before?", "What did {p} drive before?"),
        last_year=("What car did {p} drive last year?",)), Phrasing(
        persons=(("我爸", "他"), ("我姐", "她"), ("我哥", "他"), ("我小姨", "她")),
        values=("奔驰C级|奔驰", "宝马X3|宝马", "奥迪A4|奥迪", "红旗H5|红旗", "吉利星越|吉利", "长安CS75"),
        told=("{p}开的是{v}。", "{p}有一辆{v}。"),
        plain=("{p}开{v}。", "{p}的车是{v}。"),
        word=("{p}换了一辆{v}。", "{p}现在开{v}了。"),
        two=("{p}把{o}卖了，买了一辆{v}。", "{p}的{o}置换掉了，{he}现在开{v}。"),
        now=("{p}现在开什么车？", "{p}目前开的是什么车？"), untimed=("{p}开什么车？",),
        before=("{p}以前开什么车？", "{p}之前开的是什么车？"), last_year=("{p}去年开的是什么车？",))),
    Kind("friend-university", Phrasing(
        persons=_EN_FRIENDS,
        values=("Stanford", "Oxford", "Cambridge", "Harvard", "Yale", "Princeton", "Columbia"),
        told=("{P} studies at {v}.", "{P} is doing a PhD at {v}."),
        plain=("{P} studies at {v}.", "{P} is a student at {v}."),
        word=("{P} transferred to {v}.", "{P} is at {v} now."),
        two=("{P} finished the master's at {o}, {he} is doing a PhD at {v} now.", "{P} left {o} and got into {v}."),
        now=("Where does {p} study now?", "Which university is {p} at these days?"),
        untimed=("Where does {p} study?", "Which university does {p} go to?"),
        before=("Where did {p} study before?", "Which university was {p} at before?"),
        last_year=("Where did {p} study last year?",)), Phrasing(
        persons=_ZH_FRIENDS,
        values=("中山大学", "厦门大学", "同济大学|同济", "四川大学", "山东大学", "南开大学|南开"),
        told=("{p}在{v}读书。", "{p}在{v}读博。"),
        plain=("{p}在{v}读书。", "{p}是{v}的学生。"),
        word=("{p}转到{v}了。", "{p}现在在{v}读书。"),
        two=("{p}在{o}读完了硕士，{he}现在在{v}读博。", "{p}离开了{o}，考上了{v}。"),
        now=("{p}现在在哪所大学？", "{p}目前在哪个学校读书？"), untimed=("{p}在哪所大学读书？",),
        before=("{p}以前在哪所大学？", "{p}之前在哪个学校读书？"), last_year=("{p}去年在哪所大学读书？",))),
    Kind("sibling-city", Phrasing(
        persons=(("my sister", "she"), ("my brother", "he"), ("my cousin", "she")),
        values=("Beijing", "Guangzhou", "Shanghai", "Chongqing", "Tianjin", "Zhengzhou"),
        told=("{P} is at university in {v}.", "{P} studies in {v}."),
        plain=("{P} works in {v}.", "{P} lives in {v}."),
        word=("{P} moved to {v} for work.", "{P} works in {v} now."),
        two=("{P} graduated, {he} works in {v} now.", "{P} finished university in {o} and found a job in {v}."),
        now=("Where does {p} live now?", "Which city is {p} in now?"),
        untimed=("Where is {p}?", "Which city does {p} live in?"),
        before=("Where did {p} live before?", "Which city was {p} in before?"),
        last_year=("Where was {p} last year?",)), Phrasing(
        persons=(("我妹妹", "她"), ("我弟弟", "他"), ("我表姐", "她")),
        values=("北京", "广州", "上海", "南宁", "郑州", "济南"),
        told=("{p}在{v}上大学。", "{p}在{v}读书。"),
        plain=("{p}在{v}工作。", "{p}住在{v}。"),
        word=("{p}去{v}工作了。", "{p}现在在{v}上班。"),
        two=("{p}毕业了，现在在{v}工作。", "{p}在{o}读完大学，去了{v}工作。"),
        now=("{p}现在在哪个城市？", "{p}现在住在哪里？"), untimed=("{p}在哪个城市？",),
        before=("{p}以前在哪个城市？", "{p}之前在哪里？"), last_year=("{p}去年在哪里？",))),
)


def _forms(value: str) -> tuple[str, ...]:
    return tuple(value.split("|"))


def _article(text: str) -> str:
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def _cap(text: str) -> str:
    """The first letter upper-case ("my mother lives…" → "My mother lives…"), unless it is a brand like iPhone."""
    if text[:1].islower() and not text[1:2].isupper():
        return text[0].upper() + text[1:]
    return text


def _fill(template: str, *, v: str = "", o: str = "", p: str = "", he: str = "") -> str:
    text = template.format(v=v, av=_article(v), o=o, ao=_article(o), p=p, P=_cap(p), he=he, He=_cap(he))
    return _cap(text)


def _generate(kind: Kind, lang: str, n: int, index: int) -> UpdateScenario:
    sid = f"{lang}-{kind.name}-{n}"
    rng = random.Random(f"updates:{sid}")
    ph = kind.en if lang == "en" else kind.zh
    change_form = CHANGES[(n + index) % len(CHANGES)]
    subject = ("name", "pronoun")[(n + index // 2) % 2] if ph.persons else "self"
    now_form = ("now", "untimed")[n % 2]
    before_form = ("before", "last-year")[(n // 2 + index) % 2]
    old, new = (_forms(v) for v in rng.sample(ph.values, 2))
    person, pronoun = rng.choice(ph.persons) if ph.persons else ("", "")
    original = _fill(rng.choice(ph.told), v=old[0], p=person, he=pronoun)
    template = rng.choice(getattr(ph, change_form))
    if subject == "pronoun":
        lead = _fill(rng.choice(LEADS[lang]), p=person)
        change = lead + _fill(template, v=new[0], o=old[0], p=pronoun, he=pronoun)
    else:
        change = _fill(template, v=new[0], o=old[0], p=person, he=pronoun)
    now_q = _fill(rng.choice(ph.now if now_form == "now" else ph.untimed), p=person)
    before_q = _fill(rng.choice(ph.before if before_form == "before" else ph.last_year), p=person)
    # last year's fact is told last year (the questions are asked on 2026-12-03: 337+ days back is 2025)
    told_days = rng.randint(370, 600) if before_form == "last-year" else rng.randint(45, 330)
    change_days = rng.randint(3, 28)
    among, after = rng.randint(2, 4), rng.random() < 0.5  # after: one unrelated fact after the change
    fillers = rng.sample(FILLERS[lang], among + after)
    around = rng.sample([d for d in range(-15, 16) if d != 0], among)
    facts = [(told_days, original), (change_days, change)]
    if after:
        facts.append((rng.randint(1, change_days - 1), fillers.pop()))
    facts += [(told_days + d, f) for d, f in zip(around, fillers, strict=False)]
    facts.sort(key=lambda f: -f[0])
    return UpdateScenario(id=sid, lang=lang, kind=kind.name, variants=(change_form, subject, now_form, before_form),
                          facts=tuple(facts), original=original, change=change, now_question=now_q,
                          before_question=before_q, new_values=new, old_values=old)


@cache
def scenarios() -> tuple[UpdateScenario, ...]:
    """Every scenario in kind order, the two languages interleaved (so ``--limit`` takes both), the same on every
    run."""
    return tuple(_generate(kind, lang, n, i) for i, kind in enumerate(KINDS) for n in range(PER_KIND)
                 for lang in ("en", "zh"))


def select(split: str = "test", lang: str | None = None) -> list[UpdateScenario]:
    """The scenarios of ``split`` (``dev``, ``test`` or ``all``), optionally of one language."""
    return [s for s in scenarios() if split in ("all", s.split) and lang in (None, s.lang)]
