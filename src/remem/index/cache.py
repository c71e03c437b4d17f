"""Per-user in-memory indexes kept current with the store.

Every search first reads the user's :class:`~remem.store.UserState` (one indexed
row). Same state: the cached indexes are current. More rows: only the new rows are
loaded and appended. This process's own adds and deletes are applied in place on the
write path (:meth:`IndexCache.added`, :meth:`IndexCache.deleted`), so the first
search after a write does no indexing. An erase/recreate (new epoch) or a delete by another process
(unexpected ``del_rev``): the user's indexes are rebuilt from the store. Deletes
made through this process are applied in place. So several processes (or API
workers) sharing one database always search current data.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..embed.base import rankable
from ..filters import value_key
from ..speakers import party
from ..store.base import Store, UserState, timestamp_epoch
from ..types import StoredMemory
from .bm25 import BM25Index
from .dense import DenseIndex
from .order import SessionOrder, step_along
from .tokenize import has_words

SPREAD_SAMPLE = 1024
"""choice: memories sampled to estimate the spread of a query's cosines where only
some memories are scored (``UserIndex.similarity_at``): the standard deviation of
1,024 draws is within a few percent of the whole's, at a 1,024-row matrix product."""


def _codes(codes: dict[str, int], rows: list[StoredMemory], attr: str) -> np.ndarray:
    """Each row's ``attr`` (a name or None) as a small integer, new names numbered on."""
    return np.array(
        [codes.setdefault(v, len(codes)) if (v := getattr(r, attr)) else -1 for r in rows],
        dtype=np.int64,
    )


def _spread(cos: np.ndarray) -> float:
    """The standard deviation of the live (finite) scores; 0 for fewer than two."""
    live = cos[np.isfinite(cos)]
    return float(live.std()) if len(live) > 1 else 0.0


@dataclass
class MetadataColumn:
    """One metadata key's value per position as a small integer (``UserIndex.
    metadata_column``): -1 where the key is absent, ``table`` maps each value's
    :func:`~remem.filters.value_key` to its code."""

    codes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    table: dict[tuple[str, Any], int] = field(default_factory=dict)
    #: whether every value seen has a key (else the column is not used)
    plain: bool = True

    def extend(self, metadata: list[dict], key: str, n: int) -> None:
        if len(self.codes) >= n:
            return
        new = []
        for m in metadata[len(self.codes) : n]:
            k = value_key(m[key]) if key in m else None
            if key in m and k is None:
                self.plain = False
            new.append(-1 if k is None else self.table.setdefault(k, len(self.table)))
        self.codes = np.concatenate([self.codes, np.array(new, dtype=np.int64)])


