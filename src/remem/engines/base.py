"""The engine contract: how a retrieval strategy plugs into :class:`remem.Memory`.

An engine ranks one user's memories for a query (:meth:`Engine.search`). Everything
after ranking (the time stage, exact identifiers, the "not in memory" verdict, the
reader) is the recall pipeline's (``recall/pipeline.py``), the same for every engine,
so no engine calls a stage and none can forget one. An engine is handed the shared
:class:`EngineContext` (store, embedder, per-user indexes, the LLM) and is told about
adds and deletes so it can keep state of its own (graphs, caches) in step; the store
stays the single source of truth. State that must survive lives in the engine's own
tables, attached through the store's extension hook (``store/extension.py``).

What an engine can do beyond ranking is optional: a question answered by more than
the search (a confidence gate, an activation trace, a per-question flow with a
short-term memory) is the :class:`Recalls` protocol, found once when the pipeline is
built; what it returns is a :class:`Found`, the hits plus *extras* of the kinds it
offers (:class:`Activation`, :class:`ShortTermFlow`), each read by the pipeline's
extras step. Housekeeping (consolidation, statistics, buffered writes, the
configuration) has defaults here, so ``Memory`` calls every engine the same way;
:class:`Abilities` says what an engine offers.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInputError
from ..index.cache import IndexCache
from ..index.restrict import Restriction
from ..llm import LLM, create_llm
from ..store.base import Store
from ..store.extension import Extension
from ..types import StoredMemory

if TYPE_CHECKING:
    from ..question import Question
    from .verdict import VerdictModel

X = TypeVar("X")


@dataclass(frozen=True)
class FoundSpan:
    """The typed reader's best answer span in some memories: its words, its score
    (``remem.answer.rank``'s weighted sum), the memory it was cut from, and the
    share of the question's asked words its sentence speaks to
    (``remem.answer.typed.fit_share``)."""

    text: str
    score: float
    memory_id: str
    share: float


#: The typed reader run on given memories only: (user id, question, memory ids best
#: first) -> its best span of the kind the question wants, or None (no kind wanted,
#: none found, or what is asked was never given). The reader lives above the engines
#: (``remem.answer``), so the facade hands it down, as it does the LLM.
SpanFinder = Callable[[str, "Question", Sequence[str]], FoundSpan | None]


@dataclass
class EngineContext:
    store: Store
    embedder: Embedder
    indexes: IndexCache
    #: the Memory's LLM, created on first call (engines ask only when configured to)
    llm: Callable[[], LLM] = field(default=lambda: create_llm("none"))
    #: the typed reader over given memories (ILSTMA's "typed" hit judge); None where
    #: the facade gives none (no spaCy pipeline installed, or a bare context)
    spans: SpanFinder | None = None


@dataclass(frozen=True)
class Scored:
    """One ranked memory id. ``why`` says how it was found (for explanations)."""

    id: str
    score: float
    why: str = ""
    #: what the time stage did to it ("made 10 days ago", "a newer version of ...")
    note: str = ""
    #: the memory that set the same slot to a newer value (``time/current.py``)
    superseded_by: str | None = None

    def noted(self, note: str) -> Scored:
        """This hit with ``note`` added to what the stages already said of it."""
        return replace(self, note=f"{self.note}; {note}" if self.note else note)


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
class EngineInfo:
    """What ``Memory.engine_info`` says of the engine: its name, what it can do beyond
    ranking, and its settings as resolved from the defaults and ``engine_options``."""

    name: str
    abilities: Abilities
    config: dict[str, Any]


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


@dataclass(frozen=True)
class Activation:
    """An extra of an engine that ranks by spreading activation (SYNAPSE): the most
    activated concepts, each hit's activation path (``explain``, traced only when
    asked, since a walk per hit costs more than the search) and the query's lit-up
    neighbourhood in the graph (``trace``, for ``Memory.trace``)."""

    concepts: list[tuple[str, float]] = field(default_factory=list)
    explain: Callable[[], dict[str, str]] | None = field(default=None, repr=False)
    trace: Callable[[int], GraphTrace] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ShortTermFlow:
    """An extra of an engine with a per-question flow over a short-term memory
    (ILSTMA): whether its cache answered, the segments as they stood, notes for the
    reader beside the memories (summary, profile; within the engine's own budget), an
    answer it already has (its LLM judge on a cache hit) and the LLM calls that cost."""

    cache_hit: bool | None = None
    segments: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    answer: str | None = None
    llm_calls: int = 0


@dataclass
class Found:
    """What an engine found for one question, before the pipeline's stages.

    ``hits`` are ranked best first, each with how it was reached (``why``), possibly
    deeper than the ``k`` asked (the time stage cuts). ``confidence`` and ``refuse``
    are the engine's gate (SYNAPSE: the top hit's activation against ``gate_tau``);
    None: it has none, and the pipeline takes the top score, refusing only when
    nothing was found. ``extras`` are what else it offers, one object per kind
    (:meth:`extra` finds one); ``timings`` and ``details`` are reported as they are.
    ``unweighted``: where the engine weighed its ranking by something the "not in
    memory" verdict was not fitted on (the named-speaker prior of SYNAPSE and
    hybrid), the same search without it, which the verdict reads instead of
    ``hits``; None: ``hits``.
    """

    hits: list[Scored]
    confidence: float | None = None
    refuse: bool = False
    extras: list[object] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    unweighted: list[Scored] | None = None

    def extra(self, kind: type[X]) -> X | None:
        """The extra of that kind, or None when the engine offers none."""
        return next((e for e in self.extras if isinstance(e, kind)), None)


@runtime_checkable
class Recalls(Protocol):
    """An engine whose answer to a question is more than its search: a gate, extras,
    a flow with state. Without it the pipeline recalls with :meth:`Engine.search`."""

    def candidates(
        self, user_id: str, question: Question, query_vec: np.ndarray | None, k: int, depth: int
    ) -> Found:
        """The question's candidates, best first: ``depth`` of them when the engine
        ranks (``depth`` >= ``k``: the time stage may reorder a deeper list), or what
        its own flow gives for ``k``."""
        ...


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
    #: Whether ``search`` (and ``candidates``, for a :class:`Recalls` engine) take a
    #: keyword ``restrict``: a read's hard filters (``index/restrict.py``), honoured
    #: before the engine's own top-k. The pipeline passes it only to an engine that
    #: says True; any other engine is asked for deeper rankings until ``k`` pass
    #: (:func:`restricted_search`), correct but slower.
    filters: ClassVar[bool] = False
    #: Whether ``search`` takes a keyword ``shown``: how many of the ``k`` asked the
    #: caller shows; the ranks past it only feed a stage that draws deeper (the time
    #: stage's window over the first 50). An engine that orders its deeper ranks by
    #: a second pass (SYNAPSE's ``feedback``) does so for the shown ranks only, so a
    #: stage reads the same order whether the question asked deep or not.
    shows: ClassVar[bool] = False

    def __init__(self, ctx: EngineContext, **options: Any):
        if options:
            raise InvalidInputError(f"engine {self.name!r} has no options {sorted(options)}")
        self.ctx = ctx

    @abstractmethod
    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        """The user's k best memories for the query, best first."""

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

    def on_delete(self, user_id: str, ids: list[str]) -> None:  # noqa: B027
        """Called after memories were deleted from the store. Whatever the engine keeps
        of them in the process must go now; what another process deleted is noticed at
        the next use of the user (its ``UserState``)."""

    def on_delete_user(self, user_id: str) -> None:  # noqa: B027
        """Called after every row of the user was erased."""

    def close(self) -> None:  # noqa: B027
        """Flush and release engine state."""


