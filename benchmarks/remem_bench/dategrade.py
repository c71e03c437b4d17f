"""Grading a "when" answer by the time it states, not by its words.

LoCoMo's gold dates for category 2 are written relative to a session's date ("The
Friday before 15 July 2023", "The week before 9 June 2023"); a reply stating the
same day absolutely ("Friday 14 July 2023") shares only some of their tokens, and a
wrong day in the right month shares most of them. Token F1 and containment grade
neither honestly. :func:`date_right` reads both the gold and the reply into
intervals and calls the reply right when what it states lies inside the gold's
interval (as precise as the gold or more: "Friday 14 July" is right for "the week
before 15 July", "July 2023" is not right for "14 July 2023").

The grader reads dates with its own few rules, not remem's event-time reader
(``remem/time/events.py``): a grader sharing code with what it grades could not
catch that code's bugs. It reads what LoCoMo's golds and the readers' replies write:
a day ("14 July 2023", "July 14, 2023", a weekday before either, "2023-07-14"),
days of one month ("November 5-6, 2022"), a month, a season
or a year, "the week of" a day, "A to B", and a lead relative to a day ("the Friday
before", "the week after", "the weekend before"), counted as a speaker on that day
would mean it (the week before: the Monday-to-Sunday week before the day's own).
Golds it cannot read ("a few years before 2023", "first week of April", "end of
October", "winter 2023", whose year is ambiguous) are left ungraded (None), and the
report says how many were graded; the tests check the grade on hand-written pairs,
wrong days included.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

Interval = tuple[datetime, datetime]

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
#: meteorological seasons (northern), as first month and months; winter spans two years
_SEASONS = {"spring": (3, 3), "summer": (6, 3), "autumn": (9, 3), "fall": (9, 3)}
_M = "(?P<m>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_Y = r"(?P<y>(?:19|20)\d\d)"
_WD = "(?:" + "|".join(_WEEKDAYS) + ")"
#: one time, as a pattern and the interval its groups make
_TO = r"\s*[-\u2013]\s*(?P<d2>\d{1,2})"
_DAY = [
    re.compile(rf"\b(?P<d>\d{{1,2}}){_TO}\s+{_M}\s+{_Y}\b", re.I),  # 5-6 November 2022
    re.compile(rf"\b{_M}\s+(?P<d>\d{{1,2}}){_TO}\s+{_Y}\b", re.I),  # November 5-6 2022
    re.compile(rf"\b(?:{_WD}\s+)?(?P<d>\d{{1,2}})\s+{_M}\s+{_Y}\b", re.I),
    re.compile(rf"\b(?:{_WD}\s+)?{_M}\s+(?P<d>\d{{1,2}})\s+{_Y}\b", re.I),
    re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<n>\d\d)-(?P<d>\d\d)\b"),  # ISO 8601
]
_MONTH = re.compile(rf"\b{_M}\s+{_Y}\b", re.I)
_SEASON = re.compile(rf"\b(?P<s>{'|'.join(_SEASONS)})\s+(?:of\s+)?{_Y}\b", re.I)
_YEAR = re.compile(rf"(?:^|\bin\s+){_Y}\b", re.I)
_LEAD = re.compile(
    rf"^(?:on\s+)?(?:the\s+|a\s+)?(?P<what>week|weekend|day|{_WD})\s+(?P<dir>before|after)\s+"
    r"(?P<anchor>.+)$",
    re.I,
)
_WEEK_OF = re.compile(r"^the\s+week\s+of\s+(?P<day>.+)$", re.I)
_SPAN = re.compile(r"^(?P<a>.+?)\s+to\s+(?P<b>.+)$", re.I)
#: golds that narrow a time ("early August": not all of August)
_HEDGED = re.compile(r"\b(early|mid|late|end|beginning|first|second|third|last)\b", re.I)
_FILLER = frozenset(("in", "on", "the", "of", "around", "about", *_WEEKDAYS))


def _clean(text: str) -> str:
    """The gold's typos of form aside ("3June", "14September", "October 13th,")."""
    text = re.sub(r"(\d{1,2})(?:st|nd|rd|th)\b", r"\1", text.strip().rstrip("."))
    text = re.sub(r"(\d)([A-Za-z])|([A-Za-z])\.(\d)", r"\1\3 \2\4", text)
    return " ".join(text.replace(",", " ").split())


