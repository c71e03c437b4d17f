"""Event time: the times a memory talks about, resolved against when it was said.

"I'm picking up the keys on Saturday", said on Monday 6 May 2024, talks about
Saturday 11 May; "I signed the contract yesterday" about the day before it was said.
:func:`event_times` reads a memory's text once, at ingest, into :class:`EventTime`
intervals; the store keeps them beside the memory, the time stage matches a
question's window against them and the reader answers "when" with them.

Why remem's own rules and not a library (issue 36; ``scripts/time_extractors.py`` on
the hand-labelled development set ``remem_bench/data/time_expressions.jsonl``, 191 lines,
and the held-out ``time_expressions_heldout.jsonl``, 42 lines written before the
rules were tuned): dateparser (``search_dates``, any ``PREFER_DATES_FROM``), ctparse,
timefhuman and parsedatetime get 30 to 44% of the development lines exactly (most of
it the lines naming no time), 46 to 67% of the lines naming only single days, and 7
to 14 of the 18 absolute dates; these rules get all of them (and 42/42 held out).
The libraries read no tense - "I went hiking on Saturday" comes out as the coming
Saturday - give no weeks, months, weekends or ranges as intervals, and cost 0.4 to
5 ms a line against about 0.04 ms here, where ingest can spare about 0.1 ms a memory. Even
absolute dates, where a library might have won, lost. So: patterns
(:mod:`.patterns`) find the expressions, the clause's tense (:mod:`.tense`) gives
bare weekdays, day numbers and months their direction, and :mod:`.resolve` turns
them into calendar days under the conventions written there; :mod:`.calendar` keeps
every result inside years 1 to 9999.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from .calendar import as_datetimes
from .patterns import Found, find, named, titled
from .resolve import Days, resolve
from .tense import FUTURE, PAST, Clauses, direction, habitual

#: how precise an event time is
GRANULARITIES = ("day", "week", "month", "season", "year", "span")

_TENSELESS = frozenset(("dayword", "offset", "year", "date"))  # seasons read tense
_RANGE_ENDS = frozenset(("weekday", "ordinal", "weekday_ordinal", "monthday", "month", "year"))
_RANGE_START = re.compile(r"\b(from|between)\s+$", re.I)
_RANGE_GAP = re.compile(r"\s*(to|until|till|through|and|-|–)\s*", re.I)


@dataclass(frozen=True)
class EventTime:
    """One time a text talks about: ``[start, end)`` in the zone of the moment it was
    said, how precise it is (``granularity``, one of :data:`GRANULARITIES`), the words
    it came from and how sure the reading is (0 to 1)."""

    start: datetime
    end: datetime
    granularity: str
    words: str
    confidence: float = 1.0


def event_times(text: str, said_at: datetime) -> list[EventTime]:
    """The times ``text`` talks about, said at ``said_at`` (an aware datetime; a
    naive one is read as it stands), in the order they appear. Never raises on any
    text or any ``said_at`` of years 1 to 9999: what falls outside them is clamped,
    or left out when nothing of it is left. Public (docs/usage.md#python-quickstart)."""
    return [t for t, _ in read_times(text, said_at)]


def read_times(
    text: str, said_at: datetime, *, asking: bool = False
) -> list[tuple[EventTime, Found]]:
    """:func:`event_times` with the expression each came from (a range's first).

    ``asking``: ``text`` is a question (``window.py``). Questions are mostly asked in
    the past tense about the past, and often name no verb near the time ("anything
    on Saturday?"), so a bare weekday, day number, month or "the weekend" with no
    tense cue points back instead of forward; a bare weekday in a habitual clause
    ("what do I *usually* do on Saturday?") names no day, and a weekday or month
    that is part of a name ("Saturday Night Live", "a gift to May") no time
    (:func:`.patterns.named`)."""
    found = find(text)
    if asking:
        found = [f for f in found if not named(text, f)]
    else:  # a title is a title in a memory too ("Saturday Night Live reruns")
        found = [f for f in found if not titled(text, f)]
    if not found:
        return []
    today, tz = said_at.date().toordinal(), said_at.tzinfo
    clauses = Clauses(text)
    out: list[tuple[EventTime, Found]] = []
    i = 0
    while i < len(found):
        f = found[i]
        nxt = found[i + 1] if i + 1 < len(found) else None
        span = _range(clauses, f, nxt, today, asking) if nxt is not None else None
        days: Days | None
        if span is not None:
            days, start, end = span
            i += 2
        else:
            days, start, end = _days(clauses, f, today, asking), f.start, f.end
            i += 1
        times = as_datetimes(days[0], days[1], tz) if days else None
        if times is not None and days is not None:
            out.append((EventTime(times[0], times[1], days[2], text[start:end], days[3]), f))
    return out


def _days(clauses: Clauses, f: Found, today: int, asking: bool = False) -> Days | None:
    if f.kind == "offset" and int(str(f.fields[0])) > 0 and _lasting(clauses, f, asking):
        return None
    tense = 0 if f.kind in _TENSELESS else direction(clauses, f.start, f.end)
    if asking and tense != FUTURE and _bare(f):
        if f.kind == "weekday" and habitual(clauses, f.start, f.end):
            return None  # "what do I usually do on Saturday?": a habit, no day
        tense = tense or PAST  # a question with no tense cue asks about the past
    return resolve(f, today, tense)


def _lasting(clauses: Clauses, f: Found, asking: bool) -> bool:
    """Whether "in N units" says how long, not when: "in a day" always ("twice in a
    day"; a day ahead is "tomorrow"), in a past clause ("I read it in two days"), and
    in a question without a future cue ("How many followers did I gain in two
    weeks?"); "I'll move in two weeks" is a time."""
    if int(str(f.fields[0])) == 1 and f.fields[1] == "day":
        return True
    tense = direction(clauses, f.start, f.end)
    return tense == PAST or (asking and tense != FUTURE)


def _bare(f: Found) -> bool:
    """Whether ``f`` has no direction of its own (a bare weekday, day number, month
    or date without a year, "the weekend")."""
    if f.kind == "weekday":
        return f.fields[0] == ""
    if f.kind in ("month", "monthday"):
        return f.fields[0] is None
    if f.kind in ("ordinal", "weekday_ordinal"):
        return True
    return f.kind == "unit" and f.fields[0] == "the"


def _range(
    clauses: Clauses, a: Found, b: Found, today: int, asking: bool = False
) -> tuple[Days, int, int] | None:
    """ "from the 9th to the 21st", "between Monday and Wednesday": one span whose end
    is read forward from its start; None when ``a`` and ``b`` are no such pair."""
    if a.kind not in _RANGE_ENDS or b.kind not in _RANGE_ENDS:
        return None
    text = clauses.text
    opener = _RANGE_START.search(text, max(0, a.start - 9), a.start)
    gap = _RANGE_GAP.fullmatch(text, a.end, b.start)
    if opener is None or gap is None:
        return None
    if (gap.group(1).lower() == "and") != (opener.group(1).lower() == "between"):
        return None
    first = _days(clauses, a, today, asking)
    if first is None:
        return None
    last = resolve(b, first[0], FUTURE)
    if last is None or last[1] <= first[0]:
        return None
    days = (first[0], last[1], "span", min(first[3], last[3]))
    return days, opener.start(), b.end
