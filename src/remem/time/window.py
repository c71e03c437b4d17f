"""When a question is about: the window its time words name, and its order words.

"What did I do last Saturday?", "in May", "two weeks ago", "between March and May":
:func:`time_window` reads a question by the same rules as a memory's event times
(``events.read_times``: ``patterns.py`` finds the expressions, ``resolve.py`` turns
them into days), resolved against the moment it is asked, with what differs for
questions: they are mostly in the past tense about the past, so a bare weekday,
month or day number with no tense cue points back ("anything on Saturday?" is the
Saturday before); a habit ("usually on Saturday") and a name ("Saturday Night Live",
"a gift to May") name no time; and questions ask about stretches reaching up to now
("recently", "lately", "in the past two weeks") that memories, which say what
happened, rarely name (``remem_bench/data/time_expressions.jsonl`` labels "recently" in a
memory as naming no time). A question asking for a duration ("how many days ago did
I ...?") names a unit, not a time: no pattern takes a count it does not know.

The window is exact (``start``, ``end``, ``granularity``, as the development set
``remem_bench/data/question_windows.jsonl`` labels it); ranking reads it with slack
(:meth:`TimeWindow.reach`), because a memory's time is when it was said, often a day
or more after what it tells, and people say "a week ago" of eight or ten days.

Order words are separate (:func:`time_order`): "currently", "now", "the latest" ask
for the newest of several memories on a topic, "first", "initially", "used to" for
the oldest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from .anchors import Candidate, find_anchored, resolve_anchored
from .calendar import LAST_DAY, as_datetimes, day_number
from .events import read_times
from .patterns import Found, quantity
from .resolve import AHEAD, BACK

DAY = timedelta(days=1)
#: the slack a window of each granularity gets each side when ranking (days): a
#: memory tells of a day a day or so after it, of a week or a month within days of
#: its edges, of a year within a week or so
_SLACK = {"day": 1.0, "week": 2.0, "span": 1.0, "month": 3.0, "year": 7.0}
#: an "N units ago" is looser than its unit: a quarter of the span back, at least
#: the unit's own slack ("10 days ago" of 8 to 12 days)
_OFFSET_SLACK = 0.25
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30.44, "year": 365.25}
_QTY = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several)"
)
#: "recently" and "lately" reach back a month
_RECENT_DAYS = 30
_RECENT = re.compile(
    rf"\b(?:recently|lately|(?:in|over|during|within)\s+the\s+(?:last|past)\s+"
    rf"(?:{_QTY}\s+)?(day|week|month|year)s?)\b(?!\s+(?:of|before|after)\b)",
    re.I,
)
_NEWEST = re.compile(
    r"\b(currently|current|now|latest|most\s+recent(?:ly)?|these\s+days|still|anymore|"
    r"at\s+the\s+moment|nowadays|end(?:ed|s)?\s+up|in\s+the\s+end|eventually|finally)\b",
    re.I,
)
_OLDEST = re.compile(
    r"\b(initially|originally|at\s+first|used\s+to|formerly|in\s+the\s+beginning)\b",
    re.I,
)


@dataclass(frozen=True)
class TimeWindow:
    """The question is about ``[start, end)`` (local midnights in the zone of the
    moment it is asked), as precise as ``granularity``; ``phrase`` is the expression
    it came from (for explanations), ``slack_days`` how far either side ranking still
    counts a memory as inside (:meth:`reach`)."""

    start: datetime
    end: datetime
    phrase: str
    granularity: str = "span"
    slack_days: float = 1.0
    #: whether it names a time still to come ("tonight", "tomorrow", "next week"):
    #: nothing was said there yet, so only what memories tell of counts as inside
    #: ("What should I watch tonight?" is not about what was said today)
    ahead: bool = False
    #: whether its words name a calendar time without a year ("in August", "on
    #: May 3", "during the summer"): which year is a reading of the moment asked,
    #: which :meth:`placed` may revise; "last summer" or "yesterday" name no
    #: calendar time but one counted from the moment asked, and stay
    yearless: bool = False

    @property
    def day(self) -> datetime | None:
        """The start of the one day it names ("last Saturday", "on May 3",
        "yesterday"); None for longer windows."""
        return self.start if self.granularity == "day" else None

    def contains(self, when: datetime) -> bool:
        return self.start <= when < self.end

    def distance_days(self, when: datetime) -> float:
        """Days from ``when`` to the window (0 inside)."""
        if when < self.start:
            return (self.start - when) / DAY
        if when >= self.end:
            return (when - self.end) / DAY
        return 0.0

    def placed(self, latest: datetime) -> TimeWindow:
        """This window, if it is :attr:`yearless` and begins after ``latest`` (the
        newest memory it could be about), moved back by whole years until it begins
        at or before it: "When did Sam go to a parade in August?", asked in 2026 of
        a diary that ends in October 2023, is about August 2023, the last August the
        memories reach; the August of 2026 holds nothing they could tell. A window
        that memories reach stays as read (the nearest August is the one meant). A
        window of a time to come (:attr:`ahead`: "Where am I going in June?") moves
        to the year whose June is nearest the newest memory, which may be after it:
        asked of memories ending in mid-May, the coming June, that plans were made
        for, not last year's. Itself when it cannot move (a 29 February with no leap
        year back there)."""
        if not self.yearless or self.start <= latest:
            return self
        years = self.start.year - latest.year  # to ``latest``'s year, or one more
        if self.ahead:  # a time to come: the one nearest the memories, after them or not
            near = [w for back in (years - 1, years, years + 1) if (w := self._back(back))]
            return min(near, key=lambda w: abs(w.start - latest), default=self)
        for back in (years, years + 1):
            moved = self._back(back)
            if moved is None:
                return self
            if moved.start <= latest:
                return moved
        return self

    def _back(self, years: int) -> TimeWindow | None:
        """This window ``years`` earlier; None where that day does not exist (29
        February, or before year 1)."""
        try:
            start = self.start.replace(year=self.start.year - years)
            end = self.end.replace(year=self.end.year - years)
        except ValueError:
            return None
        return replace(self, start=start, end=end)

    def reach(self) -> tuple[datetime, datetime]:
        """The window with its slack either side, held inside years 1 to 9999."""
        return _plus(self.start, -self.slack_days), _plus(self.end, self.slack_days)


def telling_lag_days(granularity: str) -> float:
    """The part of a window's slack (days each side) that is the lag between an event
    and its telling, by the window's granularity; a window read from "N units ago"
    has more slack, the looseness of the words themselves (``time/arrange.py`` counts
    only that part inside a long window)."""
    return _SLACK.get(granularity, 1.0)


def _plus(t: datetime, days: float) -> datetime:
    try:
        return t + days * DAY
    except OverflowError:
        return (datetime.max if days > 0 else datetime.min).replace(tzinfo=t.tzinfo)


#: words that name a time still to come, though it may have begun ("tonight")
_FORWARD = re.compile(r"(?:tonight|tomorrow|the day after tomorrow|next|(?:this )?coming)\b", re.I)


def time_window(question: str, now: datetime) -> TimeWindow | None:
    """The window the question's first time expression names, relative to ``now``
    (an aware datetime; a naive one is read as it stands); None when it names none,
    or only a time that does not exist (30 February) or falls outside years 1 to
    9999. A two-step expression ("two days after the wedding") is not read here:
    its anchor is another memory (``anchors.py``)."""
    found: list[tuple[int, TimeWindow]] = []
    for t, f in read_times(question, now, asking=True):
        slack = _SLACK.get(t.granularity, 1.0)
        if f.kind == "offset":
            span = abs(int(str(f.fields[0]))) * _UNIT_DAYS[str(f.fields[1])]
            slack = max(slack, _OFFSET_SLACK * span)
        ahead = t.start > now or _FORWARD.match(t.words) is not None
        window = TimeWindow(
            t.start, t.end, t.words, t.granularity, slack, ahead, yearless=_yearless(f)
        )
        found.append((f.start, window))
    recent = _recent(question, now)
    if recent is not None:
        found.append(recent)
    if not found:
        return None
    # the first expression wins; where two start together ("in the past week" and
    # "past week"), the longer
    return min(found, key=lambda x: (x[0], x[1].start - x[1].end))[1]


#: season words that count from the moment asked ("last summer"), not the calendar
_DEICTIC = BACK | AHEAD | {"this"}


def _yearless(f: Found) -> bool:
    """Whether expression ``f`` names a month, a season or a day of the calendar and
    no year (``TimeWindow.yearless``)."""
    if f.kind in ("month", "monthday"):
        return f.fields[0] is None
    if f.kind == "monthweek":
        return f.fields[2] is None
    if f.kind == "season":
        which, _, year, ago = f.fields
        return year is None and ago is None and str(which) not in _DEICTIC
    return False


def question_window(
    question: str, now: datetime, candidates: Iterable[Candidate] = ()
) -> TimeWindow | None:
    """The window a question names: a two-step one when it has a two-step expression
    (its anchor found among ``candidates``, else no window: never the moment of
    asking in its place), otherwise :func:`time_window`'s. Public
    (docs/usage.md#python-quickstart)."""
    if find_anchored(question) is not None:
        return two_step_window(question, now, candidates)
    return time_window(question, now)


def two_step_window(
    question: str, now: datetime, candidates: Iterable[Candidate]
) -> TimeWindow | None:
    """The window of the question's two-step expression ("what did I do two days
    after the wedding?", ``anchors.py``), its anchor found among ``candidates`` (the
    user's memories its search found: text, when said, event times); None when it
    names none or the anchor is in none of them. ``phrase`` says what it was anchored
    on, for explanations."""
    anchored = find_anchored(question)
    if anchored is None:
        return None
    found = resolve_anchored(anchored, candidates, now)
    if found is None:
        return None
    start, end, gran, anchor_text = found
    phrase = f"{anchored.words} ({anchor_text[:60]})"
    return TimeWindow(start, end, phrase, gran, _SLACK.get(gran, 1.0))


def _recent(question: str, now: datetime) -> tuple[int, TimeWindow] | None:
    """ "recently", "lately", "in the past two weeks": from that far back to the end of
    today (a day-aligned span)."""
    low = question.lower()
    if not any(w in low for w in ("recent", "lately", "last", "past")):
        return None
    m = _RECENT.search(question)
    if m is None:
        return None
    today = now.date().toordinal()
    unit = (m.group(2) or "").lower()
    count = quantity(m.group(1)) if m.group(1) else 1
    if not unit:
        first = today - _RECENT_DAYS
    elif unit in ("day", "week"):
        first = today - count * (7 if unit == "week" else 1)
    else:
        first = _months_back(now, count * (12 if unit == "year" else 1))
    times = as_datetimes(int(first), today + 1, now.tzinfo)
    if times is None:
        return None
    return m.start(), TimeWindow(times[0], times[1], m.group(0), "span", 0.0)


def _months_back(now: datetime, months: int) -> int:
    """The day number of the same day of the month ``months`` back (the month's last
    day where it is shorter: 31 May less three months is 29 February), or 0 before
    year 1."""
    number = now.year * 12 + now.month - 1 - months
    year, month = divmod(number, 12)
    for day in range(now.day, 27, -1) if now.day > 28 else (now.day,):
        found = day_number(year, month + 1, day)
        if found is not None:
            return min(found, LAST_DAY)
    return 0


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
