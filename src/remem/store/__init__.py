"""Storage backends behind one :class:`Store` interface, picked from the path."""

from __future__ import annotations

from .base import Store, UserState

__all__ = ["Store", "UserState", "open_store"]


def open_store(path: str, **options: object) -> Store:
    """``:memory:`` or a file path gives SQLite; PostgreSQL URLs come with a later extra."""
    if path.startswith(("postgresql://", "postgres://")):
        from ..errors import UnknownComponentError

        raise UnknownComponentError(
            "the PostgreSQL backend is not available in this version of remem; use a SQLite path"
        )
    from .sqlite import SQLiteStore

    return SQLiteStore(path, **options)  # type: ignore[arg-type]
