"""Grading a "when" answer by the time it states, not by its words.

LoCoMo's gold dates for category 2 are written relative to a session's date ("The
Friday before 15 July 2023", "The week before 9 June 2023"); a reply stating the
same day absolutely ("Friday 14 July 2023") shares only some of their tokens, and a
wrong day in the right month shares most of them. Token F1 and containment grade
neither honestly. :func:`date_right` reads both the gold and the reply into
intervals and calls the reply right when what it states lies inside the gold's
interval (as precise as the gold or more: "Friday 14 July" is right for "the week
before 15 July", "July 2023" is not right for "14 July 2023").

The gold is read by remem's own event-time rules (``time/events.py``), its relative
lead rewritten to what a speaker on the anchor day would have said ("the Friday
before 15 July 2023" is "last Friday" said on 15 July 2023). Golds the rules cannot
read ("a few years before 2023", "first week of April", "end of October") are left
ungraded (None), and the report says how many were graded. The same rules read the
reply: a grade by the rules being measured would flatter them, so the rewrites are
written from the gold phrasing only, and the tests check the grade on hand-written
pairs, wrong days included.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from remem.time.events import EventTime, event_times
from remem.time.patterns import WEEKDAYS

#: the day a reply's absolute dates are read from (any day reads them alike)
_NEUTRAL = datetime(2000, 1, 1)
_WD = f"({'|'.join(WEEKDAYS)})"
_LEAD = re.compile(
    rf"^(?:on\s+)?(?:the\s+|a\s+)?(?P<what>week|weekend|day|{_WD})\s+(?P<dir>before|after)\s+"
    r"(?P<anchor>.+)$",
    re.I,
)
_WEEK_OF = re.compile(r"^the\s+week\s+of\s+(?P<day>.+)$", re.I)
_SPAN = re.compile(r"^(?P<a>.+?)\s+to\s+(?P<b>.+)$", re.I)
#: only times the rules are sure of are graded ("7 May" without a year is a guess)
_SURE = 0.9
#: golds that narrow a time the rules read whole ("early August": not all of August)
_HEDGED = re.compile(r"\b(early|mid|late|end|beginning|first|second|third|last)\b", re.I)
_BARE_YEAR = re.compile(r"^(?:in\s+)?(\d{4})$", re.I)


def _clean(text: str) -> str:
    """The gold's typos of form aside ("3June", "14September", "October 13th,")."""
    text = re.sub(r"(\d{1,2})(?:st|nd|rd|th)\b", r"\1", text.strip().rstrip("."))
    text = re.sub(r"(\d)([A-Za-z])|([A-Za-z])\.(\d)", r"\1\3 \2\4", text)
    return " ".join(text.replace(",", " ").split())


_FILLER = frozenset(("in", "on", "the", "of", "around", "about"))


def _one(text: str, said: datetime) -> EventTime | None:
    """The one time ``text`` states, when it states one and nothing else ("first
    week of April 2023" states more than April 2023: not read)."""
    found = event_times(text, said)
    if len(found) != 1:
        return None
    rest = text.replace(found[0].words, " ").lower().split()
    return found[0] if all(w in _FILLER or w in WEEKDAYS for w in rest) else None


def _day(text: str) -> datetime | None:
    found = _one(text, _NEUTRAL)
    return found.start if found is not None and found.granularity == "day" else None


def read_time(text: str) -> tuple[datetime, datetime] | None:
    """The interval a gold or a reply states, or None when it states none the rules
    read for certain (several times, a vague one, a relative one without anchor)."""
    text = _clean(text)
    lead = _LEAD.match(text)
    if lead:
        anchor = _day(lead["anchor"])
        if anchor is None:
            return None
        step = "last" if lead["dir"].lower() == "before" else "next"
        what = lead["what"].lower()
        phrase = {"day": "yesterday" if step == "last" else "tomorrow"}.get(what, f"{step} {what}")
        found = _one(phrase, anchor)
        return (found.start, found.end) if found is not None else None
    week = _WEEK_OF.match(text)
    if week:
        day = _day(week["day"])
        return (day, day + timedelta(days=7)) if day is not None else None
    span = _SPAN.match(text)
    if span:
        a, b = _day(span["a"]), _day(span["b"])
        return (a, b + timedelta(days=1)) if a is not None and b is not None and a <= b else None
    year = _BARE_YEAR.match(text)
    found = _one(f"in {year[1]}" if year else text, _NEUTRAL)
    if found is None or found.confidence < _SURE:
        return None
    return found.start, found.end


def date_right(prediction: str, gold: str) -> bool | None:
    """Whether the time ``prediction`` states lies inside the gold's interval; None
    when the gold states no time the rules read (the question is then not graded)."""
    if _HEDGED.search(gold):
        return None
    want = read_time(gold)
    if want is None:
        return None
    got = read_time(prediction)
    if got is not None:
        return want[0] <= got[0] and got[1] <= want[1]
    # a sentence around the date: every time it states must be inside
    said = [e for e in event_times(_clean(prediction), _NEUTRAL) if e.confidence >= _SURE]
    return bool(said) and all(want[0] <= e.start and e.end <= want[1] for e in said)
