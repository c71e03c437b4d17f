"""Rows for the storage tests: new memories and random vectors (shared by the
contract suite and the backend-specific suites), and the built-in engines' tables
attached to a bare store."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import numpy as np

from remem.engines.ilstma.storage import ILSTMA_TABLES, IlstmaStorage
from remem.engines.synapse.storage import SYNAPSE_TABLES, SynapseStorage
from remem.keys import KEY_TABLES
from remem.store import Store
from remem.types import NewMemory

#: the store's own tables, in every database of either backend
TABLES = {"memories", "users", "meta"}
#: the built-in extensions' tables (a Memory attaches them all)
EXTENSION_TABLES = {
    *SYNAPSE_TABLES.user_tables,
    *ILSTMA_TABLES.user_tables,
    "api_keys",
}


def new_memory(text: str, **kw) -> NewMemory:
    return NewMemory(
        text=text,
        speaker=kw.get("speaker"),
        timestamp=kw.get("timestamp", datetime(2024, 1, 1, tzinfo=timezone.utc)),
        session_id=kw.get("session_id"),
        metadata=kw.get("metadata", {}),
    )


def vectors(n: int, dim: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


class EngineStore:
    """A bare store with the built-in engines' tables attached, their queries beside
    the store's own: what the engines see of a database, pinned per backend."""

    def __init__(self, store: Store):
        self.store = store
        self._parts: list[Any] = [
            SynapseStorage(store.attach(SYNAPSE_TABLES)),
            IlstmaStorage(store.attach(ILSTMA_TABLES)),
        ]
        self.keys = store.attach(KEY_TABLES)

    def __getattr__(self, name: str) -> Any:
        for part in self._parts:
            if hasattr(part, name):
                return getattr(part, name)
        return getattr(self.store, name)


def ilstma_db(mem: Any) -> IlstmaStorage:
    """ILSTMA's tables of a Memory's store (recall metadata, notes), for assertions."""
    return IlstmaStorage(mem._store.attach(ILSTMA_TABLES))


def synapse_db(mem: Any) -> SynapseStorage:
    """SYNAPSE's tables of a Memory's store (the semantic layer), for assertions."""
    return SynapseStorage(mem._store.attach(SYNAPSE_TABLES))
