"""The events stage: a question comparing two events gets both events' memories.

"How many days passed between the day I fixed my bike and the day I upgraded my
pedals?" needs one memory per event (``time/pairs.py`` reads the phrases). The
engine ranks once for the whole question, so the event it words more strongly fills
the top with its memory, the assistant's reply to it and that session's other turns,
and the other event's memory falls below the cut. This stage asks the engine for a
deeper list (``depth``), ranks it once per event phrase (the engine's own rank, the
phrase's MiniLM cosine and its BM25 score, fused by reciprocal rank as the hybrid
engine fuses) and interleaves the per-event lists: the best memory of each event
first, then the second best of each, and so on.

It runs last (after the time and exact stages, which each favour one event's words:
the exact stage lifts every memory holding "Hunger" of "the 'Walk for Hunger' event
and the 'Coastal Cleanup' event"), handed their output followed by the rest of the
engine's candidates; their order is the "engine rank" it fuses. A question that
compares no events (most) is not touched and costs nothing; one that does costs one
embedding call for its phrases.

It lifted the temporal-reasoning questions of long assistant histories and left every
other question type and the conversations' tables level
(docs/notes/benchmark-history.md#time-and-change-recall-after-the-third-round-issue-36).
"""

from __future__ import annotations

import numpy as np

from ..embed import Embedder
from ..engines.base import Scored
from ..engines.fusion import RRF_K
from ..index.cache import IndexCache, UserIndex
from ..question import Question
from ..store.base import Store
from ..time.pairs import event_phrases
from ..time.stored import StoredEvents

#: choice: how many of the engine's results are ranked per event (the time stage's
#: depth: the other event's memory was within the engine's first 50 in every miss
#: looked at, usually at ranks 6 to 30)
DEPTH = 50


class EventsStage:
    """Interleaves one ranking per event a question compares (module notes)."""

    name = "events"
    #: handed the earlier stages' output and the rest of the engine's candidates
    deep = True

    def __init__(self, embedder: Embedder, store: Store, indexes: IndexCache, depth: int = DEPTH):
        self._embedder = embedder
        self._indexes = indexes
        self._depth = depth
        self._events = StoredEvents(store)

    def depth(self, question: Question, k: int) -> int:
        """A comparison question gets a deeper list: the second event's memory is
        what the whole question's ranking left below ``k``."""
        return max(k, self._depth) if event_phrases(question.text) else k

    def __call__(
        self, user_id: str, question: Question, hits: list[Scored], k: int
    ) -> list[Scored]:
        """``hits`` interleaved by event, cut to ``k``."""
        phrases = event_phrases(question.text)
        if len(phrases) < 2 or len(hits) < 2:
            return hits[:k]
        vecs = self._embedder.embed(list(phrases))
        told = self._events.of(user_id, [h.id for h in hits])
        timed = _timed_first([h.id in told for h in hits])
        with self._indexes.use(user_id) as idx:
            orders = [_ranked(idx, hits, p, v, timed) for p, v in zip(phrases, vecs, strict=True)]
        return _interleaved(hits, orders, phrases)[:k]

    def forget(self, user_id: str, ids: list[str]) -> None:
        pass  # it keeps nothing of memories

    def forget_user(self, user_id: str) -> None:
        pass


def _timed_first(timed: list[bool]) -> np.ndarray:
    """A ranking's reciprocal-rank term that puts the memories placing what they tell
    in time first (in the engine's order), the rest last: a comparison of two events'
    times is answered by the memory that dates the event ("I did the Coastal Cleanup
    on March 7th"), not by the same session's other turns that name it."""
    n = len(timed)
    ranks = np.full(n, float(n))
    at = [i for i, t in enumerate(timed) if t]
    ranks[at] = np.arange(len(at))
    return 1.0 / (RRF_K + ranks)


def _ranked(
    idx: UserIndex, hits: list[Scored], phrase: str, vec: np.ndarray, timed: np.ndarray
) -> list[int]:
    """The hits' indices ranked for one event phrase: the engine's rank, the phrase's
    cosine, its BM25 score and ``timed`` (:func:`_timed_first`), fused by reciprocal
    rank (a hit not in the index keeps only its engine rank and ``timed``)."""
    n = len(hits)
    found = [idx.pos.get(h.id) for h in hits]
    at = [i for i, p in enumerate(found) if p is not None]
    fused = 1.0 / (RRF_K + np.arange(n, dtype=np.float64)) + timed
    if at:
        positions = np.array([found[i] for i in at], dtype=np.int64)
        cos = idx.similarity_at(positions, vec)
        lexical = idx.bm25.scores(phrase)
        bm = lexical[positions] if len(lexical) else np.zeros(len(at))
        for scores in (np.nan_to_num(cos, nan=-1.0) + 1.0, bm):
            ranks = np.empty(len(at), dtype=np.float64)
            ranks[np.argsort(-scores, kind="stable")] = np.arange(len(at))
            # a hit the phrase's words miss (BM25 0) earns no rank for them: ties
            # at zero would otherwise rank the other event's memories by engine order
            fused[at] += np.where(scores > 0, 1.0 / (RRF_K + ranks), 0.0)
    return [int(i) for i in np.argsort(-fused, kind="stable")]


def _interleaved(
    hits: list[Scored], orders: list[list[int]], phrases: tuple[str, ...]
) -> list[Scored]:
    """Round robin over the per-event rankings, each hit once, noted with the event
    it was taken for."""
    seen: set[int] = set()
    out: list[Scored] = []
    for depth in range(len(hits)):
        for order, phrase in zip(orders, phrases, strict=True):
            i = order[depth]
            if i in seen:
                continue
            seen.add(i)
            out.append(hits[i].noted(f"ranked for the event '{phrase}'"))
    return out
