"""The engine contract: how a retrieval strategy plugs into :class:`remem.Memory`.

An engine ranks one user's memories for a query. It is handed the shared
:class:`EngineContext` (store, embedder, per-user indexes) and is told about adds
and deletes so it can keep state of its own (graphs, caches) in step; the store
stays the single source of truth.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..embed.base import Embedder
from ..errors import InvalidInputError
from ..index.cache import IndexCache
from ..llm import LLM, create_llm
from ..store.base import Store
from ..types import StoredMemory


@dataclass
class EngineContext:
    store: Store
    embedder: Embedder
    indexes: IndexCache
    #: the Memory's LLM, created on first call (engines ask only when configured to)
    llm: Callable[[], LLM] = field(default=lambda: create_llm("none"))


@dataclass(frozen=True)
class Scored:
    """One ranked memory id. ``why`` says how it was found (for explanations)."""

    id: str
    score: float
    why: str = ""


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
    #: Whether search needs the query embedding (Memory computes it once, timed).
    needs_query_vector: ClassVar[bool] = True

    def __init__(self, ctx: EngineContext, **options: Any):
        if options:
            raise InvalidInputError(f"engine {self.name!r} has no options {sorted(options)}")
        self.ctx = ctx

    @abstractmethod
    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        """The user's k best memories for the query, best first."""

    def flush(self, user_id: str | None = None) -> None:  # noqa: B027
        """Write state this engine buffers in the process (all users when None)."""

    def on_add(self, user_id: str, memories: list[StoredMemory]) -> None:  # noqa: B027
        """Called after memories were durably stored."""

    def on_delete(self, user_id: str, ids: list[str]) -> None:  # noqa: B027
        """Called after memories were deleted from the store."""

    def on_delete_user(self, user_id: str) -> None:  # noqa: B027
        """Called after every row of the user was erased."""

    def close(self) -> None:  # noqa: B027
        """Flush and release engine state."""
