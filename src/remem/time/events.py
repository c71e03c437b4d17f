"""Event time: the times a memory talks about, resolved against when it was said.

"I'm picking up the keys on Saturday", said on Monday 6 May 2024, talks about
Saturday 11 May; "I signed the contract yesterday" about the day before it was said.
:func:`event_times` reads a memory's text once, at ingest, into :class:`EventTime`
intervals; the store keeps them beside the memory, the time stage matches a
question's window against them and the reader answers "when" with them.

This first version reads the expressions ``timeexpr.mentioned_windows`` knows; the
extractor is being rebuilt (issue 36) and keeps this interface.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..timeexpr import mentioned_windows

#: how precise an event time is
GRANULARITIES = ("day", "week", "month", "year", "span")


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
    """The times ``text`` talks about, said at ``said_at`` (an aware datetime), in
    the order they appear."""
    out = []
    for w in mentioned_windows(text, said_at):
        days = (w.end - w.start).total_seconds() / 86_400
        grain = "day" if days <= 1 else "week" if days <= 7 else "month" if days <= 31 else "year"
        out.append(EventTime(w.start, w.end, grain, w.phrase, 0.5))
    return out
