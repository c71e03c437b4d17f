"""The pipeline's time stage: the question's window and the newer version first.

It runs after every engine's ranking, once per question (``recall/pipeline.py``); no
engine calls it. What it does to a ranking is ``arrange.py``'s; this module
adds what it needs to do it for many questions: how deep a list to ask the engine
for, and the times each memory's own words name ("I finally beat it last weekend"),
read once per memory and kept as epoch spans (never words), forgotten when the memory
is deleted here or, as the user's delete revision shows, by another process.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

from ..engines.base import Scored
from ..index.cache import IndexCache, UserIndex
from ..question import Question
from ..store.base import Store, delete_mark, timestamp_epoch
from ..timeexpr import mentioned_windows
from .arrange import ArrangeConfig, arrange
from .current import current_first, slot_book

#: memories whose named times the stage keeps at most (a few spans each)
MENTIONED_CACHE = 100_000

Spans = list[tuple[float, float]]


class TimeStage:
    """Applies the question's window and orders versions (``time/arrange.py``)."""

    name = "time"

    def __init__(self, cfg: ArrangeConfig, store: Store, indexes: IndexCache):
        self.cfg = cfg
        self._store = store
        self._indexes = indexes
        # (user, memory id) -> (start, end) epochs of the times its words name
        self._mentioned: OrderedDict[tuple[str, str], Spans] = OrderedDict()
        # user -> the delete revision the cache last saw: when another process
        # deletes, the user's entries of memories no longer there are dropped
        self._seen: dict[str, tuple[str, int] | None] = {}
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
        settled = not hits or (
            question.window is None and not self.cfg.updates and self._slots is None
        )
        cached = user_id in self._seen  # this user's named times are cached
        if settled and not cached:
            return hits[:k]
        with self._indexes.use(user_id) as idx:  # one read of the user's state
            if cached:
                self._sync(user_id, idx)
            if settled:
                return hits[:k]
            mentioned = None
            if question.window is not None and self.cfg.mentioned:
                mentioned = self._spans(user_id, [h.id for h in hits], idx)
            out = arrange(
                hits, idx, question.text, question.window, question.order, k, self.cfg, mentioned
            )
            if self._slots is not None:
                view = self._slots.view(user_id, idx.state)
                out = current_first(out, question.text, question.order, question.names, view)
            return out[:k]

    def _spans(self, user_id: str, ids: list[str], idx: UserIndex) -> dict[str, Spans]:
        """The times each memory's words name (``timeexpr.mentioned_windows``, as
        epoch spans), read once per memory: its text and time never change under its
        id."""
        cache = self._mentioned
        self._sync(user_id, idx)
        todo = [i for i in ids if (user_id, i) not in cache]
        if todo:
            for memory_id, row in self._store.get(user_id, todo).items():
                cache[(user_id, memory_id)] = [
                    (timestamp_epoch(w.start), timestamp_epoch(w.end))
                    for w in mentioned_windows(row.text, row.timestamp)
                ]
            while len(cache) > MENTIONED_CACHE:
                cache.popitem(last=False)
        return {i: cache.get((user_id, i), []) for i in ids}

    def cached(self) -> set[tuple[str, str]]:
        """(user, memory id) of every memory whose named times are kept (for tests
        and inspection: the spans themselves hold no words)."""
        return set(self._mentioned)

    def forget(self, user_id: str, ids: list[str]) -> None:
        """Memories deleted in this process: their spans go now."""
        gone = set(ids)
        self._drop(user_id, gone.__contains__)

    def forget_user(self, user_id: str) -> None:
        self._drop(user_id, lambda memory_id: True)
        if self._slots is not None:
            self._slots.forget_user(user_id)
        self._seen.pop(user_id, None)

    def _sync(self, user_id: str, idx: UserIndex) -> None:
        """Drop the spans of the user's memories another process deleted since the
        cache last looked (``idx`` is current: its delete revision moved)."""
        seen = delete_mark(idx.state)
        if self._seen.get(user_id, seen) != seen:
            with idx.lock:
                self._drop(user_id, lambda memory_id: memory_id not in idx.pos)
        self._seen[user_id] = seen

    def _drop(self, user_id: str, gone: Callable[[str], bool]) -> None:
        cache = self._mentioned
        for key in [key for key in cache if key[0] == user_id and gone(key[1])]:
            del cache[key]
