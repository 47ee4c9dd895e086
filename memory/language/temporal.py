"""Time intent: the window of time a message talks about, in English and Chinese.

``parse_time_window("what did I say last month", now)`` -> the whole previous calendar month in ``now``'s
timezone. Relative days, weeks, months and years; weekdays; explicit dates and months; parts of the day; and
holidays of the Gregorian and Chinese lunisolar calendars (lunar dates come from the ``holidays`` library).
A date without a year means its most recent occurrence up to ``now``. Weekends are Saturday and Sunday of a
calendar week ("last weekend", "上个周末"); parts of a month are days 1-10, 11-20 and 21 to the end ("early
March", "3月初", "五月中旬", "月底"); fuzzy spans are bounded windows ("a few weeks ago": 6 to 1 weeks back,
"前几天": the 7 days before today, "半年前": the three months around six months back, "前阵子": the last 60
days). Plans in the near future have their own rules ("next Friday", "下周五", "tomorrow", "下个月"), read before a
bare weekday, which means the most recent one. Pure functions: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo
from functools import lru_cache
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from memory.errors import InvalidInputError
from memory.language.slots import AGE
from memory.language.words import EN_NUMERALS, chinese_numeral, grounding_units


@dataclass(frozen=True)
class TimeWindow:
    """A half-open window [start, end) of timezone-aware datetimes, with the phrase it came from."""

    start: datetime
    end: datetime
    phrase: str = ""


# --- numbers -------------------------------------------------------------------------------------------------
_EN_NUMBERS = {"a": 1, "an": 1, "couple of": 2, "few": 3} | EN_NUMERALS
_ZH_NUM = r"[0-9零〇一二两三四五六七八九十]+"
_EN_NUM = r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|couple of|few"


def _number(text: str) -> int:
    """Arabic, English or Chinese numerals (:func:`memory.language.words.chinese_numeral`) as an int."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in _EN_NUMBERS:
        return _EN_NUMBERS[text]
    value = chinese_numeral(text)
    if value is None:
        raise InvalidInputError(f"not a number: {text!r}")
    return value


# --- calendar helpers ----------------------------------------------------------------------------------------
_MONTH_TABLE = [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
                ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
                ("november", "nov"), ("december", "dec")]
