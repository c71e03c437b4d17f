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

from ..engines.base import Scored
from ..index.cache import IndexCache
from ..question import Question
from ..store.base import Store
from .arrange import ArrangeConfig, arrange
from .current import current_first, slot_book
from .events import EventTime
from .stored import StoredEvents, Told
from .window import TimeWindow, two_step_window


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
        ``depth``, so the window can lift what the words found lower."""
        return max(k, self.cfg.depth) if question.names_time else k

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
            out = arrange(hits, idx, question.text, window, question.order, k, self.cfg, told)
            if self._slots is not None:  # what is true now (or before) first
                view = self._slots.view(user_id, idx.state)
                out = current_first(out, question.text, question.order, question.names, view)
            return out[:k]

    def _two_step(self, user_id: str, question: Question, hits: list[Scored]) -> TimeWindow | None:
        """The window of a two-step question ("what did I do two days after the
        wedding?"), its anchor found among the memories the engine found for it (the
        question holds the anchor's words, so the memory that tells of the event is
        among them when it is found at all) with their stored event times; None when
        none names the anchor with a time of its own (``anchors.py``)."""
        ids = [h.id for h in hits]
        memories = self._store.get(user_id, ids)
        told = self.events.of(user_id, ids)
        candidates = [
            (m.text, m.timestamp, [_as_event(e) for e in told.get(i, ())])
            for i, m in memories.items()
        ]
        now = question.now if question.now is not None else datetime.now(timezone.utc)
        return two_step_window(question.text, now, candidates)

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
