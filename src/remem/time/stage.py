"""The pipeline's time stage: the question's window and the newer version first.

It runs after every engine's ranking, once per question (``recall/pipeline.py``); no
engine calls it. What it does to a ranking is ``arrange.py``'s; this module adds what
it needs to do it for many questions: how deep a list to ask the engine for, and the
times each candidate's own words name ("I finally beat it last weekend"), read from
the store (``stored.py``: written at ingest, erased with the memory) in one query per
question that names a time. It keeps nothing of memories in process: a read of ~50
ids by primary key costs well under a millisecond, less than keeping a cache in step
with other processes' deletes did.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from ..engines.base import Scored
from ..index.cache import IndexCache, UserIndex
from ..question import Question
from ..store.base import Store, timestamp_epoch
from .anchors import Candidate, resolve_anchored
from .arrange import ArrangeConfig, arrange
from .current import current_first, slot_book
from .events import EventTime
from .stored import StoredEvents, Told
from .window import TimeWindow, two_step_window

#: how many of the lexical index's results for an anchor phrase are searched for it
#: (the event is named in few memories; the index ranks those naming it first)
_ANCHOR_SEARCH = 10


class TimeStage:
    """Applies the question's window and orders versions (``time/arrange.py``)."""

    name = "time"

    def __init__(
        self,
        cfg: ArrangeConfig,
        store: Store,
        indexes: IndexCache,
        events: StoredEvents | None = None,
    ):
        self.cfg = cfg
        self._indexes = indexes
        self._store = store
        self.events = events if events is not None else StoredEvents(store)
        # the slots memories set and which value is current (``current.py``)
        self._slots = slot_book(store) if cfg.current else None

    def depth(self, question: Question, k: int) -> int:
        """How many results to ask the engine for: a question that names a time gets
        ``depth``, so the window can lift what the words found lower; any other, with
        versions ordered, ``versions_depth``, so that the first ``k`` are the same
        whatever ``k`` is asked."""
        if question.names_time:
            return max(k, self.cfg.depth)
        return max(k, self.cfg.versions_depth) if self.cfg.updates else k

    def __call__(
        self, user_id: str, question: Question, hits: list[Scored], k: int
    ) -> list[Scored]:
        """``hits`` (best first, possibly deeper than ``k``) with the window applied
        and versions ordered, cut to ``k``."""
        window = question.window
        if window is None and question.anchored is not None and hits:
            window = self._two_step(user_id, question, hits)
        if not hits or (window is None and not self.cfg.updates and self._slots is None):
            return hits[:k]
        told = None
        if window is not None and self.cfg.mentioned:
            told = self.events.of(user_id, [h.id for h in hits])
        with self._indexes.use(user_id) as idx:  # one read of the user's state
            if told is not None:
                self._add_anchored(user_id, idx, told)
            out = arrange(hits, idx, question.text, window, question.order, k, self.cfg, told)
            if self._slots is not None:  # what is true now (or before) first
                view = self._slots.view(user_id, idx.state)
                out = current_first(out, question.text, question.order, question.names, view)
            return out[:k]

    def _two_step(self, user_id: str, question: Question, hits: list[Scored]) -> TimeWindow | None:
        """The window of a two-step question ("what did I do two days after the
        wedding?"), its anchor found among the memories the engine found for it and
        those the lexical index finds for the anchor phrase, with their stored event
        times; None when none names the anchor with a time of its own
        (``anchors.py``)."""
        anchored = question.anchored
        if anchored is None:
            return None
        with self._indexes.use(user_id) as idx:
            ids = [h.id for h in hits] + self._anchor_ids(idx, anchored.anchor)
        now = question.now if question.now is not None else datetime.now(timezone.utc)
        return two_step_window(question.text, now, self._candidates(user_id, ids))

    def _add_anchored(self, user_id: str, idx: UserIndex, told: dict[str, list[Told]]) -> None:
        """The two-step times the candidates' own words name ("I went hiking two days
        after the wedding", stored unresolved at ingest), resolved now on the memory
        the lexical index finds for the anchor phrase, added to their event times: one
        hop, that user's memories, the anchor said nearest before the memory."""
        anchored = self.events.anchored(user_id, list(told))
        if not anchored:
            return
        said = {i: m.timestamp for i, m in self._store.get(user_id, list(anchored)).items()}
        for mid, items in anchored.items():
            for a in items if mid in said else ():
                ids = [i for i in self._anchor_ids(idx, a.anchor) if i != mid]
                found = resolve_anchored(a, self._candidates(user_id, ids), said[mid])
                if found is not None:
                    start, end, gran, _ = found
                    told[mid].append(
                        Told(
                            timestamp_epoch(start),
                            timestamp_epoch(end),
                            start.isoformat(),
                            end.isoformat(),
                            gran,
                            a.words,
                        )
                    )

    @staticmethod
    def _anchor_ids(idx: UserIndex, phrase: str) -> list[str]:
        """The memories the lexical index ranks first for an anchor phrase."""
        scores = idx.bm25.scores(phrase)
        if not len(scores):
            return []
        top = np.argsort(-scores, kind="stable")[:_ANCHOR_SEARCH]
        return [idx.ids[p] for p in top if scores[p] > 0]

    def _candidates(self, user_id: str, ids: list[str]) -> list[Candidate]:
        """(text, when said, event times) of the memories ``ids``, each once."""
        ids = list(dict.fromkeys(ids))
        memories = self._store.get(user_id, ids)
        told = self.events.of(user_id, list(memories))
        return [
            (m.text, m.timestamp, [_as_event(e) for e in told.get(i, ())])
            for i, m in memories.items()
        ]

    def forget(self, user_id: str, ids: list[str]) -> None:
        """Nothing kept: the stored rows went with the memories."""

    def forget_user(self, user_id: str) -> None:
        self.events.forget_user(user_id)
        if self._slots is not None:
            self._slots.forget_user(user_id)


def _as_event(e: Told) -> EventTime:
    return EventTime(
        datetime.fromisoformat(e.start), datetime.fromisoformat(e.end), e.granularity, e.words
    )
