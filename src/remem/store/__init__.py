"""Storage backends behind one :class:`Store` interface, picked from the path."""

from __future__ import annotations

from ..validation import check_keywords
from .base import Store, UserState

__all__ = ["Store", "UserState", "open_store"]


def open_store(path: str, *, create: bool = True, **options: object) -> Store:
    """``:memory:`` or a file path gives SQLite; a ``postgresql://`` (or ``postgres://``)
    URL gives PostgreSQL, which needs the ``postgres`` extra (psycopg and its pool).
    ``create=False``: a SQLite file must exist already (a PostgreSQL database always
    does: its administrator makes it, and remem only its tables). ``options`` are the
    backend's own settings, checked by name and type before anything is opened."""
    if path.startswith(("postgresql://", "postgres://")):
        from ..errors import StoreError

        try:
            from .postgres import PostgresStore
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in ("psycopg", "psycopg_pool"):
                raise
            raise StoreError(
                "PostgreSQL URLs need psycopg 3 and psycopg_pool: pip install 'remem[postgres]'"
            ) from exc
        check_keywords(PostgresStore, options, "store_options", taken=("url",))
        return PostgresStore(path, **options)  # type: ignore[arg-type]
    from .sqlite import SQLiteStore

    check_keywords(SQLiteStore, options, "store_options", taken=("path", "create"))
    return SQLiteStore(path, create=create, **options)  # type: ignore[arg-type]
