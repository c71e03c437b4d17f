"""Storage backends behind one :class:`Store` interface, picked from the path."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from ..options import resolve
from .base import Store, UserState
from .options import PostgresOptions, SQLiteOptions

__all__ = ["Store", "UserState", "open_store", "store_options"]


def is_postgres(path: str) -> bool:
    return path.startswith(("postgresql://", "postgres://"))


def store_options(path: str, options: Mapping[str, Any]) -> SQLiteOptions | PostgresOptions:
    """``options`` checked against what the backend ``path`` picks takes (name, type,
    range), without opening anything or importing the backend."""
    if is_postgres(path):
        return resolve(PostgresOptions, options, "store_options")
    return resolve(SQLiteOptions, options, "store_options")


def open_store(
    path: str, *, create: bool = True, key: str | None = None, **options: object
) -> Store:
    """``:memory:`` or a file path gives SQLite; a ``postgresql://`` (or ``postgres://``)
    URL gives PostgreSQL, which needs the ``postgres`` extra (psycopg and its pool).
    ``create=False``: a SQLite file must exist already (a PostgreSQL database always
    does: its administrator makes it, and remem only its tables). ``options`` are the
    backend's own settings (:mod:`remem.store.options`), checked by name, type and
    range before anything is opened. ``key``: a SQLite file encrypted with it
    (``store/cipher.py``), or PostgreSQL's master key, wrapping the users' data keys
    in the ``keyring`` directory option (``store/envelope.py``)."""
    settings = asdict(store_options(path, {**options, "create": create}))
    if is_postgres(path):
        from ..errors import StoreError

        try:
            from .postgres import PostgresStore
        except ModuleNotFoundError as exc:
            if (exc.name or "").split(".")[0] not in ("psycopg", "psycopg_pool"):
                raise
            raise StoreError(
                "PostgreSQL URLs need psycopg 3 and psycopg_pool: pip install 'remem[postgres]'"
            ) from exc
        del settings["create"]
        return PostgresStore(path, key=key, **_with_keyring(key, settings))
    from .sqlite import SQLiteStore

    return SQLiteStore(path, key=key, **_with_keyring(key, settings))


def _with_keyring(key: str | None, settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` with the key store of ``REMEM_KEYRING`` (the CLI's, a server's)
    when a key is given and the options name none."""
    if key is not None and settings.get("keyring") is None:
        from .. import env

        settings = {**settings, "keyring": env.read("REMEM_KEYRING") or None}
    return settings
