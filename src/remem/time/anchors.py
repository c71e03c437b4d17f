"""Two-step times: a time anchored on another event ("two days after the wedding").

"What did I do two days after the wedding?", "the week before my birthday", "a day
before the trip to Lisbon", "since the move": the words give an offset from an event,
not from the moment they are said, so the moment alone resolves nothing. Two steps:

1. :func:`find_anchored` reads the expression: the offset (a count of days, weeks,
   months or years, "the day/week/weekend", or "since"), which way it points and the
   anchor phrase ("the wedding", "my birthday", "the trip to Lisbon"), unresolved.
2. :func:`resolve_anchored` finds the anchor among other memories: one whose words
   name the anchor's head noun ("wedding"; "moved" for "move") and that has an event
   time of its own ("my cousin's wedding is on 14 June"), and derives the interval
   from it (:func:`derive`). Among several, the one said nearest before the moment
   the anchored words were said (for a question, the most recent before it is asked)
   wins.

Where each step runs: a memory's two-step times are read at ingest and stored
unresolved beside its event times (``stored.py``, table ``event_anchors``); when a
question names a window, the time stage resolves those of its candidates on the
memories the lexical index finds for the anchor phrase, and counts the result as
what the memory tells of ("I went hiking two days after the wedding", said days
later, is found by "what did I do on April 22?"). A question's own two-step time
("what did I do two days after the wedding?") is resolved by the time stage on the
memories its search found and those the lexical index finds for the anchor phrase
(``stage.py``), and is its window.

How far it goes: one hop (an anchor that is itself anchored, "the day after the
party two days after the wedding", is not followed), one user's memories, found by
the anchor's head noun (``mentions``: "my cousin's wedding" and "Anna's wedding" are
the same anchor; the one said nearest before wins); the anchor's first short event
time (a day, a weekend, a span of up to a week: a memory naming only a month or a
year anchors nothing precise enough). An anchor not found gives no window, never a
guess from the moment of asking. Resolved times are not stored: a later memory
naming the anchor (or a deleted one) changes the answer at the next question.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from .calendar import as_datetimes, month_of, month_span, week_start, year_span
from .events import EventTime
from .patterns import quantity

_QTY = (
    r"(\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"a\s+couple(?:\s+of)?|couple\s+of|a\s+few|few|several)"
)
_AUX = (
    r"can|could|will|would|should|might|must|may|has|have|had|be|been|am|is|are|was|"
    r"were|do|does|did|can't|won't|isn't|wasn't|hasn't|haven't|doesn't|didn't"
)
_STOP = (
    rf"and|but|or|when|while|because|so|{_AUX}|i|we|you|he|she|"
    r"they|it|that|which|who|what|where|how|last|this|next|ago|yesterday|today"
)
# "since the wait can be hard": a clause follows, "since" gives a reason, not a time
_CLAUSE_NEXT = re.compile(rf"\s+(?:{_AUX})\b", re.I)
# the anchor: a determiner, then up to five words, none a clause's next word
_ANCHOR = rf"((?:the|my|our|his|her|their|your)\s+[\w'’-]+(?:\s+(?!(?:{_STOP})\b)[\w'’-]+){{0,4}})"
_OFFSET = re.compile(
    rf"\b(?:{_QTY}\s+(day|week|month|year)s?|the\s+(day|week|weekend|month|year))\s+"
    rf"(before|after)\s+{_ANCHOR}",
    re.I,
)
_SINCE = re.compile(rf"\b(since)\s+{_ANCHOR}", re.I)
_DETERMINERS = frozenset(("the", "my", "our", "his", "her", "their", "your"))
#: anchor phrases that are themselves times, read by the one-step rules
_TIME_HEADS = frozenset(
    ("day", "week", "weekend", "month", "year", "morning", "evening", "night", "last",
     "time", "beginning", "start", "moment")
)  # fmt: skip
#: words before a head noun that are not it ("my *first* marathon")
_BEFORE_HEAD = frozenset(("first", "second", "third", "last", "new", "big", "little", "own"))
#: event times this long or shorter can anchor a day count (a weekend, a short trip)
_ANCHOR_DAYS = 7


@dataclass(frozen=True)
class Anchored:
    """One two-step expression: ``count`` ``unit``\\s ``relation`` ("before", "after"
    or "since") ``anchor``; ``whole`` is True for "the week before" (the whole unit
    next to the anchor) rather than "a week before" (a point that far away)."""

    start: int
    end: int
    words: str
    count: int
    unit: str
    relation: str
    anchor: str
    whole: bool = False

    @property
    def head(self) -> str:
        """The anchor's head noun: its first word after the determiner and any
        possessor ("wedding", "trip" of "the trip to Lisbon", "graduation" of "my
        sister's graduation")."""
        words = [
            w
            for w in self.anchor.lower().split()
            if w not in _DETERMINERS
            and w not in _BEFORE_HEAD
            and not w.endswith(("'s", "’s"))  # "my sister's X"
        ]
        return words[0] if words else ""


def find_anchored(text: str) -> Anchored | None:
    """The first two-step expression in ``text``; None when it names none."""
    found = all_anchored(text)
    return found[0] if found else None


def all_anchored(text: str) -> list[Anchored]:
    """Every two-step expression in ``text``, in order (a memory's are stored at
    ingest, ``stored.py``)."""
    low = text.lower()
    if not any(w in low for w in ("before", "after", "since")):
        return []
    found = []
    for m in _OFFSET.finditer(text):
        if m.group(1):
            count, unit, whole = quantity(m.group(1)), m.group(2).lower(), False
        else:
            count, unit, whole = 1, m.group(3).lower(), True
        found.append(
            Anchored(
                m.start(), m.end(), m.group(0), count, unit, m.group(4).lower(), m.group(5), whole
            )  # fmt: skip
        )
    for m in _SINCE.finditer(text):
        if _CLAUSE_NEXT.match(text, m.end()):
            continue
        found.append(Anchored(m.start(), m.end(), m.group(0), 0, "day", "since", m.group(2)))
    return sorted((a for a in found if a.head and a.head not in _TIME_HEADS), key=lambda a: a.start)


_RELATIVE_TO = re.compile(r"\b(?:before|after|since)\s+(?:\S+\s+){0,3}$", re.I)


def mentions(anchored: Anchored, text: str) -> bool:
    """Whether ``text`` names the anchor's head noun (its first five letters suffice:
    "moved" for "move", "birthday's" for "birthday") as the event itself: "a pottery
    class after the wedding" tells of something relative to the wedding, and its time
    is not the wedding's."""
    head = anchored.head
    stem = head[:5] if len(head) > 5 else head
    return any(
        not _RELATIVE_TO.search(text, max(0, m.start() - 40), m.start())
        for m in re.finditer(rf"\b{re.escape(stem)}", text, re.I)
    )


def derive(anchored: Anchored, anchor: tuple[int, int], said: int) -> tuple[int, int, str]:
    """The days (first, day after the last, granularity) ``anchored`` names, given its
    anchor's days ``[first, end)``; ``said`` is the day the words were said (where
    "since" runs to)."""
    first, end = anchor
    n, unit = anchored.count, anchored.unit
    if anchored.relation == "since":
        return first, max(said + 1, end), "span"
    after = anchored.relation == "after"
    if anchored.whole:  # the whole unit next to the anchor: "the week before"
        if unit == "day":
            day = end if after else first - 1
            return day, day + 1, "day"
        if unit == "weekend":
            saturday = week_start(end - 1) + 5 if after else week_start(first) - 2
            if after and saturday < end:
                saturday += 7
            return saturday, saturday + 2, "span"
        length = {"week": 7, "month": 30, "year": 365}[unit]
        return (end, end + length, "span") if after else (first - length, first, "span")
    day = (end - 1 + n if after else first - n) if unit == "day" else first
    step = n if after else -n
    if unit == "day":
        return day, day + 1, "day"
    if unit == "week":
        monday = week_start((end - 1 if after else first) + 7 * step)
        return monday, monday + 7, "week"
    if unit == "month":
        return (*month_span(month_of(first) + step), "month")
    return (*year_span(date.fromordinal(first).year + step), "year")


#: one memory the anchor may be found in: its text, when it was said, its event times
Candidate = tuple[str, datetime, Sequence[EventTime]]


def resolve_anchored(
    anchored: Anchored, candidates: Iterable[Candidate], said_at: datetime
) -> tuple[datetime, datetime, str, str] | None:
    """(start, end, granularity, the anchor memory's text) of ``anchored``, said at
    ``said_at``, resolved on the memory among ``candidates`` that names its anchor and
    has a short event time, said nearest before ``said_at`` (or, when none was said
    before, nearest after); None when no candidate does."""
    best: tuple[float, int, int, str] | None = None
    for text, when, times in candidates:
        if not mentions(anchored, text):
            continue
        days = _anchor_days(times)
        if days is None:
            continue
        gap = (said_at - when).total_seconds()
        rank = gap if gap >= 0 else 1e12 - gap  # before the question first
        if best is None or rank < best[0]:
            best = (rank, days[0], days[1], text)
    if best is None:
        return None
    first, end, gran = derive(anchored, (best[1], best[2]), said_at.date().toordinal())
    interval = as_datetimes(first, end, said_at.tzinfo)
    return None if interval is None else (interval[0], interval[1], gran, best[3])


def _anchor_days(times: Sequence[EventTime]) -> tuple[int, int] | None:
    """The first event time short enough to anchor on, as day numbers."""
    for t in times:
        first, end = t.start.date().toordinal(), t.end.date().toordinal()
        if t.granularity in ("day", "span") and 0 < end - first <= _ANCHOR_DAYS:
            return first, end
    return None