#: how much deeper each round of :func:`restricted_search` asks an engine that cannot
#: filter (choice: 4x reaches a filter passing 1 in 100 memories in 4 rounds)
DEEPEN = 4


def restricted_search(
    engine: Engine,
    ctx: EngineContext,
    user_id: str,
    query: str,
    query_vec: np.ndarray | None,
    k: int,
    restrict: Restriction | None,
    shown: int | None = None,
) -> list[Scored]:
    """``engine.search`` under a read's hard filters: passed through to an engine that
    declares :attr:`Engine.filters`; any other engine (a third party's) is asked for
    ``DEEPEN`` times deeper rankings, keeping what passes, until ``k`` pass or the
    ranking runs out (it returned fewer than asked, or as many as the user has), so
    ``k`` come back whenever the engine ranks ``k`` passing memories at all. ``shown``
    (of the ``k``, what the caller shows) reaches an engine that declares
    :attr:`Engine.shows`."""
    extra: dict[str, int] = {"shown": shown} if shown is not None and engine.shows else {}
    if restrict is None:
        return engine.search(user_id, query, query_vec, k, **extra)
    if engine.filters:
        return engine.search(user_id, query, query_vec, k, restrict=restrict, **extra)  # type: ignore[call-arg]
    want = k
    while True:
        hits = engine.search(user_id, query, query_vec, want, **extra)
        with ctx.indexes.use(user_id) as idx:
            passing = restrict.passing(idx, [h.id for h in hits])
            size = len(idx)
        kept = [h for h in hits if h.id in passing]
        if len(kept) >= k or len(hits) < want or want >= size:
            return kept[:k]
        want *= DEEPEN
