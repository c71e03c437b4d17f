"""The storage contract every backend (SQLite, PostgreSQL) implements.

Every method takes ``user_id`` and applies it inside the query: the user is a hard
filter, never a ranking hint, so no caller can reach another user's rows by mistake.
"""

from __future__ import annotations

import json
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from ..types import NewMemory, StoredMemory


@dataclass(frozen=True)
class UserState:
    """A cheap fingerprint of one user's rows, used by in-process caches to stay current.

    ``epoch`` changes when the user is erased and recreated, ``next_seq`` on every add,
    ``del_rev`` on every delete; a cache that saw the same triple holds current data.
    """

    epoch: str
    next_seq: int
    del_rev: int


@dataclass(frozen=True)
class GraphRows:
    """SYNAPSE's stored semantic layer of one user (see ``store/sqlite.py``)."""

    mentions: list[tuple[str, str, str, int]]  # (memory_id, label, kind, memory seq)
    concepts: list[tuple[int, str, str, np.ndarray]]  # (cid, label, kind, vec)
    aliases: dict[str, int]  # label -> cid
    activity: dict[tuple[str, str], int]  # ("m", memory_id) | ("c", str(cid)) -> window
    consolidated_seq: int
    rev: int


@dataclass(frozen=True)
class NoteRow:
    """An ILSTMA summary or personality trait (see ``store/sqlite.py``): ``pieces`` is
    JSON, a list of {text, seq, memory_id}; it covers memories first_seq..last_seq."""

    kind: str  # "summary" | "trait"
    nid: int
    speaker: str | None
    first_seq: int
    last_seq: int
    pieces: str


@dataclass(frozen=True)
class KeyRow:
    """One API key of the HTTP server (see ``remem/keys.py``): only its SHA-256 digest
    is stored; ``revoked`` is the revocation time (epoch seconds) or None."""

    key_id: str
    tenant: str
    digest: str
    label: str | None
    created: float
    revoked: float | None


