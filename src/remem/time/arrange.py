"""Time in the ranking: the window a question names, and the newer of two versions.

Every engine ranks by what memories say; two things it cannot see are *when* a
question is about and *which* of two memories about one thing is current. This stage
runs after any engine's ranking, as the recall pipeline's time stage
(``time/stage.py``, run by ``recall/pipeline.py``; no engine calls it):

* **The window.** When the question names a time ("10 days ago", "last Saturday",
  "in May"; ``window.time_window``, relative to the moment it is asked), the engine
  is asked for a deeper list (``depth``) and the memories made inside the window move
  up: each candidate's reciprocal rank gets ``window_weight`` times a closeness term
  that is 1 inside the window and at most a half outside it, fading with the window's
  own slack, so the engine's order still decides within the window and near it. A
  memory is inside when it was made in the window or when its own words place what
  it tells there ("I finally beat it last weekend", said on the Wednesday after; its
  event times, read at ingest and stored, ``time/stored.py``). A question naming one
  day ("last Saturday") pads it a day each side; a memory whose event time is that
  day goes ahead of the rest of the window (the engine's order among them). A window
  that no candidate falls in changes nothing.
* **The newer version.** Among the results, when a lower-ranked memory is about the
  same thing as a higher-ranked one (cosine of their vectors at least
  ``same_fact_cosine``) and was made later, it moves just above it: a later memory that
  restates a fact with a new value ("I moved to Porto" after "I live in Lisbon")
  outranks the earlier without hiding it. A question asking for the original ("where
  did I *initially* keep ...", ``window.time_order``) reverses this.

Both are off when the question gives them nothing to act on, so rankings of questions
without time words only change where two results restate one thing at different
times.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engines.fusion import RRF_K
from ..errors import InvalidTypeError
from ..index.cache import UserIndex
from ..options import number, resolve, switch
from ..store.base import timestamp_epoch
from .stored import Told
from .window import TimeWindow, telling_lag_days

if TYPE_CHECKING:
    from ..engines.base import Scored


@dataclass(frozen=True)
class ArrangeConfig:
    """Every constant of the stage, with why (override: ``Memory(time_options=...)``)."""

    depth: int = number(50, low=0)
    """choice: how many of the engine's results a time window may reorder (the window
    lifts memories the question's words already found, it does not search by time)."""
    window_weight: float = number(1.0, low=0)
    """choice: a window match is worth a reciprocal rank of 1/60 (RRF's constant): inside
    the window, any of the ``depth`` results outranks every result outside it."""
    same_fact_cosine: float = number(0.8, low=0)
    """choice: two memories this close (MiniLM cosine of their vectors) restate one
    thing whatever the question (near-duplicates)."""
    same_subject_share: float = number(0.4, low=0)
    """choice: two memories that both hold the question's words carrying this share of
    its IDF weight are two versions of what it asks about. Updates are rarely
    near-duplicates: in long assistant histories the two statements of an update have
    a median cosine of 0.49 (0.38 for two unrelated turns of the same sessions), so
    the question's own words decide; the two statements of an update shared 0.42 to
    0.64 of their question's weight on the development questions looked at, so 0.4
    (docs/notes/benchmark-history.md#the-newest-fact-first)."""
    updates: bool = switch(True)
    """whether the newer of two versions moves above the older."""
    current: bool = switch(True)
    """whether a question about a slot of a person ("Where do I live now?") gets the
    memory that set its current value above those it superseded (``current.py``)."""
    mentioned: bool = switch(True)
    """whether a memory whose words place what it tells in the question's window
    ("last weekend", said days later) counts as inside it, like one made then."""
    versions_depth: int = number(10, low=1)
    """choice: how deep in the engine's list a newer version is looked for and lifted
    above its older one, whatever ``k`` is asked: the first ``k`` of a search are the
    first ``k`` of any deeper one. Read within the ``k`` asked instead, a version at
    rank 90 of a k = 100 search jumped to the top, and recall@5 on LoCoMo fell from
    0.69 (k = 5) to 0.66 (k = 100); the older telling sat at ranks 5 to 8 in the
    updates looked at (docs/results/stop62/issue38-versions.md)."""
    min_gap_s: float = number(3600.0, low=0)
    """choice: versions at least an hour apart (a turn and its rephrasing in the same
    exchange are not an update)."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> ArrangeConfig:
        """``Memory(time_options=...)`` checked: None for the defaults."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise InvalidTypeError("time_options must be a mapping")
        return resolve(cls, options, "time_options")


