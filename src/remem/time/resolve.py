"""Resolving a found expression into days, relative to the day it was said.

The conventions (the development set ``remem_bench/data/time_expressions.jsonl`` is
labelled with them):

* weeks run Monday to Sunday; "this/next/last week" is that calendar week, "the
  weekend" Saturday and Sunday;
* "last Saturday" is the most recent Saturday strictly before today; "next
  Saturday" the first one strictly after it (people also use it for the one after
  that: confidence 0.7); "this Saturday" the one of the coming seven days, or in a
  past-tense clause of the past seven;
* a bare weekday or day number ("on Saturday", "the 9th") points the way of its
  clause's tense (:mod:`.tense`); with no cue, forward - plans are what people name
  that way - at confidence 0.5;
* a bare month ("in April") or a date without a year ("March 3") is the most recent
  one in a past clause, the coming one in a future clause, and this year's with no
  cue (confidence 0.5);
* "N days ago" is that day; "N weeks ago" the calendar week of the day 7N days back,
  "N months/years ago" that calendar month/year; "in N ..." the same forwards;
* a range "from X to Y" is one span; its end is read forward from its start.
"""

from __future__ import annotations

from datetime import date

from .calendar import (
    day_number,
    month_of,
    month_span,
    month_start,
    week_start,
    weekday,
    year_span,
)
from .patterns import Found
from .tense import FUTURE, PAST

#: (first day, day after the last, granularity, confidence)
Days = tuple[int, int, str, float]

_DAYWORD = {
    "the day before yesterday": -2, "yesterday": -1, "last night": -1, "today": 0,
    "tonight": 0, "this morning": 0, "this afternoon": 0, "this evening": 0,
    "tomorrow": 1, "the day after tomorrow": 2,
}  # fmt: skip
_STEP = {"this": 0, "next": 1, "last": -1, "past": -1, "previous": -1, "-2": -2, "2": 2}
#: step words counting back from the moment said ("last Friday", "this past summer",
#: "last August") and forward from it ("next Friday", "this coming May")
BACK = frozenset(("last", "past", "previous", "this past"))
AHEAD = frozenset(("next", "coming", "this coming"))
_SURE, _TENSED, _GUESS = 0.9, 0.8, 0.5
#: the confidence of a time said with a vague quantity ("a few years ago"): the
#: interval is the likeliest one, and the reader states the words, not the interval
VAGUE = 0.3
#: the first month (0-based) of each season: meteorological seasons of the northern
#: hemisphere (choice: most English conversation data is northern; a southern user's
#: "last summer" in July means December to February, which no rule here can know)
_SEASON_START = {"spring": 2, "summer": 5, "autumn": 8, "fall": 8, "winter": 11}


def resolve(f: Found, today: int, tense: int) -> Days | None:
    """The days ``f`` names, said on day number ``today`` in a clause of ``tense``
    (PAST, FUTURE or 0); None when it names no real date (30 February)."""
    kind = f.kind
    if kind == "dayword":
        word = " ".join(str(f.fields[0]).split())
        day = today + _DAYWORD[word]
        return day, day + 1, "day", _SURE
    if kind == "weekday":
        return _weekday(str(f.fields[0]), int(str(f.fields[1])), today, tense)
    if kind == "unit":
        return _unit(str(f.fields[0]), str(f.fields[1]), today, tense)
    if kind == "offset":
        days = _offset(int(str(f.fields[0])), str(f.fields[1]), today)
        return (*days[:3], VAGUE) if len(f.fields) > 2 and f.fields[2] else days
    if kind == "season":
        return _season(f.fields, today, tense)
    if kind == "year":
        start, end = year_span(int(str(f.fields[0])))
        return start, end, "year", _SURE
    if kind == "month":
        return _month(f.fields, today, tense)
    if kind == "monthweek":
        return _month_week(f.fields, today, tense)
    if kind == "stepmonth":
        return _step_month(str(f.fields[0]), int(str(f.fields[1])), today)
    if kind == "ordinal":
        return _ordinal(int(str(f.fields[0])), today, tense)
    if kind == "weekday_ordinal":
        return _weekday_ordinal(int(str(f.fields[0])), int(str(f.fields[1])), today, tense)
    if kind == "date":
        year, month, day = (int(str(x)) for x in f.fields)
        first = day_number(year, month, day)
        return None if first is None else (first, first + 1, "day", _SURE)
    return _month_day(f.fields, today, tense)


