"""The engine contract: how a retrieval strategy plugs into :class:`remem.Memory`.

An engine ranks one user's memories for a query (:meth:`Engine.search`) and answers
one question with everything it knows about it (:meth:`Engine.recall`, an
:class:`EngineRecall`: the ranked hits and how each was reached, its confidence and
refusal verdict, notes for the reader, a prepared answer, timings). It is handed the
shared :class:`EngineContext` (store, embedder, per-user indexes, the LLM) and is told
about adds and deletes so it can keep state of its own (graphs, caches) in step; the
store stays the single source of truth. State that must survive lives in the engine's
own tables, attached through the store's extension hook (``store/extension.py``).

Everything beyond ranking is declared here with a default (consolidation, a
short-term view, buffered writes, statistics, the configuration), so ``Memory`` calls
every engine the same way and never probes one for what it can do; what an engine
offers is said by :class:`Abilities`.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInputError
from ..index.cache import IndexCache, UserIndex
from ..llm import LLM, create_llm
from ..store.base import Store, delete_mark, timestamp_epoch
from ..store.extension import Extension
from ..timeexpr import mentioned_windows
from ..types import StoredMemory
from .arrange import ArrangeConfig, Plan, arrange, plan
from .exact import ExactConfig, identifiers, lift_exact

if TYPE_CHECKING:
    from .verdict import VerdictModel


@dataclass
class EngineContext:
    store: Store
    embedder: Embedder
    indexes: IndexCache
    #: the Memory's LLM, created on first call (engines ask only when configured to)
    llm: Callable[[], LLM] = field(default=lambda: create_llm("none"))
    #: the time stage's settings (``Memory(time_options=...)``)
    time: ArrangeConfig = field(default_factory=ArrangeConfig)
    #: the exact-identifier stage's settings (``Memory(exact_options=...)``)
    exact: ExactConfig = field(default_factory=ExactConfig)


@dataclass(frozen=True)
class Scored:
    """One ranked memory id. ``why`` says how it was found (for explanations)."""

    id: str
    score: float
    why: str = ""
    #: what the time stage did to it ("made 10 days ago", "a newer version of ...")
    note: str = ""


@dataclass(frozen=True)
class Abilities:
    """What an engine offers beyond ranking (``Memory.engine_info`` shows them)."""

    #: a confidence model whose verdict can refuse ("that is not in memory")
    gate: bool = False
    #: ``recall`` runs a per-question flow with state (it may differ from ``search``)
    flow: bool = False
    #: a short-term memory to inspect (``Memory.short_term``)
    short_term: bool = False


@dataclass(frozen=True)
class GraphTrace:
    """The part of an engine's graph one query lit up: nodes as ``(key, kind, label,
    activation, anchor)`` (``kind`` is ``"episode"``, whose key and label are the
    memory id, or ``"concept"``, keyed ``c:<id>`` and labelled with its words;
    ``anchor`` names the channels that seeded it, "" when activation reached it) and
    the edges that carried activation, as ``(source key, target key, weight,
    carried)``: ``carried`` is the most the edge passed on in any round."""

    nodes: list[tuple[str, str, str, float, str]]
    edges: list[tuple[str, str, float, float]]


@dataclass
class EngineRecall:
    """What an engine found for one question: all that ``Memory.recall`` and
    ``Memory.answer`` report and the reader uses.

    ``hits`` are ranked best first, each with how it was reached (``why``);
    ``explain``, when given, traces richer explanations (SYNAPSE's activation paths)
    only when asked, since a walk per hit costs more than the search. ``notes`` are
    text for the reader beside the memories (ILSTMA's summary and profile), already
    within the engine's own budget; ``answer`` is an answer the engine already has
    (ILSTMA's LLM judge on a cache hit), costing ``llm_calls``. ``details`` carries
    engine-specific facts for inspection and benchmarks (ILSTMA: the ids recalled on
    a miss and the global retriever's ranking).
    """

    hits: list[Scored]
    confidence: float
    refuse: bool = False
    concepts: list[tuple[str, float]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    answer: str | None = None
    llm_calls: int = 0
    cache_hit: bool | None = None
    segments: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    explain: Callable[[], dict[str, str]] | None = field(default=None, repr=False)
    #: when given, the query's activated neighbourhood in the engine's graph (SYNAPSE):
    #: called only when asked (``Memory.trace``), from the activation this recall ran
    trace: Callable[[int], GraphTrace] | None = field(default=None, repr=False)

    def explanations(self, traced: bool = True) -> dict[str, str]:
        """Hit id -> how it was reached (the traced path when there is one)."""
        paths = self.explain() if traced and self.explain is not None else {}
        return {
            h.id: "; ".join(x for x in (paths.get(h.id) or h.why, h.note) if x) for h in self.hits
        }


class UserLocks:
    """One re-entrant lock per user: different users are served in parallel, while one
    user's engine state (graph, caches, short-term memory) changes one call at a time.
    Locks are never dropped (one small object per user seen by this process), so a
    thread can never hold a lock that another thread has already replaced."""

    def __init__(self) -> None:
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    def __call__(self, user_id: str) -> threading.RLock:
        lock = self._locks.get(user_id)
        if lock is None:
            with self._guard:
                lock = self._locks.setdefault(user_id, threading.RLock())
        return lock


class Engine(ABC):
    name: ClassVar[str]
    #: Whether search needs the query embedding (Memory computes it once, timed);
    #: an engine that embeds only when it must (ILSTMA on a cache hit) says False.
    needs_query_vector: ClassVar[bool] = True
    abilities: ClassVar[Abilities] = Abilities()
    #: The tables this engine keeps (attached to the store; see ``store/extension.py``)
    tables: ClassVar[tuple[Extension, ...]] = ()
    #: The dataclass declaring this engine's options (``remem/options.py``); None: it
    #: takes none
    config_class: ClassVar[type | None] = None
    #: The "not in memory" verdict's model for this engine's recalls
    #: (``answer/verdict.py``): a family of ``engines/verdict.py``'s ``FAMILIES``
    #: ("hybrid", "synapse"), only where that model was fitted on this engine's
    #: rankings, or its own fitted ``VerdictModel`` (``scripts/calibrate_verdict.py``);
    #: None: the documented default (``DEFAULT_FAMILY``). Read once, when ``Memory`` is
    #: made, never from the engine's registered name, so a variant registered under
    #: another name keeps its model; ``Memory(verdict=...)`` overrides it.
    verdict: str | VerdictModel | None = None

    def __init__(self, ctx: EngineContext, **options: Any):
        if options:
            raise InvalidInputError(f"engine {self.name!r} has no options {sorted(options)}")
        self.ctx = ctx
        # (user, memory id) -> (start, end) epochs of the times its words name; no text
        self._mentioned_cache: OrderedDict[tuple[str, str], list[tuple[float, float]]] = (
            OrderedDict()
        )
        # user -> (epoch, delete revision) the cache last saw: when another process
        # deletes, the user's entries of memories no longer there are dropped
        self._mentioned_seen: dict[str, tuple[str, int] | None] = {}

    @abstractmethod
    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        """The user's k best memories for the query, best first."""

    def recall(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        now: datetime | None = None,
    ) -> EngineRecall:
        """One question with everything the engine knows about it. ``now`` is the
        moment it is asked (None: the engine's own clock). The default is the search
        with the top score as confidence and no refusal (the baselines have no
        confidence model)."""
        hits = [
            h if h.why else replace(h, why=self.name)
            for h in self.rank(user_id, query, query_vec, k, now)
        ]
        return EngineRecall(hits, hits[0].score if hits else 0.0)

    def rank(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        now: datetime | None = None,
    ) -> list[Scored]:
        """``search`` with time applied (what ``Memory.search`` calls): when the
        question names a time, a deeper list is reordered by it; versions of one
        memory are put newest first (``engines/arrange.py``)."""
        planned = plan(query, now)
        hits = self.search(user_id, query, query_vec, self.search_depth(planned, k))
        return self.finish(user_id, hits, query, now, k, planned=planned)

    def search_depth(self, planned: Plan, k: int) -> int:
        """How many results to rank for ``k``: a question that names a time gets the
        time stage's ``depth``, so the window can lift what the words found lower."""
        return max(k, self.ctx.time.depth) if planned[0] is not None else k

    def finish(
        self,
        user_id: str,
        hits: list[Scored],
        query: str,
        now: datetime | None,
        k: int,
        *,
        planned: Plan | None = None,
    ) -> list[Scored]:
        """The stages after any engine's ranking, the same for all (``rank`` and every
        ``recall`` end here): time (:meth:`arrange`), then the memories holding the
        question's rare identifiers first (``engines/exact.py``); cut to ``k``.
        ``planned``: the question's ``plan`` when the caller read it already."""
        hits = self.arrange(user_id, hits, query, now, k, planned=planned)
        if not identifiers(query, self.ctx.exact):  # most questions: no index read
            return hits
        with self.ctx.indexes.use(user_id) as idx:
            return lift_exact(hits, idx, query, k, self.ctx.exact)

    def arrange(
        self,
        user_id: str,
        hits: list[Scored],
        query: str,
        now: datetime | None,
        k: int,
        *,
        planned: Plan | None = None,
    ) -> list[Scored]:
        """Apply the question's time window and order versions (override to do it
        natively); ``hits`` may be deeper than ``k``. ``planned`` is the question's
        ``plan`` when the caller read it (once per question: with ``now`` None it
        reads the clock, and two reads could name different days)."""
        window, order = planned if planned is not None else plan(query, now)
        settled = not hits or (window is None and not self.ctx.time.updates)
        cached = user_id in self._mentioned_seen  # this user's named times are cached
        if settled and not cached:
            return hits[:k]
        with self.ctx.indexes.use(user_id) as idx:  # one read of the user's state
            if cached:
                self._sync_mentioned(user_id, idx)
            if settled:
                return hits[:k]
            mentioned = None
            if window is not None and self.ctx.time.mentioned:
                mentioned = self._mentioned(user_id, [h.id for h in hits], idx)
            return arrange(hits, idx, query, window, order, k, self.ctx.time, mentioned)

    def _mentioned(
        self, user_id: str, ids: list[str], idx: UserIndex
    ) -> dict[str, list[tuple[float, float]]]:
        """The times each memory's words name (``timeexpr.mentioned_windows``, as
        epoch spans), read once per memory: its text and time never change under its
        id. Only the spans are kept, never words of the memory; a memory deleted by
        another process is dropped once ``idx`` (current) shows a new delete."""
        cache = self._mentioned_cache
        self._sync_mentioned(user_id, idx)
        todo = [i for i in ids if (user_id, i) not in cache]
        if todo:
            for memory_id, row in self.ctx.store.get(user_id, todo).items():
                cache[(user_id, memory_id)] = [
                    (timestamp_epoch(w.start), timestamp_epoch(w.end))
                    for w in mentioned_windows(row.text, row.timestamp)
                ]
            while len(cache) > MENTIONED_CACHE:
                cache.popitem(last=False)
        return {i: cache.get((user_id, i), []) for i in ids}

    def consolidate(self, user_id: str) -> int:
        """Run pending consolidation of the user now; returns memories processed."""
        return 0

    def short_term(self, user_id: str) -> dict[str, Any]:
        """The engine's short-term memory of the user (``abilities.short_term``)."""
        raise InvalidInputError(f"engine {self.name!r} has no short-term memory")

    def stats(self, user_id: str) -> dict[str, int]:
        """Sizes of the engine's own state of the user (a graph's nodes, ...)."""
        return {}

    def config(self) -> dict[str, Any]:
        """The engine's settings as plain values (what its options resolved to)."""
        return {}

    def flush(self, user_id: str | None = None) -> None:  # noqa: B027
        """Write state this engine buffers in the process (all users when None)."""

    def on_add(self, user_id: str, memories: list[StoredMemory]) -> None:  # noqa: B027
        """Called after memories were durably stored."""

    def on_delete(self, user_id: str, ids: list[str]) -> None:
        """Called after memories were deleted from the store. Whatever the engine keeps
        of them in the process must go now (an override calls this too); what another
        process deleted is noticed at the next use of the user (its ``UserState``)."""
        gone = set(ids)
        self._forget_mentioned(user_id, gone.__contains__)

    def on_delete_user(self, user_id: str) -> None:
        """Called after every row of the user was erased (an override calls this too)."""
        self._forget_mentioned(user_id, lambda memory_id: True)
        self._mentioned_seen.pop(user_id, None)

    def _sync_mentioned(self, user_id: str, idx: UserIndex) -> None:
        """Drop the named times of the user's memories another process deleted since
        the cache last looked (``idx`` is current: its delete revision moved)."""
        seen = delete_mark(idx.state)
        if self._mentioned_seen.get(user_id, seen) != seen:
            with idx.lock:
                self._forget_mentioned(user_id, lambda memory_id: memory_id not in idx.pos)
        self._mentioned_seen[user_id] = seen

    def _forget_mentioned(self, user_id: str, gone: Callable[[str], bool]) -> None:
        cache = self._mentioned_cache
        for key in [key for key in cache if key[0] == user_id and gone(key[1])]:
            del cache[key]

    def close(self) -> None:  # noqa: B027
        """Flush and release engine state."""


#: memories whose named times an engine keeps at most (a few spans each)
MENTIONED_CACHE = 100_000
