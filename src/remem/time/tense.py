"""Which way a bare time word points: the tense of the clause it sits in.

"I went hiking on Saturday", said on a Monday, is about the Saturday before; "I'm
picking up the keys on Saturday" about the one after. Bare weekdays, day numbers
("the 9th") and month names have no direction of their own, so the nearest tense cue
in the same clause gives it: a past verb (``went``, ``did``, ``-ed``), or a future
one (``will``, ``'ll``, ``going to``, a present progressive "I'm picking up", which
in English speaks of plans). Without a cue the caller falls back on its own default
and lowers its confidence.
"""

from __future__ import annotations

import re
from bisect import bisect_right

PAST, FUTURE = -1, 1

_IRREGULAR = (
    "was were did had went saw got came made took gave bought met ate ran left found "
    "told said thought felt brought caught taught sent spent kept slept paid lost won "
    "wrote drove flew rode began sang swam drank sat stood heard knew grew threw broke "
    "spoke chose wore forgot woke hung held built fell became fought sold sought "
    "shot stole struck swore tore understood forgave hid led lit meant quit"
)
_NOT_PAST = "need feed seed speed indeed bed red shed hundred wed breed weed proceed " \
    "exceed succeed embed bleed sled"  # fmt: skip
_CUE = re.compile(
    r"\b(?P<future>will|shall|won['’]t|gonna|going\s+to|let['’]s|plan(?:ning)?\s+to|"
    r"(?:(?:am|is|are)|(?:i|you|we|they|he|she|it|that)['’](?:m|re|s))\s+(?:\w+ly\s+)?\w+ing"
    r"(?:\s+\w+ed)?|\w+['’]ll|tomorrow|next|upcoming|coming)\b"
    r"|\b(?P<passive>(?:am|is|are|be|['’]m|['’]re|['’]s)\s+\w+ed)\b"
    rf"|\b(?P<past>{'|'.join(_IRREGULAR.split())}|have\s+been|has\s+been|['’]ve\s+\w+|"
    r"back\s+in|yesterday|ago|last|\w{2,}ed)\b",
    re.I,
)
_CLAUSE = re.compile(r"[.!?;,]|\b(?:and|but|while|because|then|whereas)\b", re.I)
_NOT_PAST_SET = frozenset(_NOT_PAST.split())


class Clauses:
    """The clause boundaries of one text, found once (a long memory naming many
    times would otherwise be rescanned from its start for each)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._bounds: list[tuple[int, int]] | None = None

    def around(self, start: int, end: int) -> tuple[int, int]:
        """The bounds of the clause around ``text[start:end]``."""
        if self._bounds is None:
            self._bounds = [(m.start(), m.end()) for m in _CLAUSE.finditer(self.text)]
        i = bisect_right(self._bounds, (start, -1))
        left = self._bounds[i - 1][1] if i else 0
        while i < len(self._bounds) and self._bounds[i][0] < end:
            i += 1
        right = self._bounds[i][0] if i < len(self._bounds) else len(self.text)
        return min(left, start), right


def direction(clauses: Clauses, start: int, end: int) -> int:
    """PAST, FUTURE or 0: the tense nearest to ``text[start:end]`` within its clause
    (the expression's own words are not read)."""
    text = clauses.text
    left, right = clauses.around(start, end)
    best, best_gap = 0, len(text) + 1
    for lo, hi in ((left, start), (end, right)):
        for m in _CUE.finditer(text, lo, hi):
            kind = _kind(m)
            if kind is None:
                continue
            gap = start - m.end() if m.end() <= start else m.start() - end
            if gap < best_gap:
                best, best_gap = kind, gap
    return best


def _kind(m: re.Match[str]) -> int | None:
    if m.group("future"):
        return FUTURE
    if m.group("passive"):
        return None  # "is booked", "are scheduled": a state, not a past event
    word = m.group("past").lower()
    if word in _NOT_PAST_SET:
        return None
    return PAST