class Store(ABC):
    """Durable home of memories, their embeddings and (later) engine state."""

    #: Whether several processes may open the same location at once.
    shared: bool = True

    @abstractmethod
    def add(
        self, user_id: str, memories: Sequence[NewMemory], embeddings: np.ndarray | None
    ) -> list[StoredMemory]:
        """Insert all memories in one transaction, in order, and return them with ids."""

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
        """Delete memories; returns the ids that existed for this user."""

    @abstractmethod
    def delete_user(self, user_id: str) -> int:
        """Erase every row of the user; returns the number of memories removed."""

    @abstractmethod
    def user_state(self, user_id: str) -> UserState | None: ...

    @abstractmethod
    def count(self, user_id: str) -> int: ...

    @abstractmethod
    def users(self) -> list[str]: ...

    @abstractmethod
    def get_meta(self, key: str) -> str | None: ...

    @abstractmethod
    def set_meta(self, key: str, value: str) -> None: ...

    @abstractmethod
    def close(self) -> None: ...

    # -- SYNAPSE's semantic layer (cascaded by delete / delete_user) ------------------

    @abstractmethod
    def graph_state(self, user_id: str) -> tuple[int, int]:
        """(consolidated_seq, rev) of the user's semantic layer; (-1, 0) if none."""

    @abstractmethod
    def graph_load(self, user_id: str) -> GraphRows: ...

    @abstractmethod
    def graph_save(
        self,
        user_id: str,
        *,
        mentions: Sequence[tuple[str, str, str]],
        concepts: Sequence[tuple[int, str, str, np.ndarray]],
        aliases: Sequence[tuple[str, int]],
        consolidated_seq: int,
        expect_rev: int,
        activity: Sequence[tuple[str, str, int]] = (),
    ) -> int | None:
        """Atomically add a consolidation window; None if ``expect_rev`` is stale."""

    @abstractmethod
    def graph_touch(self, user_id: str, activity: Sequence[tuple[str, str, int]]) -> None:
        """Record the latest window in which nodes were active (kept: the larger window)."""

    # -- the global memory table's recall metadata, ILSTMA's notes -----------------

    @abstractmethod
    def table_meta(
        self, user_id: str, ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, float]]:
        """memory_id -> (recall times, last recall as epoch seconds) for the entries
        (all, or ``ids``) recalled at least once; absent entries have the defaults
        (1, creation time)."""

    @abstractmethod
    def table_meta_update(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        """Set (memory_id, recall times, last recall); deleted memories are skipped."""

    @abstractmethod
    def table_meta_bump(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        """Atomically add (memory_id, recalls, when): recall times grow by ``recalls``
        from the stored value (1 when none), the last recall becomes the later of the
        two. Increments, not values: two workers recalling one memory at once both
        count. Deleted memories are skipped."""

    @abstractmethod
    def notes_state(self, user_id: str) -> int:
        """The last summarised sequence number, or -1 (one indexed row: cheap)."""

    @abstractmethod
    def notes_load(self, user_id: str) -> tuple[int, list[NoteRow]]:
        """(last summarised sequence number or -1, the user's notes)."""

    @abstractmethod
    def notes_save(
        self, user_id: str, notes: Sequence[NoteRow], summarized_seq: int, expect_seq: int
    ) -> bool:
        """Upsert notes and advance the summarised position atomically; False (nothing
        written) when another writer moved it from ``expect_seq`` meanwhile."""

    # -- API keys of the HTTP server (one table, shared by every worker) ---------------

    @abstractmethod
    def key_add(self, row: KeyRow) -> None:
        """Insert a key; a duplicate ``key_id`` is a StoreError."""

    @abstractmethod
    def key_get(self, key_id: str) -> KeyRow | None: ...

    @abstractmethod
    def key_list(self, tenant: str | None = None) -> list[KeyRow]:
        """Every key (of one tenant when given), oldest first, revoked ones included."""

    @abstractmethod
    def key_revoke(self, key_id: str, when: float) -> bool:
        """Mark a key revoked; False when no such key or already revoked."""

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


#: Every table holding rows of one user besides ``memories`` and ``users`` (erased with
#: the user). Both backends create exactly these.
USER_TABLES = (
    "syn_mentions",
    "syn_concepts",
    "syn_aliases",
    "syn_state",
    "syn_activity",
    "table_meta",
    "ilstma_notes",
    "ilstma_state",
)
MEMORY_COLUMNS = "id, user_id, seq, text, speaker, ts, session_id, metadata"
"""The columns a :class:`StoredMemory` is read from, in ``row_to_memory`` order."""
KEY_COLUMNS = "key_id, tenant, digest, label, created, revoked"
INSERT_COLUMNS = (
    "id, user_id, seq, text, speaker, ts, ts_epoch, session_id, metadata, embedding, created_at"
)


def new_rows(
    user_id: str, memories: Sequence[NewMemory], embeddings: np.ndarray | None, seq0: int
) -> list[tuple[StoredMemory, list[Any]]]:
    """The stored memories an add creates (new ids, sequence numbers from ``seq0``) and
    their ``INSERT_COLUMNS`` values, the same for every backend."""
    now = time.time()
    out = []
    for i, mem in enumerate(memories):
        vec = None
        if embeddings is not None:
            vec = np.ascontiguousarray(embeddings[i], dtype="<f4")
        stored = StoredMemory(
            id=uuid.uuid4().hex,
            user_id=user_id,
            seq=seq0 + i,
            text=mem.text,
            speaker=mem.speaker,
            timestamp=mem.timestamp,
            session_id=mem.session_id,
            metadata=mem.metadata,
            embedding=vec,
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
            now,
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


def row_to_memory(row: Sequence[Any], embedding: bytes | None = None) -> StoredMemory:
    """A :class:`StoredMemory` from ``MEMORY_COLUMNS`` (and the embedding blob)."""
    vec = None
    if embedding is not None:
        vec = np.frombuffer(embedding, dtype="<f4")
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
    )