_MONTHS = {name: i for i, names in enumerate(_MONTH_TABLE, start=1) for name in names}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WEEKDAYS_EN = {"monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4, "saturday": 5, "sunday": 6}
# the calendar's names written out in full (English), alternations for the checks that read a time as no place or
# no name
MONTH_NAMES = "|".join(names[0] for names in _MONTH_TABLE)
WEEKDAY_NAMES = "|".join(_WEEKDAYS_EN)
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _days(now: datetime, first: date, last_exclusive: date) -> tuple[datetime, datetime]:
    tz = now.tzinfo
    return datetime.combine(first, time(), tz), datetime.combine(last_exclusive, time(), tz)


def _month(now: datetime, year: int, month: int) -> tuple[datetime, datetime]:
    first = date(year, month, 1)
    return _days(now, first, _add_months(first, 1))


def _year(now: datetime, year: int) -> tuple[datetime, datetime]:
    return _days(now, date(year, 1, 1), date(year + 1, 1, 1))


def _week(now: datetime, weeks_back: int) -> tuple[datetime, datetime]:
    monday = now.date() - timedelta(days=now.weekday()) - timedelta(weeks=weeks_back)
    return _days(now, monday, monday + timedelta(days=7))


def _day(now: datetime, d: date) -> tuple[datetime, datetime]:
    return _days(now, d, d + timedelta(days=1))


def _latest_year(now: datetime, month: int, day: int | None = None) -> int:
    """The year of the most recent (month, day) at or before now; for a month alone, the month's start."""
    return now.year if (month, day or 1) <= (now.month, now.day) else now.year - 1


def _safe_date(year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError as exc:
        raise InvalidInputError(f"{year}-{month:02d}-{day:02d} is not a date") from exc


# --- holidays --------------------------------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _holiday_dates(country: str, year: int) -> dict[str, date]:
    """The first day of each named holiday of ``country`` in ``year`` (English names), via ``holidays``."""
    import holidays

    first: dict[str, date] = {}
    for day, name in sorted(holidays.country_holidays(country, years=year, language="en_US").items()):
        first.setdefault(str(name), day)
    return first


@dataclass(frozen=True)
class _Holiday:
    country: str
    name: str  # as the holidays library names it
    days: int = 1
    offset: int = 0  # days before the holiday that the window starts


_SPRING = "Chinese New Year (Spring Festival)"
_HOLIDAYS: list[tuple[str, _Holiday]] = [
    (r"christmas eve|平安夜", _Holiday("US", "Christmas Day", 1, 1)),
    (r"christmas|xmas|圣诞节?", _Holiday("US", "Christmas Day")),
    (r"除夕|年三十|(?:chinese|lunar) new year'?s eve", _Holiday("CN", _SPRING, 1, 1)),
    (r"(?:chinese|lunar) new year|spring festival|春节|过年|大年初一", _Holiday("CN", _SPRING, 8, 1)),
    (r"new year'?s eve", _Holiday("CN", "New Year's Day", 1, 1)),  # 31 December: the eve of 1 January
    (r"new year'?s(?: day)?|元旦", _Holiday("CN", "New Year's Day")),
    (r"dragon boat(?: festival)?|端午节?|端午", _Holiday("CN", "Dragon Boat Festival")),
    (r"mid-?autumn(?: festival)?|moon festival|中秋节?", _Holiday("CN", "Mid-Autumn Festival")),
    (r"qingming(?: festival)?|tomb-?sweeping day|清明节?", _Holiday("CN", "Tomb-Sweeping Day")),
    (r"national day|golden week|国庆节?|十一长假|十一黄金周", _Holiday("CN", "National Day", 7)),
    (r"labou?r day|may day|劳动节|五一", _Holiday("CN", "Labor Day")),
    (r"thanksgiving", _Holiday("US", "Thanksgiving Day")),
    (r"independence day|(?:the )?fourth of july|july 4th", _Holiday("US", "Independence Day")),
]


def _holiday_window(now: datetime, holiday: _Holiday, year: int | None) -> tuple[datetime, datetime] | None:
    years = [year] if year is not None else [now.year, now.year - 1]
    for y in years:
        day = _holiday_dates(holiday.country, y).get(holiday.name)
        if day is None:
            continue
        start = day - timedelta(days=holiday.offset)
        if year is None and start > now.date():
            continue  # not yet this year: the user means last year's
        return _days(now, start, start + timedelta(days=holiday.days))
    return None


# --- parts of the day ------------------------------------------------------------------------------------------
_PARTS: list[tuple[str, tuple[int, int]]] = [
    (r"early morning|凌晨", (0, 6)),
    (r"this morning|in the morning|morning|早上|早晨|上午|今早|清晨", (5, 12)),
    (r"\bnoon\b|lunchtime|中午", (11, 14)),
    (r"this afternoon|in the afternoon|afternoon|下午", (12, 18)),
    (r"tonight|this evening|in the evening|evening|last night|今晚|晚上|傍晚|昨晚|昨夜|夜里", (18, 24)),
]


def _part_of_day(text: str) -> tuple[str, tuple[int, int]] | None:
    for pattern, hours in _PARTS:
        m = re.search(pattern, text)
        if m:
            return m.group(0), hours
    return None


# --- rules: (pattern, resolver(match, now) -> (start, end) | None) ------------------------------------------------
Resolver = Callable[[re.Match[str], datetime], tuple[datetime, datetime] | None]
_RULES: list[tuple[re.Pattern[str], Resolver]] = []


def _rule(pattern: str) -> Callable[[Resolver], Resolver]:
    def register(fn: Resolver) -> Resolver:
        _RULES.append((re.compile(pattern, re.IGNORECASE), fn))
        return fn
    return register


@_rule(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})")
def _iso(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, _safe_date(int(m[1]), int(m[2]), int(m[3])))


@_rule(rf"(?:(\d{{4}})年)?({_ZH_NUM})月({_ZH_NUM})[日号]")
def _zh_date(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    month, day = _number(m[2]), _number(m[3])
    year = int(m[1]) if m[1] else _latest_year(now, month, day)
    return _day(now, _safe_date(year, month, day))


@_rule(rf"\b({_MONTH_RE})\.? (\d{{1,2}})(?:st|nd|rd|th)?(?:,? (\d{{4}}))?\b")
def _en_month_day(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    month, day = _MONTHS[m[1].lower()], int(m[2])
    year = int(m[3]) if m[3] else _latest_year(now, month, day)
    return _day(now, _safe_date(year, month, day))


@_rule(rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH_RE})\b(?:,? (\d{{4}}))?")
def _en_day_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    month, day = _MONTHS[m[2].lower()], int(m[1])
    year = int(m[3]) if m[3] else _latest_year(now, month, day)
    return _day(now, _safe_date(year, month, day))


# --- parts of a month: early / mid / late (上旬 / 中旬 / 下旬: days 1-10, 11-20, 21-end) -------------------------
_THIRDS = {"early": 0, "beginning": 0, "start": 0, "mid": 1, "middle": 1, "late": 2, "end": 2,
           "初": 0, "上旬": 0, "中旬": 1, "中": 1, "下旬": 2, "底": 2, "末": 2}


def _month_part(now: datetime, year: int, month: int, third: int) -> tuple[datetime, datetime]:
    first = date(year, month, 1)
    start = first + timedelta(days=10 * third)
    end = first + timedelta(days=10 * (third + 1)) if third < 2 else _add_months(first, 1)
    return _days(now, start, end)


def _latest_part(now: datetime, month: int, third: int) -> tuple[datetime, datetime]:
    """The most recent such part of ``month`` that has begun by ``now``."""
    return _month_part(now, _latest_year(now, month, 1 + 10 * third), month, third)


def _relative_month(now: datetime, back: int) -> tuple[int, int]:
    first = _add_months(now.date().replace(day=1), -back)
    return first.year, first.month


_EN_PART = r"(early|mid|late|(?:the )?(?:beginning|start|middle|end) of)[- ](?:in )?"


@_rule(rf"\b{_EN_PART}({_MONTH_RE}|last month|this month)\b(?:,? (\d{{4}}|last year|this year))?")
def _en_month_part(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    third = _THIRDS[m[1].lower().removeprefix("the ").split()[0]]
    target, qualifier = m[2].lower(), (m[3] or "").lower()
    if target in ("last month", "this month"):
        return _month_part(now, *_relative_month(now, 1 if target == "last month" else 0), third)
    month = _MONTHS[target]
    if qualifier.isdigit():
        return _month_part(now, int(qualifier), month, third)
    if qualifier:
        return _month_part(now, now.year - (qualifier == "last year"), month, third)
    return _latest_part(now, month, third)


@_rule(r"(?:(\d{4})年|(去年|前年|今年))?(" + _ZH_NUM + r")月份?(初|上旬|中旬|下旬|底|末|中(?![国文心秋间的]))")
def _zh_month_part(m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    month = _number(m[3])
    if not 1 <= month <= 12:
        return None
    third = _THIRDS[m[4]]
    if m[1]:
        return _month_part(now, int(m[1]), month, third)
    if m[2]:
        return _month_part(now, now.year - {"今年": 0, "去年": 1, "前年": 2}[m[2]], month, third)
    return _latest_part(now, month, third)


@_rule(r"(上上个?月|上个?月|本月|这个月|(?<![0-9零〇一二两三四五六七八九十个岁])月)(初|上旬|中旬|下旬|底|末)|(上旬|中旬|下旬)")
def _zh_relative_month_part(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    back = 2 if (m[1] or "").startswith("上上") else 1 if (m[1] or "").startswith("上") else 0
    return _month_part(now, *_relative_month(now, back), _THIRDS[m[2] or m[3]])


# --- weekends: Saturday and Sunday of a calendar week ----------------------------------------------------------
def _weekend(now: datetime, weeks_back: int) -> tuple[datetime, datetime]:
    saturday = now.date() - timedelta(days=now.weekday()) - timedelta(weeks=weeks_back) + timedelta(days=5)
    return _days(now, saturday, saturday + timedelta(days=2))


@_rule(r"\b(?:the )?weekend before last\b|上上(?:个)?(?:周末|礼拜末)")
def _weekend_before_last(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _weekend(now, 2)


@_rule(r"\b(?:last|previous|this past) weekend\b|上(?:个)?(?:周末|礼拜末)")
def _last_weekend(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    if m[0].lower() == "this past weekend" and now.weekday() >= 5:
        return _weekend(now, 0)  # said on the weekend: the one under way
    return _weekend(now, 1)


@_rule(r"\bthis weekend\b|(?:这|本)(?:个)?周末")
def _this_weekend(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _weekend(now, 0)


# --- fuzzy spans: each a bounded window ---------------------------------------------------------------------------
def _back(now: datetime, oldest_days: int, newest_days: int) -> tuple[datetime, datetime]:
    """From ``oldest_days`` before today up to (not including) ``newest_days`` before today."""
    today = now.date()
    return _days(now, today - timedelta(days=oldest_days), today - timedelta(days=newest_days))


@_rule(r"\b(?:a )?few days ago\b|\bthe other day\b|前几天|几天前|前两天|这两天前")
def _few_days_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _back(now, 7, 0)


@_rule(r"\bhalf a month ago\b|半个月(?:前|以前|之前)")
def _half_month_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _back(now, 21, 9)


@_rule(r"\b(?:a )?few weeks ago\b|几(?:个)?(?:周|星期|礼拜)(?:前|以前|之前)")
def _few_weeks_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _back(now, 42, 7)


@_rule(r"\b(?:a while|some time) (?:ago|back)\b|前阵子|前一阵子?|前段时间|前些日子|前些天")
def _a_while_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _back(now, 60, 0)


@_rule(r"\b(?:a )?few months ago\b|几个月(?:前|以前|之前)")
def _few_months_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    start, end = _relative_month(now, 4), _relative_month(now, 1)
    return _days(now, date(*start, 1), date(*end, 1))


@_rule(r"\b(?:half a year|six months or so|half year) ago\b|大?半年(?:前|以前|之前)")
def _half_year_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    start, end = _relative_month(now, 7), _relative_month(now, 4)  # the three months around six months back
    return _days(now, date(*start, 1), date(*end, 1))


@_rule(r"\b(?:a )?few years ago\b|几年(?:前|以前|之前)")
def _few_years_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _days(now, date(now.year - 5, 1, 1), date(now.year - 1, 1, 1))


@_rule(r"(?:(\d{4})年|(去年|前年|今年))?(" + _ZH_NUM + r")月份?(?![0-9零〇一二两三四五六七八九十]*[日号])")
def _zh_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    month = _number(m[3])
    if not 1 <= month <= 12:
        return None
    if m[1]:
        year = int(m[1])
    elif m[2]:
        year = now.year - {"今年": 0, "去年": 1, "前年": 2}[m[2]]
    else:
        year = _latest_year(now, month)
    return _month(now, year, month)


@_rule(rf"\b(?:in |during )?(last year'?s? |this year'?s? )?({_MONTH_RE})\b(?: (?:of )?(\d{{4}}|last year|this year))?")
def _en_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    word = m[2].lower()
    if word == "may" and not (m[1] or m[3]) and not re.search(r"\b(?:in|during) may\b", m.string, re.IGNORECASE):
        return None  # "may" is usually the verb
    month = _MONTHS[word]
    qualifier = (m[1] or m[3] or "").strip().lower()
    if qualifier.isdigit():
        year = int(qualifier)
    elif qualifier.startswith("last year"):
        year = now.year - 1
    elif qualifier.startswith("this year"):
        year = now.year
    else:
        year = _latest_year(now, month)
    return _month(now, year, month)


@_rule(r"\b(?:the )?day before yesterday\b|前天")
def _day_before_yesterday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date() - timedelta(days=2))


@_rule(r"\byesterday\b|昨天|昨日|昨晚|昨夜|\blast night\b")
def _yesterday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date() - timedelta(days=1))


@_rule(r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b|今天|今日|今晚|今早|刚才")
def _today(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date())


@_rule(rf"\b({_EN_NUM}) days? ago\b|({_ZH_NUM})天(?:前|以前|之前)")
def _days_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date() - timedelta(days=_number(m[1] or m[2])))


# The near future, for plans ("next Friday I'm flying to Tokyo", "下周五", "明天"): before the weekday rules, which
# would read "next Friday" as the most recent Friday. "next <weekday>" is that day of the next calendar week, as
# "last <weekday>" is of the previous one; "this coming <weekday>" the first such day after today.
@_rule(r"\b(?:the )?day after tomorrow\b|(?<![大之以])后天")
def _day_after_tomorrow(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date() + timedelta(days=2))


@_rule(r"\btomorrow\b|明天|明日|明早|明晚")
def _tomorrow(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now, now.date() + timedelta(days=1))


@_rule(r"\b(next|this coming|coming) (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
       r"|(下下|下)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
def _next_weekday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    monday = now.date() - timedelta(days=now.weekday())
    if m[2]:
        target = _WEEKDAYS_EN[m[2].lower()]
        if m[1].lower() == "next":
            return _day(now, monday + timedelta(weeks=1, days=target))
        return _day(now, now.date() + timedelta(days=(target - now.weekday()) % 7 or 7))
    return _day(now, monday + timedelta(weeks=2 if m[3] == "下下" else 1, days=_WEEKDAYS_ZH[m[4]]))


@_rule(r"\b(?:the )?week after next\b|\bnext week\b|(下下|下)(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])")
def _next_week(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _week(now, -2 if m[0].startswith(("下下", "the week after", "week after")) else -1)


@_rule(r"\bnext month\b|下个?月(?!份?[初底末]|份?[上中下]旬)")
def _next_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    year, month = (now.year + 1, 1) if now.month == 12 else (now.year, now.month + 1)
    return _month(now, year, month)


@_rule(r"\bnext year\b|明年")
def _next_year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, now.year + 1)


@_rule(r"\b(last|this|on|past)? ?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b")
def _en_weekday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    target = _WEEKDAYS_EN[m[2].lower()]
    if (m[1] or "").lower() == "last":  # the weekday of the previous calendar week
        d = now.date() - timedelta(days=now.weekday() + 7) + timedelta(days=target)
    else:  # the most recent such day, today included
        d = now.date() - timedelta(days=(now.weekday() - target) % 7)
    return _day(now, d)


@_rule(r"(上上|上|这|本)?(?:个)?(?:周|星期|礼拜)([一二三四五六日天])")
def _zh_weekday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    target = _WEEKDAYS_ZH[m[2]]
    back = {"上上": 2, "上": 1, "这": 0, "本": 0}.get(m[1] or "")
    if back is None:
        d = now.date() - timedelta(days=(now.weekday() - target) % 7)
    else:
        d = now.date() - timedelta(days=now.weekday() + 7 * back) + timedelta(days=target)
    return _day(now, d)


@_rule(rf"\b({_EN_NUM}) weeks? ago\b|({_ZH_NUM})(?:个)?(?:周|星期|礼拜)(?:前|以前|之前)")
def _weeks_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _week(now, _number(m[1] or m[2]))


@_rule(r"\bweek before last\b|上上(?:个)?(?:周|星期|礼拜)")
def _week_before_last(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _week(now, 2)


@_rule(r"\blast week\b|\bprevious week\b|上(?:个)?(?:周|星期|礼拜)")
def _last_week(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _week(now, 1)


@_rule(r"\bthis week\b|本周|这周|这个?星期|这个?礼拜")
def _this_week(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _week(now, 0)


@_rule(rf"\b({_EN_NUM}) months? ago\b|({_ZH_NUM})个?月(?:前|以前|之前)")
def _months_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    first = _add_months(now.date().replace(day=1), -_number(m[1] or m[2]))
    return _month(now, first.year, first.month)


@_rule(r"\bmonth before last\b|上上个?月")
def _month_before_last(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    first = _add_months(now.date().replace(day=1), -2)
    return _month(now, first.year, first.month)


@_rule(r"\blast month\b|\bprevious month\b|上个?月")
def _last_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    first = _add_months(now.date().replace(day=1), -1)
    return _month(now, first.year, first.month)


@_rule(r"\bthis month\b|本月|这个月")
def _this_month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _month(now, now.year, now.month)


@_rule(rf"\b({_EN_NUM}) years? ago\b|({_ZH_NUM})年(?:前|以前|之前)")
def _years_ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, now.year - _number(m[1] or m[2]))


@_rule(r"\byear before last\b|前年")
def _year_before_last(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, now.year - 2)


@_rule(r"\blast year\b|去年")
def _last_year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, now.year - 1)


@_rule(r"\bthis year\b|今年")
def _this_year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, now.year)


# "in 2019", "2019年" - but not "my passport ends in 4821" or "the code is in 1234": a year is 1900-2199 and not
# what a number, a code or an ending is "in"
@_rule(r"(?<!\bends )(?<!\bending )(?<!\bended )(?<!\bend )\bin ((?:19|20|21)\d{2})\b"
       r"|(?<![0-9])((?:19|20|21)\d{2})年(?![0-9零〇一二两三四五六七八九十]*月)")
def _explicit_year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _year(now, int(m[1] or m[2]))


def _holiday(text: str, now: datetime) -> tuple[str, tuple[datetime, datetime]] | None:
    year: int | None = None
    y = re.search(r"\b(\d{4})\b|(\d{4})年|(去年|last year)|(前年)|(今年|this year)", text, re.IGNORECASE)
    if y:
        year = (int(y[1] or y[2]) if (y[1] or y[2]) else
                now.year - 1 if y[3] else now.year - 2 if y[4] else now.year)
    for pattern, holiday in _HOLIDAYS:
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            window = _holiday_window(now, holiday, year)
            if window:
                return m.group(0), window
    return None


def parse_time_window(text: str, now: datetime) -> TimeWindow | None:
    """The window of time ``text`` refers to, resolved against ``now`` (timezone-aware), or None if none."""
    if now.tzinfo is None or now.utcoffset() is None:
        raise InvalidInputError("now must be timezone-aware (the user's timezone decides where days begin)")
    if not isinstance(text, str) or not text.strip():
        return None
    lowered = text.lower()
    found: tuple[str, tuple[datetime, datetime]] | None = _holiday(text, now)
    if found is None:
        for pattern, resolve in _RULES:
            m = pattern.search(lowered)
            if m:
                window = resolve(m, now)
                if window is not None:
                    found = (text[m.start():m.end()], window)
                    break
    if found is None:
        return None
    part = _part_of_day(lowered)
    phrase, (start, end) = found
    if part is not None and end - start == timedelta(days=1):
        start, end = start + timedelta(hours=part[1][0]), start + timedelta(hours=part[1][1])
        if part[0] not in phrase:
            phrase = f"{phrase} {part[0]}"
    return TimeWindow(start=start, end=end, phrase=phrase.strip())


def zone(name: str) -> ZoneInfo:
    """The IANA timezone ``name`` (e.g. Asia/Shanghai), or :class:`InvalidInputError`."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidInputError(f"unknown timezone {name!r} (use an IANA name such as Asia/Shanghai)") from exc


def event_time_ms(now: datetime, *phrases: str) -> int | None:
    """When something happened, in ms: the start of the first of ``phrases`` that names a time, resolved at
    ``now`` (the message's time). None when none does."""
    recurring = any(_RECURRING.search(p) for p in phrases if p)
    for phrase in phrases:
        window = parse_time_window(phrase, now) if phrase else None
        if window is not None:
            if recurring and _YEARLESS_DAY.match(window.phrase):
                return None  # "my birthday is on March 14th" happens every year, not on 2026-03-14
            if window.phrase.lower() in ("今年", "this year") and AGE.search(phrase):
                return None  # "今年五岁" is an age, not something that happened on January 1st
            return int(window.start.timestamp() * 1000)
    return None


# A date that comes back every year, when given without a year, is not an event.
_RECURRING = re.compile(r"\b(birthdays?|anniversary|anniversaries|name ?days?)\b|生日|纪念日|周年", re.IGNORECASE)
_YEARLESS_DAY = re.compile(r"^(?!.*(\d{4}|年|\b(last|next|this|ago)\b|[上下去今明昨前后]))", re.IGNORECASE)


def parse_timestamp(text: str, tz: tzinfo) -> datetime:
    """An ISO 8601 time (``2026-06-19``, ``2026-06-19T12:30``, ``...+08:00``, ``...Z``); without an offset it is
    read on the user's clock ``tz``. Anything else is an :class:`InvalidInputError`."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("timestamp is empty (use ISO 8601, e.g. 2026-06-19T12:30+08:00)")
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise InvalidInputError(f"timestamp {text[:60]!r} is not ISO 8601 (e.g. 2026-06-19T12:30+08:00)") from exc
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tz)
    if not 1970 <= parsed.year <= 2999:
        raise InvalidInputError(f"timestamp {text[:60]!r} is outside 1970-2999")
    return parsed


TimeIntent = Literal["past", "present"]
# Asking about the present: the newest memory should win. Checked before the past: "where do I live now".
_PRESENT = re.compile(
    r"\b(now|right now|currently|current|these days|nowadays|at the moment|at present|still|anymore|latest|"
    r"recently|lately|most recent)\b|现在|目前|如今|当前|最近|最新|近来|这几天|还在|仍然",
    re.IGNORECASE,
)
# Asking about the past (a window is found separately): age must not bury the memory asked about.
_PAST = re.compile(
    r"\b(when did|when was|when were|what date|what day|which day|how long ago|ago|used to|back then|"
    r"earlier|first time|last time|previously|before|formerly|originally|ever|"
    r"did i (?:tell|say|mention)|"
    r"i (?:told|said|mentioned))\b"
    r"|什么时候|哪天|哪一天|几号|几月|那天|那次|上次|以前|之前|曾经|当时|过去|说过|提到过|提过",
    re.IGNORECASE,
)
# Asking what is remembered of something ("Do you remember where I parked?"): the past; not of the user in general
# ("What do you remember about me?", "你记得我什么？": what is true of them, newest first)
_REMEMBERING = re.compile(r"\b(?:remember|recall)\b|记得", re.IGNORECASE)


def present_words() -> re.Pattern[str]:
    """The words that make a question about the present ("now", "currently", "现在", "最近")."""
    return _PRESENT


def time_intent(text: str) -> TimeIntent | None:
    """Whether a question is about the present ("where do I live now", "我现在住哪") or the past ("when did I…",
    "我曾经…", "上次"), or neither (None). A question naming a time window is handled by :func:`parse_time_window`."""
    if not isinstance(text, str) or not text.strip():
        return None
    if _PRESENT.search(text):
        return "present"
    if _PAST.search(text):
        return "past"
    if _REMEMBERING.search(text):
        return None if about_the_user_in_general(text) else "past"
    return None


_ABOUT_ME_IN_GENERAL = re.compile(r"\b(?:remember|recall|know|knew|tell|say|about|me|myself|you|do|does|what|"
                                  r"anything|everything|else|so far|all)\b|记得|知道|记住|了解|关于|你|我|什么|都|"
                                  r"还|有|哪些|些|事情?|吗|呢|说说|告诉", re.IGNORECASE)


def about_the_user_in_general(text: str) -> bool:
    """Does ``text`` name nothing but the user and knowing or telling ("What do you remember about me?", "你还记得我
    哪些事？")? No thing, person or time of its own."""
    return not grounding_units(_ABOUT_ME_IN_GENERAL.sub(" ", text))