def _months(year: int, month: int, n: int) -> Interval:
    """``n`` months from the first of ``month``."""
    end_year, end_month = divmod(month - 1 + n, 12)
    return datetime(year, month, 1), datetime(year + end_year, end_month + 1, 1)


def _interval(match: re.Match[str]) -> Interval | None:
    """The interval one matched time names (None: no such day, as 31 June)."""
    found = match.groupdict()
    year = int(found["y"])
    if found.get("s"):
        first, n = _SEASONS[found["s"].lower()]
        return _months(year, first, n)
    if found.get("m") is None and found.get("n") is None:
        return datetime(year, 1, 1), datetime(year + 1, 1, 1)
    month = int(found["n"]) if found.get("n") else _MONTHS[found["m"].lower()]
    if found.get("d") is None:
        return _months(year, month, 1)
    try:
        day = datetime(year, month, int(found["d"]))
        last = datetime(year, month, int(found.get("d2") or found["d"]))
    except ValueError:
        return None
    return (day, last + timedelta(days=1)) if day <= last else None


def _times(text: str) -> list[tuple[re.Match[str], Interval | None]]:
    """Every time ``text`` names, the most precise reading of each place first."""
    out: list[tuple[re.Match[str], Interval | None]] = []
    taken: list[tuple[int, int]] = []
    for pattern in (*_DAY, _MONTH, _SEASON, _YEAR):
        for m in pattern.finditer(text):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                taken.append(m.span())
                out.append((m, _interval(m)))
    return out


def _one(text: str) -> Interval | None:
    """The one time ``text`` states, when it states one and nothing else ("first
    week of April 2023" states more than April 2023: not read)."""
    found = _times(text)
    if len(found) != 1:
        return None
    match, interval = found[0]
    rest = (text[: match.start()] + " " + text[match.end() :]).lower().split()
    return interval if all(w in _FILLER for w in rest) else None


def _day(text: str) -> datetime | None:
    found = _one(text)
    return found[0] if found is not None and found[1] - found[0] == timedelta(days=1) else None


def _relative(what: str, before: bool, anchor: datetime) -> Interval:
    """ "The <what> before/after <anchor>", as said on the anchor day."""
    step = -1 if before else 1
    if what == "day":
        day = anchor + timedelta(days=step)
        return day, day + timedelta(days=1)
    if what == "week":  # the calendar week (Monday to Sunday) before or after the anchor's
        monday = anchor - timedelta(days=anchor.weekday()) + timedelta(days=7 * step)
        return monday, monday + timedelta(days=7)
    if what == "weekend":  # the Saturday and Sunday wholly before, or after, the anchor
        if before:
            saturday = anchor - timedelta(days=(anchor.weekday() - 5) % 7)
            if saturday + timedelta(days=2) > anchor:  # said on that weekend: the one before
                saturday -= timedelta(days=7)
        else:
            saturday = anchor + timedelta(days=(5 - anchor.weekday()) % 7 or 7)
        return saturday, saturday + timedelta(days=2)
    day = anchor + timedelta(days=step)
    while _WEEKDAYS[day.weekday()] != what:
        day += timedelta(days=step)
    return day, day + timedelta(days=1)


def read_time(text: str) -> Interval | None:
    """The interval a gold or a reply states, or None when it states none these
    rules read for certain (several times, a vague one, a relative one without anchor)."""
    text = _clean(text)
    lead = _LEAD.match(text)
    if lead:
        anchor = _day(lead["anchor"])
        if anchor is None:
            return None
        return _relative(lead["what"].lower(), lead["dir"].lower() == "before", anchor)
    week = _WEEK_OF.match(text)
    if week:
        day = _day(week["day"])
        return (day, day + timedelta(days=7)) if day is not None else None
    span = _SPAN.match(text)
    if span:
        a, b = _day(span["a"]), _day(span["b"])
        return (a, b + timedelta(days=1)) if a is not None and b is not None and a <= b else None
    return _one(text)


def date_right(prediction: str, gold: str) -> bool | None:
    """Whether the time ``prediction`` states lies inside the gold's interval; None
    when the gold states no time these rules read (the question is then not graded)."""
    if _HEDGED.search(gold):
        return None
    want = read_time(gold)
    if want is None:
        return None
    got = read_time(prediction)
    if got is not None:
        return want[0] <= got[0] and got[1] <= want[1]
    # a sentence around the date: every time it states must be inside
    said = [t for _, t in _times(_clean(prediction)) if t is not None]
    return bool(said) and all(want[0] <= start and end <= want[1] for start, end in said)
