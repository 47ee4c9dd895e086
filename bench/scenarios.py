"""Memory scenarios for ``python -m bench answers``: facts told in earlier sessions, then a session of turns.

Each scenario: the facts (days before the session, text), then the user's turns of one new session, each with what
it expects. The first 42 ask one question (``question``, ``expected``: the answers that count as correct, any of
them, compared after normalisation: case, spaces and punctuation do not count); "now" scenarios tell a fact and
later its change, time-bound ones ask about a named time. The others (``session``) are conversations that mix
statements, small talk, questions about what was told (``fact``) and questions about what never was (``unknown``:
the answer should say it was not told). The split (``dev`` / ``test``) is a hash of the name, like bench/updates'.
"""

from __future__ import annotations

from dataclasses import dataclass

from bench.update_scenarios import split_of

TURN_KINDS = ("fact", "unknown", "statement", "smalltalk")


@dataclass(frozen=True)
class Turn:
    """One user message of the session and what its answer should be: ``fact`` names one of ``expected``;
    ``unknown`` (never told) says it was not told; ``statement`` and ``smalltalk`` are acknowledged briefly."""

    text: str
    kind: str
    expected: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    name: str
    lang: str
    facts: tuple[tuple[float, str], ...]  # (days before the question, what the user said)
    question: str = ""
    expected: tuple[str, ...] = ()  # any of these in the answer counts as correct
    session: tuple[Turn, ...] = ()  # a conversation instead of one question

    @property
    def turns(self) -> tuple[Turn, ...]:
        return self.session or (Turn(self.question, "fact", self.expected),)

    @property
    def multi_turn(self) -> bool:
        return len(self.turns) > 1

    @property
    def split(self) -> str:
        return split_of(self.name)


def _fact(text: str, *expected: str) -> Turn:
    return Turn(text, "fact", expected)


def _unknown(text: str) -> Turn:
    return Turn(text, "unknown")


def _said(text: str) -> Turn:
    return Turn(text, "statement")


def _chat(text: str) -> Turn:
    return Turn(text, "smalltalk")


