"""The storage contract every backend (SQLite, PostgreSQL) implements.

Every method takes ``user_id`` and applies it inside the query: the user is a hard
filter, never a ranking hint, so no caller can reach another user's rows by mistake.
"""

from __future__ import annotations

import json
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from ..errors import StoreError
from ..types import NewMemory, Passages, StoredMemory
from .extension import Extension, Tables


@dataclass(frozen=True)
class UserState:
    """A cheap fingerprint of one user's rows, used by in-process caches to stay current.

    ``epoch`` changes when the user is erased and recreated, ``next_seq`` on every add,
    ``del_rev`` on every delete; a cache that saw the same triple holds current data.
    """

    epoch: str
    next_seq: int
    del_rev: int


class UpdateConflict(StoreError):
    """The memory an update read was updated by another writer before the update's
    transaction (its sequence number moved); the caller reads it again and retries."""


def delete_mark(state: UserState | None) -> tuple[str, int] | None:
    """What a cache of the user's memories compares to notice a delete by any process:
    the epoch (erased and recreated) and the delete revision; None for no user."""
    return (state.epoch, state.del_rev) if state is not None else None


class Store(ABC):
    """Durable home of memories and their embeddings; engines and other components
    keep their own tables beside them through :meth:`attach`."""

    #: Whether several processes may open the same location at once.
    shared: bool = True

    @abstractmethod
    def add(
        self,
        user_id: str,
        memories: Sequence[NewMemory],
        embeddings: np.ndarray | None,
        passages: Sequence[Passages | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        created_at: Sequence[float] | None = None,
    ) -> list[StoredMemory]:
        """Insert all memories in one transaction, in order, and return them with ids;
        ``passages`` (one entry per memory, None for a one-passage memory) are stored
        with their memory's row, so a delete removes every passage. ``ids`` and
        ``created_at`` (seconds since 1970, when each row was written) are kept as
        given instead of new ones (an import keeps the exported memories'): an id
        already in the store is a :class:`~remem.errors.StoreError` (the caller checks
        with :meth:`taken` first)."""

    @abstractmethod
    def taken(self, ids: Sequence[str]) -> list[str]:
        """Which of ``ids`` name a memory in this store, of any user (memory ids are
        unique across users): for an import keeping ids, never shown to a user."""

    def pages(
        self, user_id: str, size: int = 500, *, with_embeddings: bool = False
    ) -> Iterator[list[StoredMemory]]:
        """The user's memories in insertion order, ``size`` at a time, each page read
        after the last one's sequence number (a cursor, not an offset: constant memory
        and constant cost per page, for a million memories too). Not one snapshot: a
        memory added meanwhile is listed if its page is still to come, and one updated
        meanwhile moves to the end (listed again if its old place was passed)."""
        after = -1
        while True:
            page = self.load(user_id, after, with_embeddings, limit=size)
            if page:
                yield page
            if len(page) < size:
                return
            after = page[-1].seq

    @abstractmethod
    def update(
        self,
        user_id: str,
        memory_id: str,
        memory: NewMemory,
        embedding: np.ndarray | None,
        passages: Passages | None,
        *,
        expect_seq: int,
        changed: tuple[str, ...],
    ) -> StoredMemory | None:
        """Replace the user's memory ``memory_id`` by ``memory`` (its one ``embedding``
        vector and ``passages``, as ``add`` takes them per memory) in one transaction: the
        same id at the next sequence number (an update is a delete and an add to every
        cache and extension, see ``store/extension.py``). None when the user has no
        such memory; :class:`UpdateConflict` when its sequence number is no longer
        ``expect_seq`` (another writer updated it since the caller read it)."""

    @abstractmethod
    def get(self, user_id: str, ids: Sequence[str]) -> dict[str, StoredMemory]:
        """Memories by id (without embeddings); ids of other users are simply absent."""

    @abstractmethod
    def load(
        self,
        user_id: str,
        after_seq: int = -1,
        with_embeddings: bool = True,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[StoredMemory]:
        """The user's memories with ``seq > after_seq``, in insertion order; ``limit``
        and ``offset`` page through them in the database (listing APIs)."""

    @abstractmethod
    def delete(self, user_id: str, ids: Sequence[str]) -> list[str]:
        """Delete memories; returns the ids that existed for this user. Like every
        erase, it returns only once the erased bytes are out of the files as far as
        the backend can take them (see :meth:`scrub`), else raises
        :class:`~remem.errors.ErasureIncompleteError` with the ids as its ``result``."""

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Erase every row of the user; returns the number of memories removed (or
        raises :class:`~remem.errors.ErasureIncompleteError`, as :meth:`delete`)."""

    @property
    def scrub_pending(self) -> bool:
        """Whether an erase's rows are deleted but their bytes are still in the files
        (SQLite: another connection's snapshot kept them in the write-ahead log)."""
        return False

    def scrub(self) -> None:  # noqa: B027
        """Finish scrubbing what earlier erases left in the files; raises
        :class:`~remem.errors.ErasureIncompleteError` while that still cannot be done.
        Backends with nothing to finish do nothing."""

    @abstractmethod
    def user_state(self, user_id: str) -> UserState | None: ...

    @abstractmethod
    def count(self, user_id: str) -> int: ...

    @abstractmethod
    def users(self) -> list[str]: ...

    def user_ref(self, user_id: str) -> str:
        """The id this store's user columns hold for ``user_id`` (itself, unless the
        store keeps a keyed hash of user ids: an encrypted store). ``Memory`` passes
        every user id through it once, so everything below it sees only this."""
        return user_id

    @abstractmethod
    def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    @abstractmethod
    def attach(self, extension: Extension) -> Tables:
        """The one extension hook: create or migrate ``extension``'s tables (once per
        store; attaching it again returns the same access) and run its erasure rule
        inside every later ``delete``/``delete_user`` transaction. See
        ``store/extension.py``."""

    # -- optional server-side vector search ---------------------------------------------

    def vector_search(
        self, user_id: str, vec: np.ndarray, k: int
    ) -> list[tuple[str, float]] | None:
        """The user's k memories of highest cosine similarity to ``vec`` (unit vectors),
        best first, as (memory id, cosine); None when this backend has no vector search
        of its own, and the engines use their in-process index."""
        return None

    def schema_version(self) -> int:
        return int(self.get_meta("schema_version") or 0)


MEMORY_COLUMNS = "id, user_id, seq, text, speaker, ts, session_id, metadata, passages"
"""The columns a :class:`StoredMemory` is read from, in ``row_to_memory`` order."""
VECTOR_COLUMNS = "embedding, passage_vectors"
"""What ``load(with_embeddings=True)`` reads besides, in ``row_to_memory`` order."""
INSERT_COLUMNS = (
    "id, user_id, seq, text, speaker, ts, ts_epoch, session_id, metadata, embedding, "
    "created_at, passages, passage_vectors"
)


def new_rows(
    user_id: str,
    memories: Sequence[NewMemory],
    embeddings: np.ndarray | None,
    seq0: int,
    passages: Sequence[Passages | None] | None = None,
    ids: Sequence[str] | None = None,
    created_at: Sequence[float] | None = None,
) -> list[tuple[StoredMemory, list[Any]]]:
    """The stored memories an add creates (new ids unless ``ids`` are given: an
    update keeps its memory's, an import the exported ones; sequence numbers from
    ``seq0``; written now unless ``created_at`` says when) and their
    ``INSERT_COLUMNS`` values, the same for every backend."""
    now = time.time()
    out = []
    for i, mem in enumerate(memories):
        vec = None
        if embeddings is not None:
            vec = np.ascontiguousarray(embeddings[i], dtype="<f4")
        parts = passages[i] if passages is not None else None
        if parts is not None and parts.vectors is not None:
            parts = Passages(parts.spans, np.ascontiguousarray(parts.vectors, dtype="<f4"))
        stored = StoredMemory(
            id=uuid.uuid4().hex if ids is None else ids[i],
            user_id=user_id,
            seq=seq0 + i,
            text=mem.text,
            speaker=mem.speaker,
            timestamp=mem.timestamp,
            session_id=mem.session_id,
            metadata=mem.metadata,
            embedding=vec,
            passages=parts,
        )
        values = [
            stored.id,
            user_id,
            stored.seq,
            mem.text,
            mem.speaker,
            mem.timestamp.isoformat(),
            timestamp_epoch(mem.timestamp),
            mem.session_id,
            json.dumps(mem.metadata, ensure_ascii=False),
            None if vec is None else vec.tobytes(),
            now if created_at is None else float(created_at[i]),
            None if parts is None else json.dumps([list(s) for s in parts.spans]),
            None if parts is None or parts.vectors is None else parts.vectors.tobytes(),
        ]
        out.append((stored, values))
    return out


def timestamp_epoch(ts: datetime) -> float:
    """Seconds since 1970 for ordering and time decay; naive times are taken as UTC."""
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    return ts.timestamp()


def metadata_from_json(raw: Any) -> dict[str, Any]:
    return json.loads(raw) if raw else {}


def row_to_memory(
    row: Sequence[Any], embedding: bytes | None = None, passage_vectors: bytes | None = None
) -> StoredMemory:
    """A :class:`StoredMemory` from ``MEMORY_COLUMNS`` (and the ``VECTOR_COLUMNS``)."""
    vec = None
    if embedding is not None:
        vec = np.frombuffer(embedding, dtype="<f4")
    parts = None
    if row[8]:
        spans = tuple((int(a), int(b)) for a, b in json.loads(row[8]))
        pvecs = None
        if passage_vectors is not None:
            pvecs = np.frombuffer(passage_vectors, dtype="<f4").reshape(len(spans), -1)
        parts = Passages(spans, pvecs)
    return StoredMemory(
        id=row[0],
        user_id=row[1],
        seq=row[2],
        text=row[3],
        speaker=row[4],
        timestamp=datetime.fromisoformat(row[5]),
        session_id=row[6],
        metadata=metadata_from_json(row[7]),
        embedding=vec,
        passages=parts,
    )
