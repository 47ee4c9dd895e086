"""A hollow opener ("You're right!" to a statement, "You're welcome!" without thanks) is cut from the answer as it
streams and as it is stored; one the message gives a reason for stays."""

from __future__ import annotations

import pytest

from memory.language.answers import OpenerFilter, hollow_opener


def _streamed(message: str, tokens: list[str]) -> str:
    out: list[str] = []
    stream = OpenerFilter(message, out.append)
    for t in tokens:
        stream(t)
    stream.flush()
    return "".join(out)


@pytest.mark.parametrize(("message", "tokens", "shown"), [
    # the trial's first command: "You're right! Hangzhou is a beautiful city…"
    ("I live in Hangzhou and I love green tea.", ["You", "'re", " right", "!", " Hangzhou", " is", " nice."],
     "Hangzhou is nice."),
    ("What is my favourite book?", ["You", "’re", " correct", ",", " it", " is", " Dune."], "it is Dune."),
    ("I moved to Shanghai.", ["That", "'s", " right", "!", " You", " moved."], "You moved."),
    ("I like hiking.", ["You're welcome!", " Hiking", " is", " fun."], "Hiking is fun."),
    ("Hello!", ["You", " are", " welcome", "!", " How", " can", " I", " help?"], "How can I help?"),  # the trial
    ("我搬到了上海。", ["没错", "！", "你", "搬到了上海。"], "你搬到了上海。"),
    ("我住在哪里？", ["是的", "，", "你住在杭州。"], "你住在杭州。"),
    ("我喜欢喝茶。", ["不客气", "！", "喝茶很好。"], "喝茶很好。"),
    # a reason for it: kept
    ("I live in Hangzhou, right?", ["You", "'re", " right", "!", " Hangzhou", "."], "You're right! Hangzhou."),
    ("Thanks a lot!", ["You", "'re", " welcome", "!", " Anytime."], "You're welcome! Anytime."),
    ("我住在杭州，对吗？", ["是的", "，", "你住在杭州。"], "是的，你住在杭州。"),
    ("谢谢你！", ["不客气", "！"], "不客气！"),
    # not an opener: nothing waits longer than the words that could start one, nothing is lost
    ("Where do I live?", ["You", " live", " in", " Hangzhou."], "You live in Hangzhou."),
    ("Where do I live?", ["You're right about", " Hangzhou."], "You're right about Hangzhou."),
    ("我有什么问题？", ["没", "有", "问题"], "没有问题"),
    ("Hi", ["You", "'re"], "You're"),  # the stream ended inside what could have been one
    ("Hi", ["You're right!"], "You're right!"),  # nothing after it: kept
])
def test_the_stream_drops_a_hollow_opener_and_only_that(message: str, tokens: list[str], shown: str) -> None:
    assert _streamed(message, tokens) == shown
    whole = "".join(tokens)
    assert whole[hollow_opener(whole, message):] == shown  # what is stored is what was shown


def test_tokens_after_the_decision_pass_straight_through() -> None:
    out: list[str] = []
    stream = OpenerFilter("Where do I live?", out.append)
    for t in ["Your", " home", " is", " Hangzhou."]:
        stream(t)
    assert out == ["Your", " home", " is", " Hangzhou."]
