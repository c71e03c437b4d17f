"""The stages a ranking passes after the engine, and how one is added.

A stage reorders or cuts the engine's candidates for one question; the pipeline
(``pipeline.py``) runs its stages in order, each handed the ``Question`` read once at
the entrance. To add one, write a class with :class:`Stage`'s methods and put it in
:func:`default_stages`'s list (or pass ``stages=`` to the pipeline): its ``depth``
says how many candidates it wants to see, ``forget``/``forget_user`` drop what it
keeps of deleted memories. To switch one off, leave it out.
"""

from __future__ import annotations

from typing import Protocol

from ..embed import Embedder
from ..engines.base import Scored
from ..engines.exact import ExactConfig, lift_exact
from ..index.cache import IndexCache
from ..question import Question
from ..store.base import Store
from ..time import TimeStage
from ..time.arrange import ArrangeConfig
from .events import EventsStage
from .versions import VersionsStage


class Stage(Protocol):
    """One step after the engine's ranking."""

    name: str

    def depth(self, question: Question, k: int) -> int:
        """How many candidates this stage wants to see for ``k`` results."""
        ...

    def __call__(
        self, user_id: str, question: Question, hits: list[Scored], k: int
    ) -> list[Scored]:
        """``hits`` reordered (best first), at most ``k``."""
        ...

    def forget(self, user_id: str, ids: list[str]) -> None:
        """Memories deleted in this process: what the stage keeps of them goes."""
        ...

    def forget_user(self, user_id: str) -> None:
        """Every memory of the user was erased."""
        ...


class ExactStage:
    """The memories holding the question's rare identifiers first
    (``engines/exact.py``)."""

    name = "exact"

    def __init__(self, cfg: ExactConfig, indexes: IndexCache):
        self.cfg = cfg
        self._indexes = indexes

    def depth(self, question: Question, k: int) -> int:
        return k  # it lifts from the whole index, not from a deeper list

    def __call__(
        self, user_id: str, question: Question, hits: list[Scored], k: int
    ) -> list[Scored]:
        if not question.identifiers:  # most questions: no index read
            return hits[:k]
        with self._indexes.use(user_id) as idx:
            return lift_exact(hits, idx, question, k, self.cfg)

    def forget(self, user_id: str, ids: list[str]) -> None:
        pass  # it keeps nothing of memories

    def forget_user(self, user_id: str) -> None:
        pass


def default_stages(
    time: ArrangeConfig,
    exact: ExactConfig,
    store: Store,
    indexes: IndexCache,
    embedder: Embedder | None = None,
) -> list[Stage]:
    """The stages every recall runs, in order: time, exact identifiers (an
    identifier names one memory whatever the window says), a second session's
    telling for a question about a value that changes (``versions.py``), then the events a
    question compares (``events.py``, when there is an ``embedder`` for their
    phrases): last, so that neither of the others, which each favour one event's
    words, decides the cut alone; it is handed their output and the rest of the
    engine's candidates (``deep``)."""
    last: list[Stage] = [EventsStage(embedder, store, indexes)] if embedder is not None else []
    return [
        TimeStage(time, store, indexes),
        ExactStage(exact, indexes),
        VersionsStage(indexes),
        *last,
    ]
