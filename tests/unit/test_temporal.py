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
from memory.temporal import parse_time_window

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
    ms = window.ms()
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