def arrange(
    hits: Sequence[Scored],
    idx: UserIndex,
    query: str,
    window: TimeWindow | None,
    order: str | None,
    k: int,
    cfg: ArrangeConfig,
    mentioned: Mapping[str, Sequence[Told]] | None = None,
) -> list[Scored]:
    """The engine's ``hits`` (best first, possibly deeper than ``k``) with the window
    applied and versions ordered, cut to ``k``. Scores are kept; ``why`` says what
    moved a hit. ``mentioned``: per hit id, the times its own words name (its stored
    event times, ``time/stored.py``); a hit that says it happened in the window counts
    as inside it, and one that tells of the one day a question names goes ahead of the
    rest of the window."""
    out = list(hits)
    if window is not None and out:
        out = _apply_window(out, idx, window, cfg, mentioned or {})
    if cfg.updates and len(out) > 1:
        deep = cfg.versions_depth
        head = _order_versions(out[:deep], idx, query, oldest_first=order == "oldest", cfg=cfg)
        out = head + out[deep:]
    return out[:k]


def _apply_window(
    hits: list[Scored],
    idx: UserIndex,
    window: TimeWindow,
    cfg: ArrangeConfig,
    mentioned: Mapping[str, Sequence[Told]],
) -> list[Scored]:
    lo, hi = window.reach()  # the window with its slack (``window.py``)
    start, end = timestamp_epoch(lo), timestamp_epoch(hi)
    # where a memory counts as made inside: the slack only for short windows
    made_lo, made_hi = _made_bounds(window, start, end)
    day = _named_day(window)
    slack = max((end - start) / 2.0, 86_400.0)
    fused = []
    inside = 0
    for rank, h in enumerate(hits):
        p = idx.pos.get(h.id)
        t = idx.times[p] if p is not None else math.nan
        # a time still to come ("tonight") holds no memory made there, only told of
        made = made_lo <= t < made_hi and not window.ahead
        # what tells of the window, no vaguer than it ("this year" tells of no night)
        told = [
            e
            for e in mentioned.get(h.id, ())
            if e.start_s < end and e.end_s > start and e.end_s - e.start_s <= end - start
        ]
        said = not made and bool(told)
        if made or told:
            dist = 0.0
        else:  # nothing said yet in a window still to come is near it either
            dist = math.inf if window.ahead else min(abs(t - made_lo), abs(t - made_hi))
        # inside: 1; near it: up to a half, fading with the window's own slack (so a
        # memory just outside never outranks one inside, which the engine also found)
        close = (1.0 if dist == 0.0 else 0.5 * math.exp(-dist / slack)) if math.isfinite(t) else 0.0
        # a question naming one day ("last Saturday") is about what happened that day:
        # a memory that tells of that day goes ahead of the rest of the padded window
        on_day = _telling_of(told, day) if close == 1.0 else None
        close += 1.0 if on_day is not None else 0.0
        if not math.isfinite(t):
            within = ""
        elif on_day is not None or said:
            e = on_day or told[0]
            within = f"tells of {window.phrase}: told of {_describe(e)} ('{e.words}')"
        else:
            within = f"made {window.phrase}" if made else ""
        inside += bool(within)
        fused.append((1.0 / (RRF_K + rank) + cfg.window_weight * close / RRF_K, rank, h, within))
    if not inside:
        return hits  # the window holds none of them: nothing to go on
    fused.sort(key=lambda x: (-x[0], x[1]))
    return [h.noted(within) if within else h for _, _, h, within in fused]


#: the longest window (seconds) whose slack counts as inside it for the memories made
#: there: a day, a weekend, a week
_SHORT_WINDOW_S = 7 * 86_400.0


