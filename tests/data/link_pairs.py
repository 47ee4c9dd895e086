"""Labelled pairs that calibrate the links between memories (memory/language/links.py), English and Chinese.

Each row is (older, newer, label): "follows" when the newer memory is about the same subject as the older one (the
same thing of the same person, a changed or a further value: the newer one is what holds now), "other" when it is
about something else, or about another person. Subjects and phrasings here are not in any slot table
(memory/language/slots.py): the links must hold for subjects nobody listed. ``split(row)`` puts each row in "dev" (used
to calibrate) or "test" (only reported) by a hash of its text.
"""

from __future__ import annotations

from typing import Literal

from tests.data import hash_split

Label = Literal["follows", "other"]

PAIRS: list[tuple[str, str, Label]] = [
    # a thing owned, replaced (named or not, with or without a change word)
    ("I drive a blue Honda Civic.", "I sold the Civic last week and bought a Tesla Model 3.", "follows"),
    ("I drive a blue Honda Civic.", "I drive a Tesla Model 3.", "follows"),
    ("I ride a Trek road bike to work.", "My Trek was stolen, so I bought a Giant.", "follows"),
    ("I use an iPhone 12.", "I switched from the iPhone to a Pixel 8.", "follows"),
    ("My laptop is a ThinkPad X1.", "My laptop is a MacBook Air now.", "follows"),
    ("I wear a Garmin watch for running.", "I replaced my Garmin with an Apple Watch.", "follows"),
    ("我开一辆本田思域。", "上周我把思域卖了，买了一辆特斯拉。", "follows"),
    ("我用的是华为P40手机。", "我把华为P40换成了小米14。", "follows"),
    ("我骑一辆捷安特自行车上班。", "我现在骑一辆美利达自行车上班。", "follows"),
    ("我的笔记本电脑是联想的。", "我的笔记本电脑现在是苹果的。", "follows"),
    # people the user names: jobs, schools, cities
    ("My brother Tom works at Google as a designer.", "Tom just left Google and joined Microsoft last month.",
     "follows"),
    ("My brother Tom works at Google as a designer.", "Tom works at Microsoft.", "follows"),
    ("My friend Priya teaches at Riverside High.", "Priya now teaches at Lakeview Academy.", "follows"),
    ("Lily goes to Maple Elementary.", "Lily switched to Oak Ridge School this fall.", "follows"),
    ("My cousin Marco plays for the Bristol Bears.", "Marco signed with the Leicester Tigers.", "follows"),
    ("我哥哥张伟在腾讯做产品经理。", "张伟上个月离开腾讯，去了字节跳动。", "follows"),
    ("我女儿小雨在北京读大学。", "小雨毕业了，现在在深圳工作。", "follows"),
    ("我朋友李娜在协和医院当护士。", "李娜调到了华山医院。", "follows"),
    ("我表弟王磊在新东方教英语。", "王磊现在在好未来教英语。", "follows"),
    # places, habits, plans, memberships of the user
    ("I live in Suzhou.", "I live in Hangzhou.", "follows"),
    ("I rent a flat in Brixton.", "I bought a house in Clapham and moved there.", "follows"),
    ("I drink coffee every morning.", "I drink green tea every morning now.", "follows"),
    ("I go to Orange Theory on Tuesdays.", "I quit Orange Theory and joined a CrossFit box.", "follows"),
    ("I'm training for the Boston Marathon.", "I'm training for the Berlin Marathon instead.", "follows"),
    ("I subscribe to Netflix.", "I cancelled Netflix and signed up for Disney+.", "follows"),
    ("My dentist is Dr. Wang.", "My dentist is Dr. Liu now.", "follows"),
    ("I'm on the Red team at work.", "I'm on the Blue team at work now.", "follows"),
    ("I take the 7:40 train to the office.", "I take the 8:15 train to the office.", "follows"),
    ("I'm learning Spanish on Duolingo.", "I'm learning Spanish with a tutor now, not Duolingo.", "follows"),
    ("We're planning a trip to Kyoto in April.", "We moved our Kyoto trip to October.", "follows"),
    ("我住在苏州。", "我住在杭州。", "follows"),
    ("我每天早上喝咖啡。", "我每天早上改喝绿茶了。", "follows"),
    ("我在健身房练瑜伽。", "我不去健身房练瑜伽了，改成在家跑步。", "follows"),
    ("我订阅了爱奇艺会员。", "我退了爱奇艺会员，开了腾讯视频会员。", "follows"),
    ("我的牙医是王医生。", "我的牙医换成了刘医生。", "follows"),
    ("我在篮球队打后卫。", "我在篮球队改打中锋了。", "follows"),
    ("我们计划四月去京都旅行。", "我们把京都之行改到了十月。", "follows"),
    ("我养了一只猫叫咪咪。", "咪咪去年走了。", "follows"),
    ("I have a dog named Max.", "Max passed away in the spring.", "follows"),
    ("I'm a vegetarian.", "I'm a vegetarian who eats fish again now.", "follows"),
    # the same person, something else
    ("I live in Hangzhou.", "I work at Alibaba.", "other"),
    ("I live in Suzhou.", "I love green tea.", "other"),
    ("I drive a blue Honda Civic.", "I live in Hangzhou.", "other"),
    ("I drink coffee every morning.", "I go running every morning.", "other"),
    ("I use an iPhone 12.", "I use a MacBook Air for work.", "other"),
    ("I subscribe to Netflix.", "I subscribe to The Economist.", "other"),
    ("I'm training for the Boston Marathon.", "I have a dog named Max.", "other"),
    ("My dentist is Dr. Wang.", "My doctor is Dr. Chen.", "other"),
    ("I take the 7:40 train to the office.", "I eat lunch at the office canteen.", "other"),
    ("I'm learning Spanish on Duolingo.", "I play chess on Lichess.", "other"),
    ("I ride a Trek road bike to work.", "I keep my bike in the basement.", "other"),
    ("I'm on the Red team at work.", "I sit next to the window at work.", "other"),
    ("我住在杭州。", "我喜欢喝龙井茶。", "other"),
    ("我开一辆本田思域。", "我每天早上喝咖啡。", "other"),
    ("我是素食者。", "我对花生过敏。", "other"),
    ("我订阅了爱奇艺会员。", "我每周六去游泳。", "other"),
    ("我的牙医是王医生。", "我的家庭医生是陈医生。", "other"),
    ("我在健身房练瑜伽。", "我在公司附近吃午饭。", "other"),
    ("我用的是华为P40手机。", "我喜欢看科幻小说。", "other"),
    ("我们计划四月去京都旅行。", "我们每年春节回老家。", "other"),
    # another person, the same kind of thing
    ("I live in Hangzhou.", "My sister lives in Beijing.", "other"),
    ("I drive a blue Honda Civic.", "My wife drives a red Toyota.", "other"),
    ("My brother Tom works at Google as a designer.", "My sister Anna works at Apple.", "other"),
    ("My friend Priya teaches at Riverside High.", "My neighbour Sam teaches at Hill Primary.", "other"),
    ("Lily goes to Maple Elementary.", "Jack goes to Pine Middle School.", "other"),
    ("我住在杭州。", "我妹妹住在北京。", "other"),
    ("我哥哥张伟在腾讯做产品经理。", "我姐姐李丽在阿里做设计师。", "other"),
    ("我女儿小雨在北京读大学。", "我儿子小明在上海读高中。", "other"),
    ("我开一辆本田思域。", "我老婆开一辆丰田卡罗拉。", "other"),
    ("我的猫叫咪咪。", "我妹妹的狗叫旺财。", "other"),
    # the same verb or adverb of the user, about different things: a word that names nothing says nothing
    ("我喜欢秋天。", "我最喜欢的颜色是墨绿色。", "other"),
    ("我经常去游泳馆。", "我经常吃越南粉。", "other"),
    ("我打算明年学日语。", "我打算周末去爬黄山。", "other"),
    ("我妈妈喜欢养兰花。", "我妈妈喜欢看京剧。", "other"),
    ("我讨厌香菜。", "我讨厌下雨天开车。", "other"),
    ("我一直在学吉他。", "我一直在用安卓手机。", "other"),
    # ... and where the same verb's object changes, the thing named carries it
    ("我常去的健身房是威尔士。", "我现在常去的健身房是乐刻。", "follows"),
    ("我喜欢喝铁观音。", "我现在更喜欢喝普洱茶。", "follows"),
]


def split(row: tuple[str, str, Label]) -> Literal["dev", "test"]:
    """A stable half of the rows: "test" rows are never used to calibrate."""
    return hash_split(row[0], row[1])