def _weekday(which: str, wd: int, today: int, tense: int) -> Days:
    now = weekday(today)
    before = today - ((now - wd - 1) % 7 + 1)  # strictly before today
    after = today + ((wd - now - 1) % 7 + 1)  # strictly after today
    if which in BACK:
        day, sure = before, _SURE
    elif which in AHEAD:
        day, sure = after, 0.7
    elif which == "this":
        back, ahead = today - (now - wd) % 7, today + (wd - now) % 7
        day, sure = (back if tense == PAST else ahead), _TENSED
    else:
        day = before if tense == PAST else after
        sure = _TENSED if tense else _GUESS
    return day, day + 1, "day", sure


def _unit(which: str, unit: str, today: int, tense: int) -> Days:
    if unit == "weekend":
        monday = week_start(today)
        if which == "the" or which == "this":
            weekend_now = weekday(today) >= 5
            step = -1 if tense == PAST and not weekend_now else 0
            sure = _TENSED if tense else _GUESS if which == "the" else _SURE
        else:
            step, sure = _STEP[which], _SURE
        saturday = monday + 7 * step + 5
        return saturday, saturday + 2, "span", sure
    step = _STEP[which]
    if unit == "week":
        monday = week_start(today) + 7 * step
        return monday, monday + 7, "week", _SURE
    if unit == "month":
        return (*month_span(month_of(today) + step), "month", _SURE)
    return (*year_span(date.fromordinal(today).year + step), "year", _SURE)


def _offset(count: int, unit: str, today: int) -> Days:
    if unit == "day":
        return today + count, today + count + 1, "day", _SURE
    if unit == "week":
        monday = week_start(today + 7 * count)
        return monday, monday + 7, "week", _TENSED
    if unit == "month":
        return (*month_span(month_of(today) + count), "month", _TENSED)
    return (*year_span(date.fromordinal(today).year + count), "year", _TENSED)


def _season(fields: tuple[object, ...], today: int, tense: int) -> Days:
    """A season as the three months it spans: "last summer" the latest one over
    before this month, "next summer" the first to start after it, "this summer" the
    one under way (or, not under way, the last in a past clause, else the next), a
    bare "in the summer" like "this", "summer 2022" that year's ("winter 2022" is
    December 2022 to February 2023, at lower confidence: people also mean January
    2022), "two summers ago" two before the last."""
    which, name, year, ago = fields
    first = _SEASON_START[str(name)]
    now = month_of(today)
    last = now - 3 - (now - 3 - first) % 12
    nxt = now + 1 + (first - now - 1) % 12
    sure = _SURE
    if year is not None:
        start = int(str(year)) * 12 + first
        sure = _GUESS if name == "winter" else _SURE
    elif ago is not None:
        start, sure = last + 12 * (int(str(ago)) + 1), _TENSED
    elif which in BACK:
        start = last
    elif which in AHEAD:
        start = nxt
    elif (now - first) % 12 < 3:
        start, sure = now - (now - first) % 12, _SURE if which else _TENSED
    else:
        start, sure = (last if tense == PAST else nxt), (_TENSED if tense else _GUESS)
    return month_start(start), month_start(start + 3), "season", sure


def _month(fields: tuple[object, ...], today: int, tense: int) -> Days:
    year, month = fields[0], int(str(fields[1]))
    if year is not None:
        return (*month_span(int(str(year)) * 12 + month), "month", _SURE)
    now = month_of(today)
    this_year = now - now % 12 + month
    if tense == PAST:
        number = this_year if this_year <= now else this_year - 12
    elif tense == FUTURE:
        number = this_year if this_year >= now else this_year + 12
    else:
        number = this_year
    return (*month_span(number), "month", _TENSED if tense else _GUESS)


