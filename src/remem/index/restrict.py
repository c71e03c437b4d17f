"""One read's hard filters as an allowed mask over the user's index positions.

A :class:`Restriction` is made per call (``recall/pipeline.py``) from the checked
filters (``remem/filters.py``) and, for event-time conditions, the ids the store's
``event_times`` rows let through; every ranking path asks it for the mask of the
index it holds (:meth:`Restriction.mask`) and scores masked positions as nothing
*before* its top-k. It belongs to one call, never to the engine or the index, so two
threads searching one user with different filters never see each other's masks.

The conditions on session, speaker, time of saying and metadata are read from the
index itself (``UserIndex`` keeps the codes, times and metadata), so they cost one
pass over the user's positions and no store query.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

import numpy as np

from ..filters import Checked, metadata_passes, value_key
from .cache import UserIndex


class Restriction:
    """The memories one read may see (module notes)."""

    def __init__(self, filters: Checked, event_ids: frozenset[str] | None = None):
        self.filters = filters
        #: the ids whose event times pass the event conditions (None: no such condition)
        self.event_ids = event_ids
        self._made: tuple[int, int, np.ndarray] | None = None
        self._lock = threading.Lock()

    def mask(self, idx: UserIndex) -> np.ndarray:
        """Which of ``idx``'s positions pass (deleted ones never do): made once per
        index state; call with ``idx``'s lock held, as every ranking path does."""
        n = idx.dense.size
        with self._lock:  # an engine may rank in two threads for one call (ILSTMA)
            made = self._made
            if made is not None and made[0] == id(idx) and made[1] == n:
                return made[2]
            allowed = self._compute(idx, n)
            self._made = (id(idx), n, allowed)
            return allowed

    def _compute(self, idx: UserIndex, n: int) -> np.ndarray:
        f = self.filters
        _, alive = idx.dense.snapshot()
        allowed = np.ones(n, dtype=bool) if alive is None else alive.copy()
        if f.session_id is not None:
            allowed &= _coded(idx.session[:n], idx.session_codes, f.session_id)
        if f.speaker is not None:
            allowed &= _coded(idx.speaker[:n], idx.speaker_codes, f.speaker)
        if f.after is not None or f.before is not None:
            times = np.asarray(idx.times[:n], dtype=np.float64)
            if f.after is not None:
                allowed &= times >= f.after
            if f.before is not None:
                allowed &= times < f.before
        if f.metadata:
            allowed &= _metadata(idx, f, n, allowed)
        if self.event_ids is not None:
            ids = self.event_ids
            for p in np.flatnonzero(allowed).tolist():
                allowed[p] = idx.ids[p] in ids
        return allowed

    def passing(self, idx: UserIndex, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` pass (an id the index does not hold does not)."""
        allowed = self.mask(idx)
        out = set()
        for memory_id in ids:
            p = idx.pos.get(memory_id)
            if p is not None and p < len(allowed) and allowed[p]:
                out.add(memory_id)
        return out

    def positions(self, idx: UserIndex) -> np.ndarray:
        """The passing positions, in insertion order."""
        return np.flatnonzero(self.mask(idx))


def _metadata(idx: UserIndex, f: Checked, n: int, allowed: np.ndarray) -> np.ndarray:
    """Which of the first ``n`` positions meet every metadata condition: a key whose
    values all have codes (``UserIndex.metadata_column``) by one vector comparison,
    any other (a list, a mapping or NaN among them) by :func:`metadata_passes`' rule
    at the positions still allowed."""
    out = np.ones(n, dtype=bool)
    for key, values in f.metadata:
        col = idx.metadata_column(key, n)
        wanted = [value_key(v) for v in values]
        if col is None or any(w is None for w in wanted):
            one = Checked(metadata=((key, values),))
            for p in np.flatnonzero(allowed & out).tolist():
                out[p] = metadata_passes(idx.metadata[p], one)
            continue
        codes = [col.table[w] for w in wanted if w in col.table]
        out &= np.isin(col.codes[:n], np.array(codes, dtype=np.int64))
    return out


def _coded(codes: np.ndarray, known: dict[str, int], names: tuple[str, ...]) -> np.ndarray:
    """Where ``codes`` is one of ``names``' codes (a name never seen matches nothing)."""
    wanted = [known[name] for name in names if name in known]
    return np.isin(codes, np.array(wanted, dtype=np.int64))