def _made_bounds(window: TimeWindow, start: float, end: float) -> tuple[float, float]:
    """Where a memory counts as made inside the window, as epochs: the window with its
    slack (``start``, ``end``) when it is a week or shorter; for a longer one, its
    slack less the telling lag (``window.telling_lag_days``).

    The telling lag is the day or two between an event and its telling ("I went
    hiking on Saturday" said on Sunday); for a day or a week it is a large share of
    the window and the telling often falls in it. For a month or a year it is a
    sliver, and what was said in the days after the month mostly tells of those days:
    counted inside, the first days of August outranked July's own memories for "in
    July 2023" (two chat questions fell to a month's three days' slack:
    docs/notes/benchmark-history.md#time-and-change-recall-after-the-third-round-issue-36). A
    memory made there is near the window (the fading term), and one whose own words
    tell of the window is inside whatever its date (its stored event times). The rest
    of the slack, the looseness of "4 years ago" (a quarter of the span), still
    counts: it is the words', not the telling's."""
    if window.end - window.start <= timedelta(seconds=_SHORT_WINDOW_S):
        return start, end
    lag = min(telling_lag_days(window.granularity), window.slack_days) * 86_400.0
    return start + lag, end - lag


#: event times this precise can tell of one day (a date, "yesterday", a weekend)
_DAYLIKE = frozenset({"day", "week", "span"})
#: the longest event time that can tell of one day (a weekend, a long weekend)
_DAYLIKE_S = 4 * 86_400.0


def _named_day(window: TimeWindow) -> tuple[float, float] | None:
    """The one day the question names, as epochs (None: it names a longer time)."""
    if window.day is None:
        return None
    a = timestamp_epoch(window.day)
    return a, a + 86_400.0


def _telling_of(told: Sequence[Told], day: tuple[float, float] | None) -> Told | None:
    """The first of a memory's event times (in the window) that tells of ``day``."""
    if day is None:
        return None
    return next(
        (
            e
            for e in told
            if e.granularity in _DAYLIKE
            and e.end_s - e.start_s <= _DAYLIKE_S
            and e.start_s < day[1]
            and e.end_s > day[0]
        ),
        None,
    )


def _date(when: datetime) -> str:
    return f"{when:%A} {when.day} {when:%B %Y}"


def _describe(e: Told) -> str:
    """An event time in words: its day, or its first and last day."""
    a, b = datetime.fromisoformat(e.start), datetime.fromisoformat(e.end)
    last = b - timedelta(microseconds=1)
    return _date(a) if last.date() == a.date() else f"{_date(a)} to {_date(last)}"


def _order_versions(
    hits: list[Scored], idx: UserIndex, query: str, *, oldest_first: bool, cfg: ArrangeConfig
) -> list[Scored]:
    found = [idx.pos.get(h.id) for h in hits]
    if any(p is None for p in found):
        return hits
    pos: list[int] = [p for p in found if p is not None]
    vecs = np.stack([idx.dense.vector(p) for p in pos])
    times = [idx.times[p] for p in pos]
    close = vecs @ vecs.T >= cfg.same_fact_cosine
    n = len(pos)
    subject = np.zeros((n, n), dtype=bool)
    weights = idx.bm25.query_weights(query)
    total = sum(weights.values())
    if cfg.same_subject_share <= 1.0 and total > 0:
        # the share of the question's IDF weight whose terms a memory (or both) hold
        held = [idx.bm25.held_terms(p, weights) for p in pos]

        def share(terms: set[str]) -> float:
            return sum(weights[t] for t in terms) / total

        own = [share(h) for h in held]
        for a in range(n):
            for b in range(a + 1, n):
                if min(own[a], own[b]) >= cfg.same_subject_share:
                    both = share(held[a] & held[b])
                    subject[a, b] = subject[b, a] = both >= cfg.same_subject_share
    sims = close | subject
    order = list(range(len(hits)))
    moved: dict[int, int] = {}
    changed = True
    rounds = 0
    while changed and rounds < len(hits):  # settles: each move puts a pair in order
        changed, rounds = False, rounds + 1
        for a in range(len(order)):
            for b in range(a + 1, len(order)):
                i, j = order[a], order[b]
                if not sims[i, j]:
                    continue
                gap = times[j] - times[i]
                if (gap if not oldest_first else -gap) >= cfg.min_gap_s:
                    order.insert(a, order.pop(b))  # j goes just above i
                    moved[j] = i
                    changed = True
                    break
            if changed:
                break
    word = "an older" if oldest_first else "a newer"
    return [
        hits[i].noted(f"{word} version of {hits[moved[i]].id}") if i in moved else hits[i]
        for i in order
    ]
