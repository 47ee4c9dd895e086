"""Labelled memory pairs (English and Chinese) that calibrate the verdict gates (memory/language/gates.py).

Each row is (candidate, existing, label):
- "same": the candidate says what the existing memory says (a duplicate verdict may merge it);
- "topic": both are about the same thing with different values (an update or a conflict is plausible);
- "other": different things (no verdict may merge, supersede or dispute one with the other).
The examples the issue reports from a weak verifier are here as "other".
"""

from __future__ import annotations

from typing import Literal

Label = Literal["same", "topic", "other"]

PAIRS: list[tuple[str, str, Label]] = [
    # duplicates: the same fact, reworded or repeated
    ("I live in Hangzhou.", "I live in Hangzhou.", "same"),
    ("The user lives in Hangzhou.", "The user lives in Hangzhou", "same"),
    ("The user loves green tea.", "The user loves green tea", "same"),
    ("My favourite book is Dune.", "My favourite book is Dune", "same"),
    ("The user works at a law firm.", "The user works at a law firm.", "same"),
    ("The user's passport number ends in 42.", "The user's passport ends in 42.", "same"),
    ("The user plays the violin.", "The user plays violin.", "same"),
    ("我住在杭州。", "我住在杭州", "same"),
    ("用户喜欢喝龙井茶。", "用户喜欢喝龙井茶", "same"),
    ("用户的护照号码尾号是42。", "用户的护照尾号是42。", "same"),
    ("用户在律师事务所工作。", "用户在律师事务所工作", "same"),
    # same thing, changed or contradicting value
    ("The user moved to Shanghai.", "The user lives in Hangzhou.", "topic"),
    ("The user now lives in Shanghai.", "The user lives in Hangzhou.", "topic"),
    ("My favourite book is Foundation.", "My favourite book is Dune.", "topic"),
    ("The user works at a hospital.", "The user works at a law firm.", "topic"),
    ("The user's passport number ends in 17.", "The user's passport number ends in 42.", "topic"),
    ("The user's sister is called Anna.", "The user's sister is called Maria.", "topic"),
    ("用户现在住在上海。", "用户住在杭州。", "topic"),
    ("用户搬到了上海。", "用户住在杭州。", "topic"),
    ("用户最喜欢的书是《基地》。", "用户最喜欢的书是《沙丘》。", "topic"),
    ("用户的护照号码尾号是17。", "用户的护照号码尾号是42。", "topic"),
    ("用户在医院工作。", "用户在律师事务所工作。", "topic"),
    # the same thing across English and Chinese (a user who writes both)
    ("My passport number ends in 17.", "我的护照号码尾号是42。", "topic"),
    ("我的护照号码尾号是17。", "My passport number ends in 42.", "topic"),
    ("I moved to Shanghai.", "我住在杭州。", "topic"),
    ("我搬到了上海。", "I live in Hangzhou.", "topic"),
    ("I now work at a hospital.", "我在律师事务所工作。", "topic"),
    ("我最喜欢的书是《基地》。", "My favourite book is Dune.", "topic"),
    # different things (the weak verifier merged, replaced or disputed these)
    ("Remind me to send the contract on Friday.", "Hi, I'm Bob. I work at a law firm.", "other"),
    ("The user will send the contract on Friday.", "The user works at a law firm.", "other"),
    ("I play the violin.", "My favourite book is Dune.", "other"),
    ("The user plays the violin.", "The user's favourite book is Dune.", "other"),
    ("My favourite film is Alien.", "My favourite book is Dune.", "other"),
    ("The user's favourite film is Alien.", "The user's favourite book is Dune.", "other"),
    ("The user's passport number ends in 42.", "The user lives in Hangzhou and loves green tea.", "other"),
    ("The user has a dog named Max.", "The user lives in Hangzhou.", "other"),
    ("The user is allergic to peanuts.", "The user loves green tea.", "other"),
    ("The user had lunch with a client yesterday.", "The user moved to Shanghai two weeks ago.", "other"),
    ("The user's birthday is on May 3.", "The user's sister is called Anna.", "other"),
    ("记住：我的护照号码尾号是42。", "我住在杭州，我喜欢喝龙井茶。", "other"),
    ("用户的护照号码尾号是42。", "用户住在杭州，喜欢喝龙井茶。", "other"),
    ("用户会拉小提琴。", "用户最喜欢的书是《沙丘》。", "other"),
    ("用户最喜欢的电影是《异形》。", "用户最喜欢的书是《沙丘》。", "other"),
    ("用户对花生过敏。", "用户喜欢喝龙井茶。", "other"),
    ("用户养了一只叫旺财的狗。", "用户住在杭州。", "other"),
    ("用户端午节在外婆家请客户吃饭。", "用户在律师事务所工作。", "other"),
    ("用户周五要把合同发给客户。", "用户在律师事务所工作。", "other"),
    ("用户的生日是5月3日。", "用户的妹妹叫安娜。", "other"),
    ("My favourite film is Alien.", "我最喜欢的书是《沙丘》。", "other"),
    ("My phone number is 123.", "我的护照号码尾号是42。", "other"),
    ("My sister lives in Paris.", "我住在杭州。", "other"),
    ("I live in Hangzhou.", "我在律师事务所工作。", "other"),
    ("I have a dog named Max.", "我住在杭州。", "other"),
]
