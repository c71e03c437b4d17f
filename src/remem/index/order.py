"""The order of a session's turns: which memory was said just before and just after
each, by time, whatever order the memories were added or updated in.

An update is a new index position at the end (``UserIndex.append``), and an import
adds a user's memories in the order they are exported, so the positions' order is
not the conversation's; the session and the timestamp are, and are carried by every
export.
"""

from __future__ import annotations

import numpy as np


def beside_in_time(
    session: np.ndarray, times: np.ndarray, alive: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(before, after): for each position, the live memory of its session just
    before and just after it in time (ties in the order added), ``-1`` where there is
    none, for a memory of no session (``session`` -1) and for a deleted one."""
    n = len(session)
    before = np.full(n, -1, dtype=np.int64)
    after = np.full(n, -1, dtype=np.int64)
    live = np.flatnonzero(alive & (session >= 0))
    order = live[np.lexsort((live, times[live], session[live]))]
    same = session[order[1:]] == session[order[:-1]]
    before[order[1:][same]] = order[:-1][same]
    after[order[:-1][same]] = order[1:][same]
    return before, after


def step_along(table: np.ndarray, pos: np.ndarray, steps: int) -> np.ndarray:
    """The position ``steps`` links along ``table`` (``before`` or ``after`` of
    :func:`beside_in_time`) from each of ``pos``; ``-1`` where the chain ends."""
    out = np.asarray(pos, dtype=np.int64)
    for _ in range(steps):
        out = np.where(out >= 0, table[np.maximum(out, 0)], -1)
    return out


class SessionOrder:
    """:func:`beside_in_time`'s tables, kept current while turns are appended in time
    order (a conversation as it happens: each new turn is its session's latest), so
    a search after each write does not sort the whole history again. A turn older
    than its session's latest, or a deletion, needs a rebuild (:meth:`extend` says
    so; ``UserIndex`` drops the order)."""

    def __init__(self, session: np.ndarray, times: np.ndarray, alive: np.ndarray):
        self.before, self.after = beside_in_time(session, times, alive)
        ends = np.flatnonzero((self.after < 0) & alive & (session >= 0))
        #: each session's latest live memory
        self.latest: dict[int, int] = {int(session[p]): int(p) for p in ends}

    def extend(self, session: np.ndarray, times: list[float]) -> bool:
        """Take in the positions appended since (``session`` and ``times`` now
        longer than the tables); False when one is older than its session's latest
        memory, and the tables must be rebuilt."""
        start, n = len(self.before), len(session)
        self.before = np.concatenate([self.before, np.full(n - start, -1, dtype=np.int64)])
        self.after = np.concatenate([self.after, np.full(n - start, -1, dtype=np.int64)])
        for p in range(start, n):
            code = int(session[p])
            if code < 0:
                continue
            last = self.latest.get(code)
            if last is not None:
                if times[p] < times[last]:
                    return False
                self.before[p], self.after[last] = last, p
            self.latest[code] = p
        return True
