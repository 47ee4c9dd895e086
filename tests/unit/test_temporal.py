"""The time-expression table: English and Chinese phrases with the window each must resolve to.

``now`` is Wednesday 2026-07-15 15:00 in Asia/Shanghai; windows are [start, end) in that timezone.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.errors import InvalidInputError
from memory.language.temporal import parse_time_window, time_intent
from memory.long_term import TimeWindow

TZ = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 7, 15, 15, 0, tzinfo=TZ)


def d(y: int, m: int, day: int, h: int = 0) -> datetime:
    return datetime(y, m, day, h, tzinfo=TZ)


def days(y: int, m: int, day: int, n: int = 1) -> tuple[datetime, datetime]:
    start = d(y, m, day)
    return start, start + timedelta(days=n)


def month(y: int, m: int) -> tuple[datetime, datetime]:
    end = d(y + 1, 1, 1) if m == 12 else d(y, m + 1, 1)
    return d(y, m, 1), end


def year(y: int) -> tuple[datetime, datetime]:
    return d(y, 1, 1), d(y + 1, 1, 1)


TABLE: list[tuple[str, tuple[datetime, datetime]]] = [
    # relative days
    ("what did I eat today", days(2026, 7, 15)),
    ("今天开会说了什么", days(2026, 7, 15)),
    ("what did I say yesterday", days(2026, 7, 14)),
    ("昨天我去了哪里", days(2026, 7, 14)),
    ("the day before yesterday", days(2026, 7, 13)),
    ("前天的会议", days(2026, 7, 13)),
    ("3 days ago", days(2026, 7, 12)),
    ("three days ago", days(2026, 7, 12)),
    ("三天前", days(2026, 7, 12)),
    ("十天以前", days(2026, 7, 5)),
    # weeks and weekdays
    ("this week", days(2026, 7, 13, 7)),
    ("这周的安排", days(2026, 7, 13, 7)),
    ("last week", days(2026, 7, 6, 7)),
    ("上周我说了什么", days(2026, 7, 6, 7)),
    ("上个星期", days(2026, 7, 6, 7)),
    ("the week before last", days(2026, 6, 29, 7)),
    ("上上周", days(2026, 6, 29, 7)),
    ("two weeks ago", days(2026, 6, 29, 7)),
    ("两周前", days(2026, 6, 29, 7)),
    ("a week ago", days(2026, 7, 6, 7)),
    ("last Friday", days(2026, 7, 10)),
    ("上周五", days(2026, 7, 10)),
    ("上个星期五", days(2026, 7, 10)),
    ("on Monday", days(2026, 7, 13)),
    ("周一", days(2026, 7, 13)),
    ("星期三", days(2026, 7, 15)),
    ("on Friday", days(2026, 7, 10)),
    ("上星期天", days(2026, 7, 12)),
    # months
    ("this month", month(2026, 7)),
    ("本月", month(2026, 7)),
    ("what did I say last month", month(2026, 6)),
    ("上个月的第二版方案", month(2026, 6)),
    ("上月", month(2026, 6)),
    ("the month before last", month(2026, 5)),
    ("上上个月", month(2026, 5)),
    ("three months ago", month(2026, 4)),
    ("三个月前的技术方案", month(2026, 4)),
    ("a month ago", month(2026, 6)),
    ("in June", month(2026, 6)),
    ("in August", month(2025, 8)),
    ("in May", month(2026, 5)),
    ("December", month(2025, 12)),
    ("June 2024", month(2024, 6)),
    ("June last year", month(2025, 6)),
    ("6月", month(2026, 6)),
    ("六月份", month(2026, 6)),
    ("去年6月", month(2025, 6)),
    ("2024年3月", month(2024, 3)),
    # years
    ("this year", year(2026)),
    ("今年", year(2026)),
    ("last year", year(2025)),
    ("去年我住在哪里", year(2025)),
    ("前年", year(2024)),
    ("two years ago", year(2024)),
    ("两年前", year(2024)),
    ("in 2023", year(2023)),
    ("2023年", year(2023)),
    # explicit dates
    ("on June 10", days(2026, 6, 10)),
    ("June 10th, 2025", days(2025, 6, 10)),
    ("10 June", days(2026, 6, 10)),
    ("on August 3", days(2025, 8, 3)),
    ("6月10日", days(2026, 6, 10)),
    ("6月10号", days(2026, 6, 10)),
    ("六月十日", days(2026, 6, 10)),
    ("2025年6月10日", days(2025, 6, 10)),
    ("2025-06-10", days(2025, 6, 10)),
    # parts of the day
    ("this morning", (d(2026, 7, 15, 5), d(2026, 7, 15, 12))),
    ("今天早上", (d(2026, 7, 15, 5), d(2026, 7, 15, 12))),
    ("yesterday afternoon", (d(2026, 7, 14, 12), d(2026, 7, 14, 18))),
    ("昨天下午", (d(2026, 7, 14, 12), d(2026, 7, 14, 18))),
    ("last night", (d(2026, 7, 14, 18), d(2026, 7, 15, 0))),
    ("昨晚", (d(2026, 7, 14, 18), d(2026, 7, 15, 0))),
    ("昨天晚上", (d(2026, 7, 14, 18), d(2026, 7, 15, 0))),
    ("tonight", (d(2026, 7, 15, 18), d(2026, 7, 16, 0))),
    ("前天下午", (d(2026, 7, 13, 12), d(2026, 7, 13, 18))),
    ("on June 10 in the evening", (d(2026, 6, 10, 18), d(2026, 6, 11, 0))),
    # holidays, Gregorian and lunar
    ("what did I do at Christmas", days(2025, 12, 25)),
    ("圣诞节", days(2025, 12, 25)),
    ("Christmas Eve", days(2025, 12, 24)),
    ("平安夜", days(2025, 12, 24)),
    ("我端午节在哪家餐厅请的客户", days(2026, 6, 19)),
    ("Dragon Boat Festival", days(2026, 6, 19)),
    ("去年端午节", days(2025, 5, 31)),
    ("中秋节", days(2025, 10, 6)),
    ("Mid-Autumn Festival", days(2025, 10, 6)),
    ("2024年中秋节", days(2024, 9, 17)),
    ("春节", days(2026, 2, 16, 8)),
    ("去年春节", days(2025, 1, 28, 8)),
    ("Chinese New Year", days(2026, 2, 16, 8)),
    ("除夕", days(2026, 2, 16)),
    ("New Year's Eve", days(2025, 12, 31)),
    ("国庆节", days(2025, 10, 1, 7)),
    ("元旦", days(2026, 1, 1)),
    ("清明节", days(2026, 4, 5)),
    ("五一", days(2026, 5, 1)),
]


@pytest.mark.parametrize(("text", "expected"), TABLE, ids=[t for t, _ in TABLE])
def test_expression_table(text: str, expected: tuple[datetime, datetime]) -> None:
    window = parse_time_window(text, NOW)
    assert window is not None, text
    assert (window.start, window.end) == expected
    assert window.phrase


def test_table_is_large_and_bilingual() -> None:
    zh = [t for t, _ in TABLE if any("\u4e00" <= c <= "\u9fff" for c in t)]
    assert len(TABLE) >= 60 and len(zh) >= 30 and len(TABLE) - len(zh) >= 30


@pytest.mark.parametrize("text", ["where do I live now", "I like green tea", "我住在哪里", "May I ask something?",
                                  "", "   ", "我的电话号码是多少", "good morning"])
def test_no_time_intent(text: str) -> None:
    assert parse_time_window(text, NOW) is None


def test_windows_follow_the_users_timezone() -> None:
    ny = NOW.astimezone(ZoneInfo("America/New_York"))  # 03:00 the same day there
    window = parse_time_window("yesterday", ny)
    assert window is not None and window.start == datetime(2026, 7, 14, tzinfo=ZoneInfo("America/New_York"))
    ms = TimeWindow.between(window.start, window.end)
    assert ms.end_ms - ms.start_ms == 86_400_000


def test_naive_now_and_impossible_dates_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="timezone-aware"):
        parse_time_window("yesterday", datetime(2026, 7, 15))
    with pytest.raises(InvalidInputError, match="not a date"):
        parse_time_window("2月30日", NOW)


@given(st.text(max_size=80), st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 12, 31)))
def test_never_crashes_and_windows_are_well_formed(text: str, today: date) -> None:
    now = datetime(today.year, today.month, today.day, 12, tzinfo=TZ)
    try:
        window = parse_time_window(text, now)
    except InvalidInputError:
        return
    if window is not None:
        assert window.start < window.end
        assert window.start.tzinfo is not None


# --- weekends, parts of a month, half-year and fuzzy spans (issue 16); NOW is Wednesday 2026-07-15 ------------
NEW_TABLE: list[tuple[str, tuple[datetime, datetime]]] = [
    # weekends relative to now: Saturday and Sunday of that week, never the whole week
    ("what did I do last weekend", days(2026, 7, 11, 2)),
    ("the previous weekend", days(2026, 7, 11, 2)),
    ("this past weekend", days(2026, 7, 11, 2)),
    ("the weekend before last", days(2026, 7, 4, 2)),
    ("上个周末我去了哪里", days(2026, 7, 11, 2)),
    ("上周末", days(2026, 7, 11, 2)),
    ("上上周末", days(2026, 7, 4, 2)),
    ("上上个周末", days(2026, 7, 4, 2)),
    ("this weekend", days(2026, 7, 18, 2)),
    ("这周末有什么安排", days(2026, 7, 18, 2)),
    ("本周末", days(2026, 7, 18, 2)),
    # parts of a month: days 1-10, 11-20, 21-end; the most recent that has begun
    ("early March", days(2026, 3, 1, 10)),
    ("in mid-March", days(2026, 3, 11, 10)),
    ("mid March", days(2026, 3, 11, 10)),
    ("late March", days(2026, 3, 21, 11)),
    ("the beginning of May", days(2026, 5, 1, 10)),
    ("the start of May", days(2026, 5, 1, 10)),
    ("the middle of May", days(2026, 5, 11, 10)),
    ("the end of May", days(2026, 5, 21, 11)),
    ("late September", days(2025, 9, 21, 10)),
    ("early December 2024", days(2024, 12, 1, 10)),
    ("the end of February last year", days(2025, 2, 21, 8)),
    ("the end of last month", days(2026, 6, 21, 10)),
    ("early this month", days(2026, 7, 1, 10)),
    ("3月初", days(2026, 3, 1, 10)),
    ("三月初我在做什么", days(2026, 3, 1, 10)),
    ("五月中旬", days(2026, 5, 11, 10)),
    ("5月中", days(2026, 5, 11, 10)),
    ("3月上旬", days(2026, 3, 1, 10)),
    ("3月下旬", days(2026, 3, 21, 11)),
    ("五月底", days(2026, 5, 21, 11)),
    ("2月末", days(2026, 2, 21, 8)),
    ("去年12月底", days(2025, 12, 21, 11)),
    ("2024年2月下旬", days(2024, 2, 21, 9)),
    ("十月中旬", days(2025, 10, 11, 10)),
    ("月底", days(2026, 7, 21, 11)),
    ("月初", days(2026, 7, 1, 10)),
    ("上个月底", days(2026, 6, 21, 10)),
    ("上月初", days(2026, 6, 1, 10)),
    ("上旬", days(2026, 7, 1, 10)),
    ("中旬", days(2026, 7, 11, 10)),
    ("下旬", days(2026, 7, 21, 11)),
    # half a year and fuzzy spans, each bounded
    ("half a year ago", month(2025, 12)[:1] + month(2026, 2)[1:]),
    ("半年前", month(2025, 12)[:1] + month(2026, 2)[1:]),
    ("大半年前", month(2025, 12)[:1] + month(2026, 2)[1:]),
    ("a few weeks ago", days(2026, 6, 3, 35)),
    ("几周前", days(2026, 6, 3, 35)),
    ("几个星期前", days(2026, 6, 3, 35)),
    ("a few days ago", days(2026, 7, 8, 7)),
    ("the other day", days(2026, 7, 8, 7)),
    ("前几天", days(2026, 7, 8, 7)),
    ("几天前", days(2026, 7, 8, 7)),
    ("前两天", days(2026, 7, 8, 7)),
    ("前阵子", days(2026, 5, 16, 60)),
    ("前段时间我们聊了什么", days(2026, 5, 16, 60)),
    ("a while ago", days(2026, 5, 16, 60)),
    ("半个月前", days(2026, 6, 24, 12)),
    ("half a month ago", days(2026, 6, 24, 12)),
    ("a few months ago", month(2026, 3)[:1] + month(2026, 5)[1:]),
    ("几个月前", month(2026, 3)[:1] + month(2026, 5)[1:]),
    ("a few years ago", (d(2021, 1, 1), d(2025, 1, 1))),
    ("几年前", (d(2021, 1, 1), d(2025, 1, 1))),
]


@pytest.mark.parametrize(("text", "expected"), NEW_TABLE, ids=[t for t, _ in NEW_TABLE])
def test_weekends_parts_of_months_and_fuzzy_spans(text: str, expected: tuple[datetime, datetime]) -> None:
    window = parse_time_window(text, NOW)
    assert window is not None, text
    assert (window.start, window.end) == expected
    assert window.phrase


def test_the_new_table_is_bilingual() -> None:
    zh = [t for t, _ in NEW_TABLE if any("\u4e00" <= c <= "\u9fff" for c in t)]
    assert len(zh) >= 25 and len(NEW_TABLE) - len(zh) >= 25


@pytest.mark.parametrize("text", [
    "I like to hike on weekends", "what do I usually do every weekend", "我每个周末都去爬山", "周末一般干什么",
    "I'm an early bird", "I was late for work", "the end of the movie was sad", "in the middle of nowhere",
    "the beginning of the project", "三个月中我去了两次", "初恋是谁", "中国的首都", "at the start of the meeting",
    "a few of my friends", "my days are busy", "half a year of salary", "前面的人", "阵子", "几个朋友",
    # numbers that are not years: what a passport, a phone or a card "ends in"
    "My passport number ends in 4821", "my phone ends in 2030", "the card ending in 2021", "卡号尾号是4821",
    "the code is in 4821",
])
def test_no_window_for_these(text: str) -> None:
    assert parse_time_window(text, NOW) is None


def test_a_month_part_means_its_most_recent_start_and_weekends_follow_the_calendar_week() -> None:
    early_july = datetime(2026, 7, 3, 9, tzinfo=TZ)  # early July has begun, late July has not
    assert parse_time_window("early July", early_july).start == d(2026, 7, 1)  # type: ignore[union-attr]
    assert parse_time_window("late July", early_july).start == d(2025, 7, 21)  # type: ignore[union-attr]
    sunday = datetime(2026, 7, 19, 20, tzinfo=TZ)
    assert parse_time_window("last weekend", sunday).start == d(2026, 7, 11)  # type: ignore[union-attr]
    assert parse_time_window("this past weekend", sunday).start == d(2026, 7, 18)  # type: ignore[union-attr]
    assert parse_time_window("上个周末", sunday).start == d(2026, 7, 11)  # type: ignore[union-attr]


# Phrases about the past (the window ends by now), phrases that may name a period under way (it has begun by now),
# and phrases that name the future (no constraint but a bound).
PAST_PHRASES = ["last weekend", "the weekend before last", "上个周末", "上上周末", "the end of last month",
                "上个月底", "上月初", "half a year ago", "半年前", "a few weeks ago", "几周前",
                "a few days ago", "前几天", "前阵子", "a while ago", "半个月前", "a few months ago",
                "几个月前", "a few years ago", "几年前", "yesterday", "昨天", "last week", "上周",
                "last month", "上个月", "three days ago", "两周前", "last year", "去年"]
BEGUN_PHRASES = ["early March", "mid-June", "late December", "the beginning of May", "the end of August",
                 "3月初", "五月中旬", "十二月下旬", "2月底", "6月上旬", "early this month", "上旬", "月初",
                 "today", "this week", "本月", "今年", "in March", "6月"]
FUTURE_PHRASES = ["this weekend", "这周末", "月底", "下旬", "中旬", "the end of this month", "tomorrow", "明天",
                  "the day after tomorrow", "后天", "next Friday", "this coming Friday", "下周五", "下下周三",
                  "next week", "下周", "the week after next", "next month", "下个月"]
MAX_SPAN = timedelta(days=4 * 366 + 1)


@given(st.sampled_from(PAST_PHRASES + BEGUN_PHRASES + FUTURE_PHRASES),
       st.datetimes(min_value=datetime(1995, 1, 1), max_value=datetime(2085, 12, 31)),
       st.sampled_from(["Asia/Shanghai", "UTC", "America/New_York", "Pacific/Kiritimati"]))
def test_every_window_is_bounded_ordered_and_not_in_the_future(phrase: str, when: datetime, tz: str) -> None:
    now = when.replace(tzinfo=ZoneInfo(tz))
    window = parse_time_window(phrase, now)
    assert window is not None, phrase
    assert window.start < window.end and window.end - window.start <= MAX_SPAN
    assert window.start.tzinfo is not None
    if phrase in PAST_PHRASES:
        assert window.end <= now, (phrase, now, window)
    elif phrase in BEGUN_PHRASES:
        assert window.start <= now, (phrase, now, window)
    else:
        assert window.start <= now + timedelta(days=31)


@pytest.mark.parametrize(("text", "day"), [
    ("My birthday is on March 14th.", None),  # every year: not an event on 2026-03-14
    ("我的生日是3月14日", None), ("我的生日是三月十四号", None), ("Our anniversary is June 2nd", None),
    ("我们的结婚纪念日是6月2号", None),
    ("My birthday party was last Saturday.", date(2026, 7, 11)),  # that one happened once
    ("I was born on March 14, 1990.", date(1990, 3, 14)), ("My birthday is 1990-03-14", date(1990, 3, 14)),
    ("I met Anna on March 14th.", date(2026, 3, 14)), ("我3月14日去了北京", date(2026, 3, 14)),
    # an age this year is not an event on January 1st (my own trial: '今年五岁' was dated 2026-01-01)
    ("我有一个女儿叫小雨，今年五岁。", None), ("She turns 5 this year.", None),
    ("今年我去了日本", date(2026, 1, 1)),
])
def test_a_date_that_comes_back_every_year_dates_no_event(text: str, day: date | None) -> None:
    from memory.language.temporal import event_time_ms

    ms = event_time_ms(NOW, "", text)
    assert (None if ms is None else datetime.fromtimestamp(ms / 1000, TZ).date()) == day


THURSDAY = datetime(2026, 12, 3, 19, tzinfo=TZ)


@pytest.mark.parametrize(("text", "start", "end"), [
    # plans: the helper's trial stored "Next Friday I'm flying to Tokyo" as the Friday before
    ("Next Friday I'm flying to Tokyo for a conference.", d(2026, 12, 11), d(2026, 12, 12)),
    ("下周五我要飞去东京开会。", d(2026, 12, 11), d(2026, 12, 12)),
    ("this coming Friday", d(2026, 12, 4), d(2026, 12, 5)),
    ("next Monday", d(2026, 12, 7), d(2026, 12, 8)),
    ("下下周三", d(2026, 12, 16), d(2026, 12, 17)),
    ("tomorrow", d(2026, 12, 4), d(2026, 12, 5)),
    ("明天我要开会", d(2026, 12, 4), d(2026, 12, 5)),
    ("the day after tomorrow", d(2026, 12, 5), d(2026, 12, 6)),
    ("后天", d(2026, 12, 5), d(2026, 12, 6)),
    ("next week", d(2026, 12, 7), d(2026, 12, 14)),
    ("下周我要出差", d(2026, 12, 7), d(2026, 12, 14)),
    ("the week after next", d(2026, 12, 14), d(2026, 12, 21)),
    ("next month", d(2027, 1, 1), d(2027, 2, 1)),
    ("下个月我要去北京", d(2027, 1, 1), d(2027, 2, 1)),
    ("明年", d(2027, 1, 1), d(2028, 1, 1)),
    # the past forms are unchanged
    ("last Friday", d(2026, 11, 27), d(2026, 11, 28)),
    ("上周五", d(2026, 11, 27), d(2026, 11, 28)),
    ("Friday", d(2026, 11, 27), d(2026, 11, 28)),
])
def test_plans_in_the_near_future_are_dated_ahead(text: str, start: datetime, end: datetime) -> None:
    window = parse_time_window(text, THURSDAY)
    assert window is not None and (window.start, window.end) == (start, end)


@pytest.mark.parametrize("text", ["以后天天跑步", "我下午要开会"])
def test_words_that_only_look_like_the_future_name_no_day(text: str) -> None:
    assert parse_time_window(text, THURSDAY) is None


@pytest.mark.parametrize(("question", "intent"), [
    ("What do you remember about me?", None), ("你记得我什么？", None), ("What else do you remember about me?", None),
    ("你还记得我哪些事？", None), ("Do you remember where I parked?", "past"), ("你还记得我去年去哪了吗？", "past"),
    ("What did I tell you before?", "past"),
])
def test_what_is_remembered_of_the_user_in_general_is_no_question_about_the_past(question: str,
                                                                                  intent: str | None) -> None:
    """A third new user's trial: "What do you remember about me?" was a question about the past, so recall kept the
    replaced "I live in Porto" unmarked and first, and the answer said it. What is remembered of the user in general
    is what is true of them now; what is remembered of something is still the past."""
    assert time_intent(question) == intent
