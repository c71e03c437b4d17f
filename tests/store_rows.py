"""Rows for the storage tests: new memories and random vectors (shared by the
contract suite and the backend-specific suites)."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

from remem.store.base import USER_TABLES
from remem.types import NewMemory

#: every table a fresh database of either backend must have
TABLES = {"memories", "users", "meta", "api_keys", *USER_TABLES}


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