def _talk(name: str, lang: str, facts: tuple[tuple[float, str], ...], *turns: Turn) -> Scenario:
    return Scenario(name, lang, facts, session=turns)


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
    # --- English: conversations ----------------------------------------------------------------------------
    _talk("en-s-balcony", "en", ((10, "I grow tomatoes and basil on my balcony."),),
          _chat("hey, back again 🙂"), _fact("What do I grow on the balcony?", "tomato", "basil"),
          _unknown("How old am I?"), _chat("fair enough, cheers")),
    _talk("en-s-cousin", "en", (),
          _said("My cousin Priya just moved to Lisbon for a design job."), _chat("wild, right?"),
          _fact("Which city did Priya move to?", "Lisbon"), _unknown("What is Priya's surname?")),
    _talk("en-s-marathon", "en", ((40, "I ran the Berlin marathon in October."),),
          _fact("Which marathon did I run?", "Berlin"), _chat("that was a tough one haha"),
          _unknown("What was my finishing time?")),
    _talk("en-s-cat", "en", ((25, "My cat Pickles is a ginger tabby."),),
          _chat("evening! long day"), _unknown("When is my cat's birthday?"),
          _fact("What's my cat called?", "Pickles"), _chat("lol she'd be proud")),
    _talk("en-s-chemistry", "en", (),
          _said("I teach chemistry at a high school in Leeds."), _chat("it's a lot of marking, trust me"),
          _fact("What subject do I teach?", "chemistry"), _unknown("How many students are in my class?")),
    _talk("en-s-bike", "en", ((15, "I commute by bike, a green Brompton."),),
          _unknown("Where did I buy my bike?"), _chat("no worries if you can't remember"),
          _fact("How do I get to work?", "bike", "Brompton", "cycl")),
    _talk("en-s-vegetarian", "en", ((60, "I've been vegetarian since 2019."),),
          _fact("Since when have I been vegetarian?", "2019"), _unknown("What's my favourite restaurant?"),
          _chat("right, makes sense"), _said("I'm trying to cut down on coffee too.")),
    _talk("en-s-pilot", "en", ((30, "My brother Kofi is a pilot."),),
          _chat("yo"), _fact("What does Kofi do for a living?", "pilot"),
          _unknown("Which airline does Kofi fly for?"), _chat("thanks, that helps!")),
    _talk("en-s-paint", "en", (),
          _said("We painted the living room yellow last weekend."), _chat("took forever honestly"),
          _unknown("How big is my flat?"), _fact("What colour did we paint the living room?", "yellow")),
    _talk("en-s-cello", "en", ((90, "I've been learning the cello for three years."),),
          _fact("Which instrument am I learning?", "cello"), _unknown("Who is my cello teacher?"),
          _chat("haha you got me")),
    _talk("en-s-wedding", "en", ((20, "My best friend Tomasz is getting married in June."),),
          _chat("quick question"), _fact("When is Tomasz getting married?", "June"),
          _unknown("Where is Tomasz's wedding?"), _chat("amazing, cheers")),
    _talk("en-s-cats-allergy", "en", (),
          _said("Turns out I'm allergic to cats, the doctor confirmed it."), _chat("bummer"),
          _fact("What am I allergic to?", "cat"), _unknown("What's my doctor's name?")),
    _talk("en-s-phone", "en", ((12, "I switched to a Pixel phone last month."),),
          _unknown("What's my phone number?"), _fact("What phone do I use?", "Pixel"),
          _chat("nice, you remembered")),
    _talk("en-s-korean", "en", ((50, "I'm learning Korean on weekday evenings."),),
          _chat("hiya"), _fact("What language am I learning?", "Korean"),
          _unknown("What's my Korean teacher called?"), _said("I might start Japanese next year too.")),
    _talk("en-s-office", "en", (),
          _said("My office is in Canary Wharf now."), _chat("the commute is brutal lol"),
          _unknown("What time do I start work?"), _fact("Where is my office?", "Canary Wharf")),
    _talk("en-s-twins", "en", ((100, "I have twin boys, Leo and Sam."),),
          _fact("What are my sons' names?", "Leo", "Sam"), _unknown("When were my twins born?"),
          _chat("good memory!")),
    _talk("en-s-salt", "en", ((7, "My doctor told me to avoid salt."),),
          _unknown("What's my blood pressure?"), _chat("yeah yeah, I know"),
          _fact("What did my doctor tell me to avoid?", "salt")),
    _talk("en-s-sailing", "en", (),
          _chat("hello hello"), _said("I spent the summer sailing around Crete."),
          _fact("Where did I go sailing?", "Crete"), _unknown("What's the name of my boat?"), _chat("sweet")),
    _talk("en-s-bees", "en", ((33, "My neighbour Gareth keeps bees."),),
          _fact("What does Gareth keep?", "bee"), _unknown("How many hives does Gareth have?"),
          _chat("bit random, I know")),
    _talk("en-s-shoes", "en", ((14, "I wear size 44 shoes."),),
          _fact("What shoe size do I wear?", "44"), _chat("lol ok"), _unknown("What is my waist size?")),
    _talk("en-s-bookclub", "en", (),
          _said("Our book club is reading Middlemarch this month."), _chat("it's sooo long"),
          _fact("What is the book club reading?", "Middlemarch"), _unknown("Who runs the book club?")),
    _talk("en-s-mum", "en", ((45, "My mum lives in Cork and loves gardening."),),
          _unknown("What is my mum's name?"), _fact("Where does my mum live?", "Cork"), _chat("cheers mate")),
    _talk("en-s-glasgow", "en", ((150, "I live in Bristol."), (9, "We just moved to Glasgow.")),
          _chat("still unpacking boxes ugh"), _fact("Which city do I live in now?", "Glasgow"),
          _unknown("What's my new street called?")),
    # --- Chinese: conversations ----------------------------------------------------------------------------
    _talk("zh-s-balcony", "zh", ((10, "我在阳台上种了薄荷和辣椒。"),),
          _chat("在呢，又来打扰你啦"), _fact("我阳台上种了什么？", "薄荷", "辣椒"), _unknown("我今年多大了？"),
          _chat("哈哈好的")),
    _talk("zh-s-cousin", "zh", (),
          _said("我表哥志强上个月去了成都工作。"), _chat("挺突然的"), _fact("志强去哪里工作了？", "成都"),
          _unknown("志强在哪家公司上班？")),
    _talk("zh-s-marathon", "zh", ((40, "我十月份跑完了厦门马拉松。"),),
          _fact("我跑的是哪个马拉松？", "厦门"), _chat("当时累惨了"), _unknown("我跑了多长时间？")),
    _talk("zh-s-cat", "zh", ((25, "我家猫叫团子，是一只布偶猫。"),),
          _chat("晚上好呀"), _unknown("团子几岁了？"), _fact("我家猫叫什么？", "团子"), _chat("笑死，它可傲娇了")),
    _talk("zh-s-chemistry", "zh", (),
          _said("我在苏州一所中学教化学。"), _chat("改作业改到头秃"), _fact("我教什么科目？", "化学"),
          _unknown("我们班有多少学生？")),
    _talk("zh-s-scooter", "zh", ((15, "我每天骑电动车上班。"),),
          _unknown("我的电动车是在哪里买的？"), _chat("记不住也没事"), _fact("我每天怎么去上班？", "电动车", "骑")),
    _talk("zh-s-vegetarian", "zh", ((60, "我从2019年开始吃素。"),),
          _fact("我从哪一年开始吃素的？", "2019"), _unknown("我最喜欢哪家餐厅？"), _chat("嗯嗯，懂了"),
          _said("最近在试着少喝奶茶。")),
    _talk("zh-s-pilot", "zh", ((30, "我哥哥李伟是一名飞行员。"),),
          _chat("来了来了"), _fact("李伟是做什么的？", "飞行"), _unknown("李伟在哪家航空公司？"), _chat("谢啦！")),
    _talk("zh-s-paint", "zh", (),
          _said("上周末我们把客厅刷成了浅绿色。"), _chat("刷了整整两天"), _unknown("我家房子多大？"),
          _fact("客厅刷成了什么颜色？", "绿")),
    _talk("zh-s-erhu", "zh", ((90, "我学二胡学了三年了。"),),
          _fact("我在学什么乐器？", "二胡"), _unknown("我的二胡老师是谁？"), _chat("被你发现了哈哈")),
    _talk("zh-s-wedding", "zh", ((20, "我最好的朋友阿杰明年六月结婚。"),),
          _chat("问你个事"), _fact("阿杰什么时候结婚？", "六月", "6月"), _unknown("阿杰的婚礼在哪里办？"),
          _chat("太棒了，谢谢")),
    _talk("zh-s-mango", "zh", (),
          _said("医生说我对芒果过敏。"), _chat("真倒霉"), _fact("我对什么过敏？", "芒果"),
          _unknown("我的医生姓什么？")),
    _talk("zh-s-phone", "zh", ((12, "上个月我换了一部华为手机。"),),
          _unknown("我的手机号是多少？"), _fact("我现在用什么手机？", "华为"), _chat("记性不错嘛")),
    _talk("zh-s-spanish", "zh", ((50, "我工作日晚上在学西班牙语。"),),
          _chat("嗨嗨"), _fact("我在学什么语言？", "西班牙语"), _unknown("我的西班牙语老师叫什么？"),
          _said("明年可能还要学法语。")),
    _talk("zh-s-office", "zh", (),
          _said("我们公司搬到了陆家嘴。"), _chat("通勤太折磨人了"), _unknown("我几点上班？"),
          _fact("我们公司在哪里？", "陆家嘴")),
    _talk("zh-s-twins", "zh", ((100, "我有一对双胞胎女儿，叫大宝和小宝。"),),
          _fact("我的女儿们叫什么？", "大宝", "小宝"), _unknown("双胞胎是哪年出生的？"), _chat("你记性真好")),
    _talk("zh-s-sugar", "zh", ((7, "医生让我少吃糖。"),),
          _unknown("我的血糖是多少？"), _chat("唉，我知道啦"), _fact("医生让我少吃什么？", "糖")),
    _talk("zh-s-dali", "zh", (),
          _chat("哈喽哈喽"), _said("暑假我去了一趟大理。"), _fact("我暑假去了哪里？", "大理"),
          _unknown("我住的是哪家民宿？"), _chat("不错不错")),
    _talk("zh-s-pigeons", "zh", ((33, "我邻居老周在楼顶养鸽子。"),),
          _fact("老周养了什么？", "鸽子"), _unknown("老周养了多少只鸽子？"), _chat("有点跑题了哈")),
    _talk("zh-s-shoes", "zh", ((14, "我穿42码的鞋。"),),
          _fact("我穿多大码的鞋？", "42"), _chat("哈哈行吧"), _unknown("我的生日是哪天？")),
    _talk("zh-s-bookclub", "zh", (),
          _said("我们读书会这个月在读《活着》。"), _chat("这本书好虐"), _fact("读书会这个月在读什么书？", "活着"),
          _unknown("读书会是谁组织的？")),
    _talk("zh-s-mum", "zh", ((45, "我妈妈住在青岛，喜欢养花。"),),
          _unknown("我妈妈叫什么名字？"), _fact("我妈妈住在哪里？", "青岛"), _chat("好嘞")),
    _talk("zh-s-xiamen", "zh", ((150, "我住在南京。"), (9, "我们刚搬到了厦门。")),
          _chat("箱子还没拆完呢"), _fact("我现在住在哪个城市？", "厦门"), _unknown("我们新家在哪条街？")),
)
