"""Time expressions in a question ("上个月", "last week", "in May 2023", "去年夏天", "yesterday")
read as a window of time, offline, by rules, in Chinese and English.

A retrieval whose newest turn names a time ranks the memories made inside that window as one more
ranking (best match first) beside the dense and keyword ones (:mod:`memory.retrieval.candidates`): "上个月我
去哪儿玩了？" then finds last month's trip even when other trips match the words better. A
memory's time is when it was recorded (an imported one: its own timestamp, the event's time).
Weeks start on Monday; a season is three months (spring March to May, winter December to
February); a month named without a year is its most recent one.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

_NUMBERS = {
    "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
    "十一": 11, "十二": 12, "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_MONTHS_EN = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_SEASONS = {"春": 3, "夏": 6, "秋": 9, "冬": 12}
_SEASONS.update({"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12})
_NUM = r"(\d{1,2}|十[一二]?|[一两二三四五六七八九十])"
_NAMED_MONTH = re.compile(
    rf"\b(in|during|since|of|early|late)?\s*({'|'.join(sorted(_MONTHS_EN, key=len, reverse=True))})"
    r"\.?,?\s*(\d{4})?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Window:
    """A span of time, ``start`` inclusive, ``end`` exclusive."""

    start: datetime
    end: datetime

    def holds(self, moment: datetime) -> bool:
        """Whether ``moment`` falls inside."""
        return self.start <= moment < self.end


def _day(now: datetime, back: int) -> Window:
    start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=back)
    return Window(start, start + timedelta(days=1))


def _week(now: datetime, back: int, *, weekend: bool = False) -> Window:
    monday = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=now.weekday() + 7 * back)
    if weekend:
        return Window(monday + timedelta(days=5), monday + timedelta(days=7))
    return Window(monday, monday + timedelta(days=7))


def _month(now: datetime, year: int, month: int, count: int = 1) -> Window:
    start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    end_month = month - 1 + count
    end = start.replace(year=year + end_month // 12, month=end_month % 12 + 1)
    return Window(start, end)


def _months_back(now: datetime, back: int) -> Window:
    index = now.year * 12 + now.month - 1 - back
    return _month(now, index // 12, index % 12 + 1)


def _year(now: datetime, year: int) -> Window:
    start = now.replace(year=year, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    return Window(start, start.replace(year=year + 1))


def _season(now: datetime, first_month: int, year: int | None) -> Window:
    """The season starting in ``first_month`` of ``year`` (default: its most recent start)."""
    if year is None:
        year = now.year if (now.month, now.day) >= (first_month, 1) else now.year - 1
    return _month(now, year, first_month, 3)


def _named_month(now: datetime, month: int, year: int | None) -> Window:
    if year is None:
        year = now.year if month <= now.month else now.year - 1
    return _month(now, year, month)


def _ago(now: datetime, count: int, unit: str) -> Window:
    if unit in ("天", "day"):
        return _day(now, count)
    if unit in ("周", "星期", "礼拜", "week"):
        return _week(now, count)
    if unit in ("月", "month"):
        return _months_back(now, count)
    return _year(now, now.year - count)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word.lower()]


Rule = tuple[re.Pattern[str], Callable[[datetime], Window]]

_NEAR: tuple[Rule, ...] = (
    (re.compile(r"前天|\bthe day before yesterday\b"), lambda now: _day(now, 2)),
    (re.compile(r"昨天|昨晚|\b(yesterday|last night)\b"), lambda now: _day(now, 1)),
    (re.compile(r"上个?(周|星期|礼拜)末|\blast weekend\b"), lambda now: _week(now, 1, weekend=True)),
    (re.compile(r"上个?(周|星期|礼拜)|\blast week\b"), lambda now: _week(now, 1)),
    (re.compile(r"(这|本)个?(周|星期|礼拜)|\bthis week\b"), lambda now: _week(now, 0)),
)
"""Days and weeks named outright, in either language (read on the lower-cased text)."""
_FAR: tuple[Rule, ...] = (
    (re.compile(r"上个?月|\blast month\b"), lambda now: _months_back(now, 1)),
    (re.compile(r"(这|本)个?月|\bthis month\b"), lambda now: _months_back(now, 0)),
    (re.compile(r"前年"), lambda now: _year(now, now.year - 2)),
    (re.compile(r"去年|\blast year\b"), lambda now: _year(now, now.year - 1)),
    (re.compile(r"今年|\bthis year\b"), lambda now: _year(now, now.year)),
)
"""Months and years named outright: after the expressions that count or name one (三个月前,
去年夏天, in May 2023), which are more precise."""


def window_of(text: str, now: datetime) -> Window | None:
    """The time a question names, or None; the most precise expression found wins."""
    lower = text.lower()
    for pattern, window in _NEAR:
        if pattern.search(lower):
            return window(now)
    found = _counted(text, lower, now)
    if found is not None:
        return found
    for pattern, window in _FAR:
        if pattern.search(lower):
            return window(now)
    return None


def _counted(text: str, lower: str, now: datetime) -> Window | None:
    """Times counted back or named: N天前 / 3 days ago, seasons, months, a year."""
    if m := re.search(rf"{_NUM}(个)?(天|周|星期|礼拜|月|年)(以)?前", text):
        return _ago(now, _number(m.group(1)), m.group(3))
    if m := re.search(r"\b(\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) "
                      r"(day|week|month|year)s? ago\b", lower):  # fmt: skip
        return _ago(now, _number(m.group(1)), m.group(2))
    if m := re.search(r"(去年|今年|前年)?(春|夏|秋|冬)(天|季)", text):
        year = {"去年": now.year - 1, "今年": now.year, "前年": now.year - 2}.get(m.group(1) or "")
        if year is not None and m.group(2) == "冬":
            return _season(now, 12, year)  # 去年冬天: from that year's December
        return _season(now, _SEASONS[m.group(2)], year)
    if m := re.search(r"\b(last|this) (spring|summer|autumn|fall|winter)\b", lower):
        first = _SEASONS[m.group(2)]
        if m.group(1) == "this":
            return _season(now, first, now.year if first != 12 else None)
        latest = _season(now, first, None)
        return latest if latest.end <= now else _season(now, first, latest.start.year - 1)
    if m := re.search(rf"((\d{{4}})年)?{_NUM}月份?(?![\d日号天])", text):
        return _named_month(now, _number(m.group(3)), int(m.group(2)) if m.group(2) else None)
    # a month's name, capitalised; "May" (the verb too) also needs a year or a word like "in"
    if m := _NAMED_MONTH.search(text):
        word, digits = m.group(2), m.group(3)
        if word[0].isupper() and (m.group(1) or digits or word.lower() != "may"):
            return _named_month(now, _MONTHS_EN[word.lower()], int(digits) if digits else None)
    if m := re.search(r"\bin (\d{4})\b", lower):
        return _year(now, int(m.group(1)))
    return None
