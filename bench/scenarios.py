"""Memory scenarios for ``python -m bench answers``: facts told in earlier sessions, then a question in a new one.

Each scenario: the facts (days before the question, text), the question, and the answers that count as correct
(any of them, compared after normalisation: case, spaces and punctuation do not count). "Now" scenarios tell a
fact and later its change; time-bound ones ask about a named time. 20+ in English, 20+ in Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scenario:
    name: str
    lang: str
    facts: tuple[tuple[float, str], ...]  # (days before the question, what the user said)
    question: str
    expected: tuple[str, ...]  # any of these in the answer counts as correct


SCENARIOS: tuple[Scenario, ...] = (
    # --- English: single facts ---------------------------------------------------------------------------
    Scenario("en-city", "en", ((20, "I live in Hangzhou and I love green tea."),), "Where do I live?", ("Hangzhou",)),
    Scenario("en-tea", "en", ((20, "I live in Hangzhou and I love green tea."),), "What do I like to drink?",
             ("green tea",)),
    Scenario("en-book", "en", ((9, "My favourite book is Dune."),), "What is my favourite book?", ("Dune",)),
    Scenario("en-job", "en", ((30, "I work as a nurse at Mercy Hospital."),), "What is my job?", ("nurse",)),
    Scenario("en-sister", "en", ((12, "My sister is called Anna."),), "What is my sister's name?", ("Anna",)),
    Scenario("en-dog", "en", ((40, "I have a dog named Max."),), "What is my dog's name?", ("Max",)),
    Scenario("en-allergy", "en", ((15, "I am allergic to peanuts."),), "What am I allergic to?", ("peanut",)),
    Scenario("en-passport", "en", ((5, "Remember this: my passport number ends in 42."),),
             "What does my passport number end in?", ("42",)),
    Scenario("en-violin", "en", ((25, "I play the violin in a local orchestra."),), "Which instrument do I play?",
             ("violin",)),
    Scenario("en-car", "en", ((60, "I drive a blue Toyota Corolla."),), "What car do I drive?", ("Toyota", "Corolla")),
    Scenario("en-birthday", "en", ((50, "My birthday is on May 3rd."),), "When is my birthday?", ("May 3", "3 May",
                                                                                                   "May 3rd")),
    Scenario("en-food", "en", ((18, "My favourite food is sushi."),), "What is my favourite food?", ("sushi",)),
    Scenario("en-two-facts", "en", ((30, "I work at a law firm."), (10, "I play tennis every Saturday.")),
             "What sport do I play?", ("tennis",)),
    Scenario("en-noise", "en", ((40, "My favourite colour is green."), (20, "I had pasta for lunch."),
                                (10, "My daughter is called Lily.")), "What is my daughter's name?", ("Lily",)),
    Scenario("en-hobby", "en", ((35, "I collect old maps as a hobby."),), "What do I collect?", ("map",)),
    Scenario("en-school", "en", ((70, "I studied physics at Edinburgh University."),), "What did I study?",
             ("physics",)),
    # --- English: now, and time-bound ---------------------------------------------------------------------
    Scenario("en-moved", "en", ((120, "I live in Hangzhou."), (14, "I moved to Shanghai two weeks ago.")),
             "Where do I live now?", ("Shanghai",)),
    Scenario("en-new-job", "en", ((200, "I work at Alibaba."), (20, "I started a new job at Tencent.")),
             "Where do I work now?", ("Tencent",)),
    Scenario("en-last-week", "en", ((6, "Yesterday I had dinner with my client at Din Tai Fung."),),
             "Where did I have dinner with my client?", ("Din Tai Fung",)),
    Scenario("en-trip", "en", ((45, "Last month I went hiking in the Yellow Mountains."),),
             "Where did I go hiking?", ("Yellow Mountain",)),
    Scenario("en-plan", "en", ((3, "Next Friday I fly to Tokyo for a conference."),), "Where am I flying to?",
             ("Tokyo",)),
    # --- Chinese: single facts -------------------------------------------------------------------------------
    Scenario("zh-city", "zh", ((20, "我住在杭州，我喜欢喝龙井茶。"),), "我住在哪里？", ("杭州",)),
    Scenario("zh-tea", "zh", ((20, "我住在杭州，我喜欢喝龙井茶。"),), "我喜欢喝什么茶？", ("龙井",)),
    Scenario("zh-book", "zh", ((9, "我最喜欢的书是《三体》。"),), "我最喜欢的书是什么？", ("三体",)),
    Scenario("zh-job", "zh", ((30, "我是一名小学老师。"),), "我是做什么工作的？", ("老师", "教师")),
    Scenario("zh-sister", "zh", ((12, "我妹妹叫小红。"),), "我妹妹叫什么名字？", ("小红",)),
    Scenario("zh-dog", "zh", ((40, "我养了一只叫旺财的狗。"),), "我的狗叫什么？", ("旺财",)),
    Scenario("zh-allergy", "zh", ((15, "我对花生过敏。"),), "我对什么过敏？", ("花生",)),
    Scenario("zh-passport", "zh", ((5, "记住：我的护照号码尾号是42。"),), "我的护照号码尾号是多少？", ("42",)),
    Scenario("zh-instrument", "zh", ((25, "我会弹钢琴，已经学了十年。"),), "我会什么乐器？", ("钢琴",)),
    Scenario("zh-car", "zh", ((60, "我开一辆白色的比亚迪。"),), "我开什么车？", ("比亚迪",)),
    Scenario("zh-birthday", "zh", ((50, "我的生日是十月一日。"),), "我的生日是哪天？", ("十月一", "10月1")),
    Scenario("zh-food", "zh", ((18, "我最喜欢吃火锅。"),), "我最喜欢吃什么？", ("火锅",)),
    Scenario("zh-two-facts", "zh", ((30, "我在律师事务所工作。"), (10, "我每周六打羽毛球。")), "我周六做什么运动？",
             ("羽毛球",)),
    Scenario("zh-noise", "zh", ((40, "我最喜欢的颜色是蓝色。"), (20, "我中午吃了面条。"), (10, "我女儿叫朵朵。")),
             "我女儿叫什么？", ("朵朵",)),
    Scenario("zh-hobby", "zh", ((35, "我的爱好是收集邮票。"),), "我的爱好是什么？", ("邮票",)),
    Scenario("zh-school", "zh", ((70, "我在浙江大学读的计算机专业。"),), "我在哪所大学读书？", ("浙江大学", "浙大")),
    # --- Chinese: now, and time-bound ---------------------------------------------------------------------
    Scenario("zh-moved", "zh", ((120, "我住在杭州。"), (14, "我两周前搬到上海了。")), "我现在住在哪里？", ("上海",)),
    Scenario("zh-new-job", "zh", ((200, "我在阿里巴巴工作。"), (20, "我换工作了，现在在腾讯上班。")),
             "我现在在哪里上班？", ("腾讯",)),
    Scenario("zh-dinner", "zh", ((6, "昨天我在外婆家请客户吃了饭。"),), "我在哪家餐厅请的客户？", ("外婆家",)),
    Scenario("zh-trip", "zh", ((45, "上个月我去黄山爬山了。"),), "我去哪里爬山了？", ("黄山",)),
    Scenario("zh-plan", "zh", ((3, "下周五我要飞去东京开会。"),), "我下周五要去哪里？", ("东京",)),
)
