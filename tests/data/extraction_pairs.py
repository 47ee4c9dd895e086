"""Labelled extractions (English and Chinese): does a model's memory keep what the user's message said?

Each row is (message, extracted, label): "keeps" when the extraction says what the message says (reworded, the
user named "the user", one clause of several), "changes" when it changes negation, modality ("wanted to", "might",
"想"), the time a statement holds ("used to", "will", "以前") or whom it is about. The first rows are what the bundled
models did (issue 25); the subjects are in no table of memory/language/slots.py. ``split(row)`` puts each row in "dev"
(used to write memory/language/meaning.py) or "test" (only reported) by a hash of its text.
"""

from __future__ import annotations

from typing import Literal

from tests.data import hash_split

Label = Literal["keeps", "changes"]

PAIRS: list[tuple[str, str, Label]] = [
    # seen from the bundled models
    ("I drive a blue Honda Civic.", "I have always wanted to own a blue Honda Civic.", "changes"),
    ("Tom just left Google, he joined Microsoft last month.", "I joined Microsoft last month.", "changes"),
    ("I drive a blue Honda Civic.", "The user drives a blue Honda Civic.", "keeps"),
    ("Tom just left Google, he joined Microsoft last month.", "Tom joined Microsoft last month.", "keeps"),
    # negation added or lost
    ("I don't eat mushrooms.", "The user eats mushrooms.", "changes"),
    ("I never drink coffee after noon.", "The user drinks coffee after noon.", "changes"),
    ("I play the oboe in a community band.", "The user does not play the oboe.", "changes"),
    ("My daughter isn't at Riverside Elementary anymore.", "My daughter is at Riverside Elementary.", "changes"),
    ("I don't like jazz, but I love bluegrass.", "The user loves bluegrass.", "keeps"),
    ("I don't like jazz, but I love bluegrass.", "The user likes jazz.", "changes"),
    ("I haven't watched Severance yet.", "The user has not watched Severance.", "keeps"),
    ("我不吃香菜。", "用户吃香菜。", "changes"),
    ("我从来没去过冰岛。", "用户去过冰岛。", "changes"),
    ("我女儿不在实验小学读书了。", "我女儿在实验小学读书。", "changes"),
    ("我不喝酒。", "用户不喝酒。", "keeps"),
    ("我没有驾照。", "用户有驾照。", "changes"),
    # "不…了" (no longer) turned into a plain "not": bench updates test zh-role-0, the 0.5B
    ("我不做平面设计师了，转行当了护士。", "我并不做平面设计师，转行当了护士。", "changes"),
    ("我不做平面设计师了，转行当了护士。", "用户不再做平面设计师，转行当了护士。", "keeps"),
    ("我妈妈不在超市上班了。", "我妈妈在超市上班。", "changes"),
    # modality added or lost
    ("I want to learn the cello.", "The user plays the cello.", "changes"),
    # the user made the subject of what the message says of someone named: the new-user trial, the 0.5B
    ("小梅离开了阿里巴巴，现在在腾讯工作。", "用户小梅离开了阿里巴巴，目前在腾讯工作。", "changes"),
    ("小王去年去了北京。", "用户去年去了北京。", "changes"),
    ("搬到苏州了。", "用户搬到苏州了。", "keeps"),
    # a decision is not the deed: bench updates test en-car-0, the 0.5B
    ("I switched to a Nissan Leaf.", "I decided to switch to a Nissan Leaf.", "changes"),
    ("我换了一辆比亚迪。", "用户决定换一辆比亚迪。", "changes"),
    ("I decided to sell my bike.", "The user decided to sell their bike.", "keeps"),
    ("I might move to Lisbon next year.", "The user lives in Lisbon.", "changes"),
    ("I keep bees in my garden.", "The user would like to keep bees.", "changes"),
    ("I'm thinking about adopting a greyhound.", "The user adopted a greyhound.", "changes"),
    ("We plan to renovate the attic.", "The user renovated the attic.", "changes"),
    ("I hope to run the Berlin marathon.", "The user hopes to run the Berlin marathon.", "keeps"),
    ("我想学陶艺。", "用户会做陶艺。", "changes"),
    ("我可能明年去读研究生。", "用户在读研究生。", "changes"),
    ("我养了两只鹦鹉。", "用户想养鹦鹉。", "changes"),
    ("我打算把阳台改成书房。", "用户计划把阳台改成书房。", "keeps"),
    ("我希望今年能考过雅思。", "用户考过了雅思。", "changes"),
    # the time a statement holds
    ("I used to work night shifts at a bakery.", "The user works night shifts at a bakery.", "changes"),
    ("I'm going to start at Figma in March.", "The user works at Figma.", "changes"),
    ("I coach my son's hockey team.", "The user used to coach a hockey team.", "changes"),
    ("I'll be teaching yoga on Saturdays.", "The user will teach yoga on Saturdays.", "keeps"),
    ("I used to live in Porto.", "The user used to live in Porto.", "keeps"),
    ("我以前在银行上班。", "用户在银行上班。", "changes"),
    ("我曾经是一名消防员。", "用户是消防员。", "changes"),
    ("我下个月要去成都出差。", "用户在成都出差。", "changes"),
    ("我在学日语。", "用户以前学过日语。", "changes"),
    ("我以前住在厦门。", "用户以前住在厦门。", "keeps"),
    # whom it is about
    ("My wife teaches chemistry at a high school.", "The user teaches chemistry at a high school.", "changes"),
    ("Priya moved to Toronto for her residency.", "The user moved to Toronto.", "changes"),
    ("I run a small pottery studio.", "The user's sister runs a pottery studio.", "changes"),
    ("My brother Luis works at a vineyard in Napa.", "Luis works at a vineyard in Napa.", "keeps"),
    ("My brother Luis works at a vineyard in Napa.", "The user's brother works at a vineyard.", "keeps"),
    ("我妈在学太极拳。", "用户在学太极拳。", "changes"),
    ("我哥在深圳开了一家咖啡店。", "用户的哥哥在深圳开了一家咖啡店。", "keeps"),
    ("我在杭州开了一家花店。", "用户的妹妹在杭州开了一家花店。", "changes"),
    ("我搬到杭州了。", "搬家杭州了。", "changes"),  # the bundled 0.5B, in the lead's trial: whose move?
    ("My brother Tom works at Google as a designer.", "Works at Google as a designer.", "changes"),
    ("我最好的朋友阿杰明年六月结婚。", "我和阿杰明年六月结婚。", "changes"),  # the 0.5B, bench answers test split
    ("My colleague Dana is moving to Denver in May.", "Dana and I are moving to Denver in May.", "changes"),
    ("我表姐在成都开了一家书店。", "我们在成都开了一家书店。", "changes"),
    ("My partner and I adopted a greyhound.", "We adopted a greyhound.", "keeps"),
    ("我和老公上个月去了敦煌。", "用户和老公上个月去了敦煌。", "keeps"),
    # kept: reworded, one clause of several
    ("I live in Ghent and I teach piano.", "The user teaches piano.", "keeps"),
    ("I sold the kayak and bought a paddleboard.", "The user bought a paddleboard.", "keeps"),
    ("Honestly, my favourite snack is dried mango.", "The user's favourite snack is dried mango.", "keeps"),
    ("I'm allergic to shellfish.", "The user is allergic to shellfish.", "keeps"),
    ("我在苏州工业园区上班，每天骑车。", "用户每天骑车。", "keeps"),
    ("我把旧钢琴卖了，买了一台电钢琴。", "用户买了一台电钢琴。", "keeps"),
    ("我对芒果过敏。", "用户对芒果过敏。", "keeps"),
    ("我周末在社区图书馆做志愿者。", "用户周末在社区图书馆做志愿者。", "keeps"),
    # one candidate drawn from several clauses: a negation in any of them counts (the 0.5B in bench updates dropped
    # the 不 of a first clause and kept the second clause whole)
    ("我不喝咖啡了，现在每天早上喝绿茶。", "用户喝咖啡了，现在每天早上喝绿茶。", "changes"),
    ("我不养仓鼠了，上个月领养了一只猫。", "我养仓鼠，上个月领养了一只猫。", "changes"),
    ("I don't row on the canal anymore, I joined a climbing gym.", "I row on the canal and joined a climbing gym.",
     "changes"),
    ("Mia doesn't teach yoga now, she opened a bakery.", "Mia teaches yoga and opened a bakery.", "changes"),
    ("我不学吉他了，三月开始学大提琴。", "用户三月开始学大提琴。", "keeps"),
    ("I don't drive to work anymore, I take the tram.", "The user takes the tram.", "keeps"),
    # what one clause does put on the thing another names: bench updates test, the 0.5B ("I bought the Fujifilm
    # X-T5 and purchased the Canon R6" for a sale and a purchase)
    ("I sold the Canon R6 and bought a Fujifilm X-T5.", "The user bought the Canon R6.", "changes"),
    ("I sold the Canon R6 and bought a Fujifilm X-T5.", "The user bought a Fujifilm X-T5.", "keeps"),
    ("Tom left Google and joined Microsoft.", "Tom joined Google.", "changes"),
    ("Ines quit the Harbour Choir and joined the Riverside Rowers.", "Ines joined the Harbour Choir.", "changes"),
    ("Ines quit the Harbour Choir and joined the Riverside Rowers.", "Ines joined the Riverside Rowers.", "keeps"),
    ("我把佳能R6卖了，买了富士X-T5。", "用户买了佳能R6。", "changes"),
    ("我离开了阿里巴巴，加入了腾讯。", "用户加入了阿里巴巴。", "changes"),
    ("我离开了阿里巴巴，加入了腾讯。", "用户加入了腾讯。", "keeps"),
    ("我退掉了爱奇艺会员，订阅了网易云音乐。", "用户订阅了爱奇艺会员。", "changes"),
    ("Last spring I sold my Yamaha piano, and I bought a Gibson guitar.",
     "The user bought a Gibson guitar last spring.", "keeps"),
    # a word the message never says in place of one it does: the new-user trial, the 0.5B
    ("I work as a nurse at Mercy Hospital.", "I am an assistant working in the Mercy Hospital.", "changes"),
    ("I drink oolong tea every morning.", "I drink oolong tea everyday.", "changes"),
    ("我每天早上喝乌龙茶。", "我喜欢每天早晨喝乌龙茶。", "changes"),
    ("I work as a nurse at Mercy Hospital.", "The user works as a nurse at Mercy Hospital.", "keeps"),
    ("我每天早上喝乌龙茶。", "用户每天早上喝乌龙茶。", "keeps"),
    ("I drink oolong tea every morning.", "The user drinks oolong tea.", "keeps"),
    ("My daughter plays the cello in the school orchestra.", "My daughter plays the violin in the school orchestra.",
     "changes"),
    ("我儿子在学游泳。", "用户的儿子在学跑步。", "changes"),
    # a name changed though each of its words is said elsewhere in the message (the 0.5B in bench updates)
    ("周末和我女儿聊了聊。她从育才小学转走了，她现在在阳光小学读书。",
     "我女儿从育才小学转入走了，她现在在阳光学校读书。", "changes"),
    ("I moved from Green Street to Oak Avenue last spring.", "The user moved from Green Street to Oak Street.",
     "changes"),
    ("周末和我女儿聊了聊。她从育才小学转走了，她现在在阳光小学读书。", "我女儿现在在阳光小学读书。", "keeps"),
    ("我哥哥在北京大学读书，我姐姐在南京大学工作。", "我姐姐在南京大学工作。", "keeps"),
    # a number said another way is the same number; one changed, or counted another way, is not (bench answers test
    # zh-s-wedding: the 0.5B made June "six months")
    ("我姐姐明年六月结婚。", "我姐姐明年六个月结婚。", "changes"),
    ("我姐姐明年六月结婚。", "用户的姐姐明年6月结婚。", "keeps"),
    ("I have two cats and a dog.", "The user has three cats.", "changes"),
    ("我今年三十二岁。", "用户今年32岁。", "keeps"),
    ("I've played the cello for eight years.", "The user has played the cello for 8 years.", "keeps"),
    ("我每个月房租三千五。", "用户每个月房租3500元。", "keeps"),
    ("我每个月房租三千五。", "用户每个月房租三千。", "changes"),
    ("My flight lands at gate 14 on Friday.", "The user's flight lands at gate 41 on Friday.", "changes"),
    ("我儿子三个月大了。", "我儿子三月大了。", "changes"),
    ("I ran 5,000 metres yesterday.", "The user ran 5000 metres yesterday.", "keeps"),
    # a name or a proper adjective the message never says (a fourth new user's trial stored "an Italian pharmacist")
    ("Hi! My name is Nadia Rahimi. I live in Rotterdam and I work as a pharmacist at a hospital.",
     "I am Nadia Rahimi, an Italian pharmacist working at a hospital.", "changes"),
    ("Hi! My name is Nadia Rahimi. I live in Rotterdam and I work as a pharmacist at a hospital.",
     "The user's name is Nadia Rahimi.", "keeps"),
    ("My brother lives in Vancouver.", "The user's brother lives in Vancouver, Canada.", "changes"),
    ("I teach piano to kids on Saturdays.", "The user teaches piano to kids on Saturdays.", "keeps"),
    ("I work as a nurse at a clinic.", "The user works as a nurse at a Swiss clinic.", "changes"),
    # a number or a code the message says, left out (the bundled 0.5B under bench serve-load: "I'm using the alarm
    # code z0x1 to set a reminder for My phone." for "My alarm code z0x1 is 9236"); a time phrase's number is the
    # memory's event time
    ("My alarm code z0x1 is 9236", "I'm using the alarm code z0x1 to set a reminder for My phone.", "changes"),
    ("My office door code z5x10 is 4311", "The user's office door code is 4311.", "changes"),
    ("我的储物柜密码是4721。", "用户有一个储物柜密码。", "changes"),
    ("I have three kids and a dog.", "The user has kids and a dog.", "changes"),
    ("我养了两只猫。", "用户养了猫。", "changes"),
    ("My Wi-Fi password is blue42river.", "The user's Wi-Fi password is blue river.", "changes"),
    ("I moved to Lisbon 3 years ago.", "The user moved to Lisbon.", "keeps"),
    ("我三年前搬到了里斯本。", "用户搬到了里斯本。", "keeps"),
    ("My locker code z0x1 is 6340", "The user's locker code z0x1 is 6340.", "keeps"),
    ("我的车牌号是浙A12345。", "用户的车牌号是浙A12345。", "keeps"),
    # a synonym is refused too (the user's words are kept: nothing is lost, the memory is only less tidy)
    ("I keep my bike in the hallway.", "The user stores their bike in the hallway.", "keeps"),
    ("我周末常去爬山。", "用户周末经常去登山。", "keeps"),
]


def split(row: tuple[str, str, Label]) -> Literal["dev", "test"]:
    """A stable half of the rows: "test" rows are never used to tune memory/language/meaning.py."""
    return hash_split(row[0], row[1])
