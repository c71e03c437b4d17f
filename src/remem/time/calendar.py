"""Calendar arithmetic on day numbers, held inside ``datetime``'s years 1 to 9999.

Event times are computed on proleptic Gregorian day numbers (``date.toordinal``: 1 is
1 January of year 1) and month numbers (``year * 12 + month - 1``), which are plain
integers: "yesterday" said on 1 January of year 1, or "next year" said in 9999, is
ordinary arithmetic here and is clamped (or dropped, when nothing of it is left) only
when it becomes a ``datetime``. No expression can raise ``OverflowError``.
"""

from __future__ import annotations

from datetime import MAXYEAR, MINYEAR, date, datetime, time, tzinfo

#: the last day number ``date`` can hold (31 December 9999)
LAST_DAY = date.max.toordinal()


def weekday(day: int) -> int:
    """Monday 0 ... Sunday 6 of a day number (day 1 was a Monday)."""
    return (day - 1) % 7


def week_start(day: int) -> int:
    """The Monday of the (Monday to Sunday) week of ``day``."""
    return day - weekday(day)


def month_of(day: int) -> int:
    """The month number of a valid day number."""
    d = date.fromordinal(day)
    return d.year * 12 + d.month - 1


def month_start(month: int) -> int:
    """The first day of a month number; below or above the range of ``date`` when the
    month is (0 or ``LAST_DAY + 1``), so that an interval over it clamps away."""
    year, m = divmod(month, 12)
    if year < MINYEAR:
        return 0
    if year > MAXYEAR:
        return LAST_DAY + 1
    return date(year, m + 1, 1).toordinal()


def month_span(month: int) -> tuple[int, int]:
    return month_start(month), month_start(month + 1)


def year_span(year: int) -> tuple[int, int]:
    return month_start(year * 12), month_start((year + 1) * 12)


def day_number(year: int, month: int, day: int) -> int | None:
    """The day number of a calendar date, None when there is no such date (30
    February, 29 February of a common year, year 0 or 10000)."""
    if not (MINYEAR <= year <= MAXYEAR and 1 <= month <= 12 and 1 <= day <= 31):
        return None
    try:
        return date(year, month, day).toordinal()
    except ValueError:
        return None


def as_datetimes(start: int, end: int, tz: tzinfo | None) -> tuple[datetime, datetime] | None:
    """``[start, end)`` (day numbers) as local midnights in ``tz``, clamped to years 1
    to 9999 (an end past 9999 becomes ``datetime.max``); None when nothing is left."""
    start, end = max(start, 1), min(end, LAST_DAY + 1)
    if start >= end:
        return None
    first = datetime.combine(date.fromordinal(start), time(0), tz)
    if end > LAST_DAY:
        return first, datetime.max.replace(tzinfo=tz)
    return first, datetime.combine(date.fromordinal(end), time(0), tz)