@dataclass
class UserIndex:
    """Everything the baseline engines need about one user, by position (insertion order)."""

    dim: int
    state: UserState | None = None
    last_seq: int = -1
    ids: list[str] = field(default_factory=list)
    pos: dict[str, int] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)
    #: whether the memory's own text (speaker aside) holds a word the lexical index
    #: reads; "x", "?", "0" or an emoji hold none (``tokenize.has_words``)
    worded: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: each memory's session as a small integer (-1: none given), so engines can
    #: treat the turns of one conversation as one context (SYNAPSE's session support)
    session: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    _session_codes: dict[str, int] = field(default_factory=dict, repr=False)
    #: who said each memory (``speakers.party``): 0 no speaker given, 1 a person,
    #: 2 the assistant; SYNAPSE's speaker prior reads it
    party: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    #: whether each memory asks (ends in "?"): in a conversation between people the
    #: speaker prior spares a question put to the person asked about
    asks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    #: each memory's speaker as a small integer (-1: none given), and its metadata as
    #: stored: what a read's hard filters test (``index/restrict.py``) without a store
    #: round trip per query
    speaker: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    speaker_codes: dict[str, int] = field(default_factory=dict, repr=False)
    metadata: list[dict] = field(default_factory=list, repr=False)
    #: per metadata key, each position's value as a code (``metadata_column``)
    _meta_columns: dict[str, MetadataColumn] = field(default_factory=dict, repr=False)
    dense: DenseIndex = field(init=False)
    bm25: BM25Index = field(default_factory=BM25Index)
    #: Held while reading or changing this user's arrays (appends may reallocate them).
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: Passages of long memories (``index/passages.py``): their vectors, the memory
    #: position each belongs to, and per such memory its passages' rows and spans.
    passages: DenseIndex = field(init=False)
    passage_owner: list[int] = field(default_factory=list)
    passage_rows: dict[int, tuple[int, int]] = field(default_factory=dict)
    passage_spans: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    #: how a long memory's passages make its score (``PassagePlan.score``)
    passage_score: str = "corrected"
    #: (owners, multi, gain) as arrays, made on the first search after an append
    _layout: tuple[np.ndarray, np.ndarray, np.ndarray] | None = field(
        default=None, init=False, repr=False
    )
    #: the tables of :meth:`session_beside`, made on its first call after a deletion
    #: and kept current by appends in time order
    _order: SessionOrder | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.dense = DenseIndex(self.dim)
        self.passages = DenseIndex(self.dim)

    def metadata_column(self, key: str, n: int) -> MetadataColumn | None:
        """The first ``n`` positions' values of metadata ``key`` as codes, coded on
        first use and extended as memories are added (a position's metadata never
        changes: an update is a new position); None when some value is a list, a
        mapping or NaN, which a read's filter then compares one by one. A metadata
        filter is then one vector comparison, not a pass over every memory's dict
        in Python on every search (2.2-2.4x the unfiltered p95 at 10,000
        memories: ``scripts/bench_filters.py``)."""
        col = self._meta_columns.setdefault(key, MetadataColumn())
        col.extend(self.metadata, key, n)
        return col if col.plain else None

    def __len__(self) -> int:
        return len(self.bm25)

    def append(self, rows: list[StoredMemory]) -> None:
        if not rows:
            return
        vecs = rankable(np.stack([r.embedding for r in rows]))  # type: ignore[misc]
        self.dense.add(vecs)
        self.bm25.add([r.index_text for r in rows])
        self.worded = np.concatenate([self.worded, [has_words(r.text) for r in rows]])
        codes = self._session_codes
        self.session = np.concatenate(
            [
                self.session,
                np.array(
                    [
                        codes.setdefault(r.session_id, len(codes)) if r.session_id else -1
                        for r in rows
                    ],
                    dtype=np.int64,
                ),
            ]
        )
        self.party = np.concatenate(
            [self.party, np.array([party(r.speaker) for r in rows], dtype=np.int8)]
        )
        self.speaker = np.concatenate([self.speaker, _codes(self.speaker_codes, rows, "speaker")])
        self.asks = np.concatenate([self.asks, [r.text.rstrip().endswith("?") for r in rows]])
        self.metadata.extend(r.metadata for r in rows)
        for r in rows:
            pos = len(self.ids)
            self.pos[r.id] = pos
            self.ids.append(r.id)
            self.times.append(timestamp_epoch(r.timestamp))
            self.seqs.append(r.seq)
            if r.passages is not None and r.passages.vectors is not None:
                first = self.passages.size
                self.passages.add(rankable(r.passages.vectors))
                self.passage_owner.extend([pos] * len(r.passages.vectors))
                self.passage_rows[pos] = (first, self.passages.size)
                self.passage_spans[pos] = r.passages.spans
                self._layout = None
        self.last_seq = rows[-1].seq
        if self._order is not None and not self._order.extend(self.session, self.times):
            self._order = None

    def remove(self, memory_id: str) -> None:
        p = self.pos.pop(memory_id, None)
        if p is not None:
            self._order = None
            self.dense.remove(p)
            self.bm25.remove(p)
            a, b = self.passage_rows.get(p, (0, 0))
            for row in range(a, b):
                self.passages.remove(row)

    def next_in_session(self, memory_id: str) -> str | None:
        """The memory said next in ``memory_id``'s session, None when there is none
        or it has no session: the turn that answers a turn asking ("Who's teaching
        you?" -> "Her name is Ines Duarte"), which the typed reader reads
        (``answer/typed.py``)."""
        return self.beside_in_session(memory_id, 1)

    def beside_in_session(self, memory_id: str, step: int) -> str | None:
        """The live memory said ``step`` turns after (positive) or before (negative)
        ``memory_id`` in its session, by time (:meth:`session_beside`); None when
        there is none or it has no session. The turn before a follow-up that names
        nothing ("How much?") is what it asks about. By time, not by index position:
        an updated or imported turn keeps its place between the turns it was said
        between."""
        p = self.pos.get(memory_id)
        if p is None or self.session[p] < 0 or step == 0:
            return None
        before, after = self.session_beside()
        q = int(step_along(after if step > 0 else before, np.array([p]), abs(step))[0])
        return self.ids[q] if q >= 0 else None

    def session_beside(self) -> tuple[np.ndarray, np.ndarray]:
        """Each position's live memory just before and just after it in its session,
        in time order (``index.order.beside_in_time``): the turns it was said
        between, whatever order they were added, updated or imported in."""
        if self._order is None:
            alive = np.zeros(len(self.ids), dtype=bool)
            alive[list(self.pos.values())] = True
            times = np.asarray(self.times, dtype=np.float64)
            self._order = SessionOrder(self.session, times, alive)
        return self._order.before, self._order.after

    @property
    def session_codes(self) -> dict[str, int]:
        """Session id -> the small integer :attr:`session` holds."""
        return self._session_codes

    @property
    def has_passages(self) -> bool:
        return bool(self.passage_rows)

    def similarity(self, query_vec: np.ndarray) -> np.ndarray:
        """Each memory's cosine to the query (-inf when deleted): its own vector's, or
        for a memory of several passages, its best passage's."""
        cos = self.dense.scores(query_vec)
        if self.passage_rows and self.passage_score != "mean":
            owners, multi, gain = self._passage_layout()
            best = np.full_like(cos, -np.inf)
            np.maximum.at(best, owners, self.passages.scores(query_vec))
            if self.passage_score == "corrected":
                best[multi] -= _spread(cos) * gain
            cos[multi] = (
                best[multi] if self.passage_score != "both" else np.maximum(cos[multi], best[multi])
            )
        return cos

    def _passage_layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each passage's owner, the memories of several passages, and their
        :meth:`_best_of_gain`: made once per append, not per search (a Python pass over
        every passage, which grew with the history).

        The correction for a best of P passages is how much that maximum beats one
        text by chance: the expected maximum of P draws from the query's own score
        spread, sigma * sqrt(2 ln P)."""
        if self._layout is None:
            owners = np.fromiter(self.passage_owner, dtype=np.int64, count=self.passages.size)
            multi = np.fromiter(self.passage_rows, dtype=np.int64)
            self._layout = (owners, multi, self._best_of_gain(multi))
        return self._layout

    def _best_of_gain(self, multi: np.ndarray) -> np.ndarray:
        """sqrt(2 ln P) of each memory's passage count P."""
        counts = np.array([b - a for a, b in (self.passage_rows[int(p)] for p in multi)])
        return np.sqrt(2.0 * np.log(np.maximum(counts, 1)))

    def _sampled_spread(self, query_vec: np.ndarray) -> float:
        """The spread of the query's cosines over the user's memories, from an even
        sample of at most :data:`SPREAD_SAMPLE` of them (all of them below that): what
        :meth:`similarity` reads from the full scores, for a path that has only some."""
        n = self.dense.size
        sample = np.arange(0, n, max(1, -(-n // SPREAD_SAMPLE)), dtype=np.int64)
        return _spread(self.dense.cosines(sample, query_vec))

    def similarity_at(self, positions: np.ndarray, query_vec: np.ndarray) -> np.ndarray:
        """:meth:`similarity` of the given positions only, by the same passage rule."""
        cos = self.dense.cosines(positions, query_vec)
        if not self.passage_rows or self.passage_score == "mean":
            return cos
        at = [
            i
            for i, p in enumerate(positions.tolist())
            if p in self.passage_rows and np.isfinite(cos[i])
        ]
        if not at:
            return cos
        multi = positions[at]
        best = np.array(
            [float(self.passages.cosines(np.arange(*self.passage_rows[int(p)]), query_vec).max())
             for p in multi]
        )  # fmt: skip
        if self.passage_score == "corrected":
            best -= self._sampled_spread(query_vec) * self._best_of_gain(multi)
        cos[at] = best if self.passage_score != "both" else np.maximum(cos[at], best)
        return cos

    def nearest(self, positions: np.ndarray, vec: np.ndarray) -> float:
        """The best cosine of ``vec`` to the given memories, each read as its own vector
        and its passages' (no correction: how near the nearest text comes, for the
        verdict's premise check); -1 for none."""
        cos = [self.dense.cosines(positions, vec)]
        for p in positions.tolist():
            rows = self.passage_rows.get(p)
            if rows is not None:
                cos.append(self.passages.cosines(np.arange(*rows), vec))
        flat = np.concatenate(cos)
        flat = flat[np.isfinite(flat)]
        return float(flat.max()) if flat.size else -1.0

    def best_passage(self, pos: int, query_vec: np.ndarray) -> tuple[int, int, int] | None:
        """(index, start, end) of the memory's passage nearest the query; None for a
        memory that is one passage."""
        rows = self.passage_rows.get(pos)
        if rows is None:
            return None
        cos = self.passages.cosines(np.arange(*rows), query_vec)
        best = int(np.argmax(cos))
        start, end = self.passage_spans[pos][best]
        return best, start, end

    def nbytes(self) -> int:
        return (
            self.dense.nbytes()
            + self.passages.nbytes()
            + self.bm25.nbytes()
            + 120 * len(self.ids)
            + 16 * len(self.passage_owner)
        )


class IndexCache:
    def __init__(
        self, store: Store, dim: int, max_users: int = 256, passage_score: str = "corrected"
    ):
        self.store = store
        self.dim = dim
        self.max_users = max_users
        self.passage_score = passage_score
        self._users: OrderedDict[str, UserIndex] = OrderedDict()
        self._lock = threading.RLock()

    @contextmanager
    def use(self, user_id: str) -> Iterator[UserIndex]:
        """The user's current indexes, locked against concurrent changes while in use."""
        idx = self.get(user_id)
        with idx.lock:
            yield idx

    def get(self, user_id: str) -> UserIndex:
        """The user's indexes, synchronised with the store (unlocked: prefer :meth:`use`)."""
        with self._lock:
            state = self.store.user_state(user_id)
            idx = self._users.get(user_id)
            if state is None:
                self._users.pop(user_id, None)
                return UserIndex(self.dim, passage_score=self.passage_score)
            if idx is not None and idx.state == state:
                self._users.move_to_end(user_id)
                return idx
            if (
                idx is None
                or idx.state is None
                or idx.state.epoch != state.epoch
                or idx.state.del_rev != state.del_rev
            ):
                idx = UserIndex(self.dim, passage_score=self.passage_score)
            with idx.lock:
                idx.append(self.store.load(user_id, after_seq=idx.last_seq))
                idx.state = state
            self._users[user_id] = idx
            self._users.move_to_end(user_id)
            while len(self._users) > self.max_users:
                self._users.popitem(last=False)
            return idx

    def added(
        self, user_id: str, rows: list[StoredMemory], before: UserState | None
    ) -> UserState | None:
        """Apply this process's own add in place, so the next search finds the index
        current instead of reading the rows back and indexing them then (the write
        pays, not the first query). When anything else changed meanwhile (another
        process wrote), nothing is applied here and the next :meth:`get` resyncs.
        The user's state after the add (None: no rows)."""
        if not rows:
            return None
        with self._lock:
            after = self.store.user_state(user_id)
            if after is None:
                return None
            idx = self._users.get(user_id)
            if before is None:  # the user's first memories: a new index
                if idx is not None or after.next_seq != len(rows) or after.del_rev != 0:
                    return after
                idx = UserIndex(self.dim, passage_score=self.passage_score)
            elif (
                idx is None
                or idx.state != before
                or after.epoch != before.epoch
                or after.del_rev != before.del_rev
                or after.next_seq != before.next_seq + len(rows)
            ):
                return after
            with idx.lock:
                idx.append(rows)
                idx.state = after
            self._users[user_id] = idx
            self._users.move_to_end(user_id)
            while len(self._users) > self.max_users:
                self._users.popitem(last=False)
        return after

    def deleted(self, user_id: str, ids: list[str], before: UserState | None) -> None:
        """Apply this process's own delete in place when nothing else changed meanwhile."""
        with self._lock:
            idx = self._users.get(user_id)
            if idx is None:
                return
            after = self.store.user_state(user_id)
            if (
                before is None
                or after is None
                or idx.state != before
                or after.epoch != before.epoch
                or after.del_rev != before.del_rev + 1
            ):
                self._users.pop(user_id, None)
                return
            with idx.lock:
                for memory_id in ids:
                    idx.remove(memory_id)
                idx.state = UserState(before.epoch, before.next_seq, after.del_rev)
            # Rows another process appended meanwhile are picked up by the next get().

    def drop(self, user_id: str) -> None:
        with self._lock:
            self._users.pop(user_id, None)

    def nbytes(self) -> int:
        with self._lock:
            return sum(u.nbytes() for u in self._users.values())