def _month_week(fields: tuple[object, ...], today: int, tense: int) -> Days:
    """ "the first weekend of August": the month as :func:`_month` reads it, then its
    nth Saturday and Sunday ("last": the last Saturday's); "the second week of
    November" its days 8 to 14 (weeks counted from the 1st, as people count them
    in a month; "the last week" its last seven days)."""
    nth, unit, year, month = int(str(fields[0])), str(fields[1]), fields[2], fields[3]
    first, end, _, sure = _month((year, month), today, tense)
    if unit == "weekend":
        saturday = first + (5 - weekday(first)) % 7
        day = saturday + 7 * (nth - 1) if nth > 0 else saturday + 7 * ((end - 1 - saturday) // 7)
        return day, day + 2, "span", sure
    start = first + 7 * (nth - 1) if nth > 0 else end - 7
    return start, start + 7, "week", sure


def _step_month(which: str, month: int, today: int) -> Days:
    """ "last August": the latest August before this month; "next August" the first
    after it; "this August" this year's, under way, past or to come."""
    now = month_of(today)
    this_year = now - now % 12 + month
    if which in BACK:
        number = this_year if this_year < now else this_year - 12
    elif which in AHEAD:
        number = this_year if this_year > now else this_year + 12
    else:
        number = this_year
    return (*month_span(number), "month", _SURE)


def _ordinal(day: int, today: int, tense: int) -> Days | None:
    now = month_of(today)
    dom = date.fromordinal(today).day
    back = now if day <= dom else now - 1
    ahead = now if day >= dom else now + 1  # forward also without a cue
    number = back if tense == PAST else ahead
    first = day_number(number // 12, number % 12 + 1, day)
    if first is None:
        return None
    return first, first + 1, "day", _TENSED if tense else _GUESS


#: how many months either side of the one said in a weekday's day of the month is
#: looked for ("Tuesday the 11th" said on 20 November: 11 November, a Tuesday)
_WEEKDAY_MONTHS = 2


def _weekday_ordinal(day: int, wd: int, today: int, tense: int) -> Days | None:
    """ "Tuesday the 11th": the 11th that falls on a Tuesday nearest the day said,
    in the clause's tense when both ways hold one (a past clause the latest on or
    before it, another the first on or after it), surer than the day number
    alone; with no cue, forward first, as a bare day number. No month near has that
    weekday on that day: the day number as :func:`_ordinal` reads it."""
    now = month_of(today)
    days = [
        first
        for number in range(now - _WEEKDAY_MONTHS, now + _WEEKDAY_MONTHS + 1)
        if (first := day_number(number // 12, number % 12 + 1, day)) is not None
        and weekday(first) == wd
    ]
    if tense == PAST:
        days = [d for d in days if d <= today] or days
    else:  # forward also without a cue, as a bare day number is read
        days = [d for d in days if d >= today] or days
    if not days:
        return _ordinal(day, today, tense)
    first = min(days, key=lambda d: abs(d - today))
    return first, first + 1, "day", _SURE if tense else _TENSED


def _month_day(fields: tuple[object, ...], today: int, tense: int) -> Days | None:
    year, month, day, last = fields
    m, d = int(str(month)), int(str(day))
    if year is not None:
        first = day_number(int(str(year)), m + 1, d)
        sure = _SURE
    else:
        this_year = date.fromordinal(today).year
        first = day_number(this_year, m + 1, d)
        if first is not None and tense == PAST and first > today:
            first = day_number(this_year - 1, m + 1, d)
        elif first is not None and tense == FUTURE and first < today:
            first = day_number(this_year + 1, m + 1, d)
        sure = _TENSED if tense else _GUESS
    if first is None:
        return None
    if last is not None:
        end = first + int(str(last)) - d + 1
        return (first, end, "span", sure) if end > first + 1 else None
    return first, first + 1, "day", sure
