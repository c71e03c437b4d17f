"""When a question is about: relative time expressions as windows over memory time.

"What did I buy 10 days ago?", "I received jewelry last Saturday from whom?", "Which
book did I finish a week ago?": the words say when the memory was made, relative to
the moment the question is asked (``now``). :func:`time_window` turns the first such
expression into a :class:`TimeWindow`; search then prefers memories made inside it
(``time/arrange.py``). Questions that ask for a duration ("How many days ago did
I ...?") name a unit, not a time, and give no window.

Windows are deliberately loose: people say "a week ago" of eight or ten days, "last
month" of the weeks around its edges, and a memory's time is when it was said, which
for an event is often a day or two after it. Each window therefore carries slack
proportional to its span. English only, like the rest of the answering rules.

Order words are separate (:func:`time_order`): "currently", "now", "the latest" ask
for the newest of several memories on a topic, "first", "initially", "used to" for
the oldest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import MAXYEAR, MINYEAR, datetime, timedelta, tzinfo

DAY = timedelta(days=1)
_NUMBER = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4,
}  # fmt: skip
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30.44, "year": 365.25}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
]  # fmt: skip
#: the names of days and months: a question's capitalised words that name a time
CALENDAR_WORDS = frozenset(_WEEKDAYS + _MONTHS)
_MONTH_RE = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_QTY = r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|" \
    r"a couple(?: of)?|couple of|a few|few|several)"  # fmt: skip

_AGO = re.compile(rf"\b{_QTY}\s+(day|week|month|year)s?\s+ago\b", re.I)
_HOW_MANY = re.compile(r"\bhow\s+(?:many|much|long)\b[^?.]*\bago\b", re.I)
_LAST_WEEKDAY = re.compile(
    r"\b(?:last|this\s+past|past|previous)\s+(monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)\b",
    re.I,
)
# "the last week of October 2023" names October, not last week: "of" after the unit
# hands the window to the absolute date that follows
_LAST_UNIT = re.compile(r"\b(?:last|past|previous)\s+(week|weekend|month|year)\b(?!\s+of\b)", re.I)
_THIS_UNIT = re.compile(r"\b(?:this|earlier\s+this)\s+(week|weekend|month|year)\b", re.I)
_RECENT = re.compile(
    rf"\b(?:recently|lately|these\s+days|(?:in|over|during)\s+the\s+(?:last|past)\s+"
    rf"(?:{_QTY}\s+)?(days?|weeks?|months?))\b(?!\s+of\b)",
    re.I,
)
_DAYWORD = re.compile(r"\b(yesterday|today|this\s+morning|tonight|last\s+night)\b", re.I)
_MONTH_DAY = re.compile(
    rf"\b(?:{_MONTH_RE}\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+"
    rf"(?:of\s+)?{_MONTH_RE})\b(?:,?\s+((?:19|20)\d\d))?",
    re.I,
)
_IN_MONTH = re.compile(
    rf"\b(?:in|of|during)\s+(?:early\s+|mid[- ]|late\s+)?{_MONTH_RE}\b"
    rf"(?:,?\s+((?:19|20)\d\d))?|\b{_MONTH_RE},?\s+((?:19|20)\d\d)\b",
    re.I,
)
_IN_YEAR = re.compile(r"\bin\s+((?:19|20)\d\d)\b", re.I)
# "on 2/15", "on 3/4/2023": month first (the English of the assistants remem serves)
_NUM_DATE = re.compile(r"\bon\s+(\d{1,2})/(\d{1,2})(?:/((?:19|20)?\d\d))?\b")

_DIGIT = re.compile(r"\d")
_MONTH_STEMS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def _has(low: str, *words: str) -> bool:
    return any(w in low for w in words)


_NEWEST = re.compile(
    r"\b(currently|current|now|latest|most\s+recent(?:ly)?|these\s+days|still|anymore|"
    r"at\s+the\s+moment|nowadays)\b",
    re.I,
)
_OLDEST = re.compile(
    r"\b(initially|originally|at\s+first|used\s+to|formerly|in\s+the\s+beginning)\b",
    re.I,
)


@dataclass(frozen=True)
class TimeWindow:
    """Memories made in ``[start, end)`` are what the question is about; ``phrase``
    is the expression it came from (for explanations)."""

    start: datetime
    end: datetime
    phrase: str
    #: the start of the one day the expression names ("last Saturday", "on May 3",
    #: "yesterday"), which the window pads for slack; None for longer expressions
    day: datetime | None = None

    def contains(self, when: datetime) -> bool:
        return self.start <= when < self.end

    def distance_days(self, when: datetime) -> float:
        """Days from ``when`` to the window (0 inside)."""
        if when < self.start:
            return (self.start - when) / DAY
        if when >= self.end:
            return (when - self.end) / DAY
        return 0.0


def _qty(text: str) -> int:
    text = " ".join(text.lower().split())
    return int(text) if text.isdigit() else _NUMBER.get(text, 1)


def _month(text: str) -> int:
    low = text.lower()[:3]
    return next(i + 1 for i, m in enumerate(_MONTHS) if m.startswith(low))


def _day_start(t: datetime) -> datetime:
    return t.replace(hour=0, minute=0, second=0, microsecond=0)


def _plus(t: datetime, days: float) -> datetime:
    """``t`` moved by ``days``, held at the ends of ``datetime``'s range (years 1 to
    9999) instead of overflowing: a memory stamped ``0001-01-01`` (.NET's
    ``DateTime.MinValue``, common in exports) or a question asked "now" in 9999 must
    still get a window, never an ``OverflowError``."""
    try:
        return t + days * DAY
    except OverflowError:
        return (datetime.max if days > 0 else datetime.min).replace(tzinfo=t.tzinfo)


def _at(year: int, month: int, day: int, tz: tzinfo | None) -> datetime:
    """Midnight of that calendar day, held inside years 1 to 9999 ("in May" asked in
    January of year 1 is about May of year 0, which ``datetime`` cannot hold)."""
    if year < MINYEAR:
        return datetime.min.replace(tzinfo=tz)
    if year > MAXYEAR:
        return datetime.max.replace(tzinfo=tz)
    return datetime(year, month, day, tzinfo=tz)


def _around(centre: datetime, slack_days: float, phrase: str) -> TimeWindow:
    return TimeWindow(_plus(centre, -slack_days), _plus(centre, slack_days), phrase)


def time_window(question: str, now: datetime) -> TimeWindow | None:
    """The window of memory time the question's first relative or absolute time
    expression names, relative to ``now``; None when it names none (a question
    asking for a duration, "how many days ago ...", names none)."""
    found = _candidates(question, now)
    return min(found, key=lambda f: f[0])[1] if found else None


def mentioned_windows(text: str, made: datetime) -> list[TimeWindow]:
    """Every time a memory's own words name, relative to when it was made: "I finally
    beat it last weekend", said on a Wednesday, is about the weekend before. A
    question's window matches a memory made then *or* one that says it happened then
    (events are told days after they happen)."""
    return [w for _, w in _candidates(text, made)]


def _candidates(question: str, now: datetime) -> list[tuple[int, TimeWindow]]:
    """(position in the question, window) of every expression found."""
    today = _day_start(now)
    out: list[tuple[int, TimeWindow]] = []
    # Each family of expressions is looked for only when words it cannot do without
    # are in the text: a long memory is read for the times it names when a question
    # first names one, and eleven full scans cost about 0.9 ms per 1,200 characters.
    low = question.casefold()
    lastish = _has(low, "last", "past", "previous")
    digits = _DIGIT.search(low) is not None
    months = _has(low, *_MONTH_STEMS)
    ago = "ago" in low
    asked_duration = _HOW_MANY.search(question) if ago else None
    for m in _AGO.finditer(question) if ago else ():
        if asked_duration and asked_duration.start() <= m.start() < asked_duration.end():
            continue
        n, unit = _qty(m.group(1)), m.group(2).lower()
        span = n * _UNIT_DAYS[unit]
        slack = max(1.5, 0.25 * span) if unit == "day" else max(3.0, 0.3 * span)
        out.append((m.start(), _around(_plus(now, -span), slack, m.group(0))))
    dayword = _has(low, "yesterday", "today", "morning", "tonight", "night")
    for m in _DAYWORD.finditer(question) if dayword else ():
        word = " ".join(m.group(1).lower().split())
        if word == "yesterday" or word == "last night":
            yesterday = _plus(today, -1)
            out.append((m.start(), TimeWindow(yesterday, _plus(today, 0.5), m.group(0), yesterday)))
        else:
            out.append((m.start(), TimeWindow(today, _plus(now, 1), m.group(0))))
    for m in _LAST_WEEKDAY.finditer(question) if lastish and "day" in low else ():
        wd = _WEEKDAYS.index(m.group(1).lower())
        back = (now.weekday() - wd) % 7 or 7  # the most recent one before today
        day = _plus(today, -back)
        out.append((m.start(), _one_day(day, m.group(0))))
    for m in _LAST_UNIT.finditer(question) if lastish else ():
        out.append((m.start(), _last(m.group(1).lower(), now, today, m.group(0))))
    for m in _THIS_UNIT.finditer(question) if "this" in low else ():
        unit = m.group(1).lower()
        start = {
            "week": _plus(today, -now.weekday()),
            "weekend": _plus(today, -((now.weekday() - 5) % 7)),
            "month": today.replace(day=1),
            "year": today.replace(month=1, day=1),
        }[unit]
        out.append((m.start(), TimeWindow(_plus(start, -1), _plus(now, 1), m.group(0))))
    recent = lastish or _has(low, "recent", "lately", "these")
    for m in _RECENT.finditer(question) if recent else ():
        unit = (m.group(2) or "").lower().rstrip("s")
        if unit:
            span = _qty(m.group(1) or "1") * _UNIT_DAYS[unit]
            if not m.group(1):
                span = max(span, 3 * _UNIT_DAYS[unit])  # "the past weeks"
        else:
            span = 30.0  # "recently", "lately"
        out.append((m.start(), TimeWindow(_plus(now, -span), _plus(now, 1), m.group(0))))
    for m in _MONTH_DAY.finditer(question) if months and digits else ():
        named = m.group(1) or m.group(4)
        year = int(m.group(5)) if m.group(5) else None
        date = _date(_month(named), int(m.group(2) or m.group(3)), year, now)
        if date is not None:
            out.append((m.start(), _one_day(date, m.group(0))))
    for m in _IN_MONTH.finditer(question) if months else ():
        month = _month(m.group(1) or m.group(3))
        named_year = m.group(2) or m.group(4)
        year = int(named_year) if named_year else (now.year if month <= now.month else now.year - 1)
        start = _at(year, month, 1, now.tzinfo)
        end = _at(year + month // 12, month % 12 + 1, 1, now.tzinfo)
        out.append((m.start(), TimeWindow(_plus(start, -2), _plus(end, 2), m.group(0))))
    for m in _NUM_DATE.finditer(question) if "/" in low else ():
        raw_year = m.group(3)
        year = (int(raw_year) + (2000 if len(raw_year) == 2 else 0)) if raw_year else None
        month, mday = int(m.group(1)), int(m.group(2))
        date = _date(month, mday, year, now) if 1 <= month <= 12 else None
        if date is not None:
            out.append((m.start(), _one_day(date, m.group(0))))
    for m in _IN_YEAR.finditer(question) if digits else ():
        year, tz = int(m.group(1)), now.tzinfo
        out.append(
            (m.start(), TimeWindow(_at(year, 1, 1, tz), _at(year + 1, 1, 1, tz), m.group(0)))
        )
    return out


def _one_day(day: datetime, phrase: str) -> TimeWindow:
    """The window of an expression naming one day: the day, a day each side for slack."""
    return TimeWindow(_plus(day, -1), _plus(day, 2), phrase, day)


def _last(unit: str, now: datetime, today: datetime, phrase: str) -> TimeWindow:
    if unit == "week":
        start = _plus(today, -(now.weekday() + 7))
        return TimeWindow(_plus(start, -2), _plus(start, 9), phrase)
    if unit == "weekend":
        back = (now.weekday() - 5) % 7 or 7
        if now.weekday() == 6:  # on a Sunday, "last weekend" is the one before
            back += 7
        saturday = _plus(today, -back)
        return TimeWindow(_plus(saturday, -1), _plus(saturday, 3), phrase)
    if unit == "month":
        first = today.replace(day=1)
        prev = _plus(first, -1).replace(day=1)
        return TimeWindow(_plus(prev, -3), _plus(first, 3), phrase)
    start = _at(now.year - 1, 1, 1, now.tzinfo)
    end = _at(now.year, 1, 1, now.tzinfo)
    return TimeWindow(_plus(start, -7), _plus(end, 7), phrase)


def _date(month: int, day: int, year: int | None, now: datetime) -> datetime | None:
    """The date, in the given year or else the most recent one up to ``now``."""
    try:
        if year is not None:
            return datetime(year, month, day, tzinfo=now.tzinfo)
        when = datetime(now.year, month, day, tzinfo=now.tzinfo)
        return when if when <= _plus(now, 1) else when.replace(year=now.year - 1)
    except ValueError:
        return None


def time_order(question: str) -> str | None:
    """ "newest" when the question asks for the current state of something that
    changes ("Where do I live now?"), "oldest" when it asks for the first or former
    one ("Where did I initially keep my sneakers?"), None otherwise."""
    newest, oldest = _NEWEST.search(question), _OLDEST.search(question)
    if newest and not oldest:
        return "newest"
    if oldest and not newest:
        return "oldest"
    return None
