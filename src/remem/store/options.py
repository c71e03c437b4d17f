"""What each store takes as ``store_options``, declared (``remem/options.py``) and
checked before anything is opened. The PostgreSQL options live here, not beside
:class:`~remem.store.postgres.PostgresStore`, so they are checked without importing
psycopg; tests hold each class's defaults to its backend's."""

from __future__ import annotations

from dataclasses import dataclass

from ..options import choice, number, path, switch

#: pgvector's use (``PostgresStore(vector=...)``)
VECTOR_MODES = ("auto", "pgvector", "off")
#: SQLite's busy timeout is a C int of milliseconds
_MAX_MS = 2**31 - 1


@dataclass(frozen=True)
class SQLiteOptions:
    """``store_options`` of a SQLite file or ``:memory:``."""

    timeout_ms: int = number(60_000, low=0, high=_MAX_MS)
    """how long a write waits for another writer's lock before "database is locked":
    a minute, so writers of several processes queue instead of failing
    (``store/sqlite.py``, ``BUSY_TIMEOUT_MS``)."""
    scrub_wait_ms: int = number(2_000, low=0, high=_MAX_MS)
    """how long the checkpoint after an erase waits for other connections' reads and
    writes: remem's own last milliseconds, so in a busy server they finish; a snapshot
    held longer (a backup) makes the erase report its scrub pending instead of holding
    the caller for the write timeout (``store/sqlite.py``, ``SCRUB_WAIT_MS``)."""
    keyring: str | None = path(None)
    """the directory of the users' data keys (wrapped by ``key=``): each user's rows
    are sealed inside the file too, so ``delete_user`` shreds the user in every copy
    of the file taken before (``store/envelope.py``). None: the file's key only."""
    create: bool = switch(True)
    """whether a missing file is created; False (the CLI's read commands) makes a
    mistyped path an error instead of a new empty database."""


@dataclass(frozen=True)
class PostgresOptions:
    """``store_options`` of a ``postgresql://`` URL."""

    min_size: int = number(1, low=0, high=10_000)
    """connections the pool keeps open: one, so the first call does not connect."""
    max_size: int = number(10, low=1, high=10_000)
    """connections at most (raised to ``min_size`` when below it): enough for a
    server's worker threads without holding many of the database's connections. Not
    tuned."""
    connect_timeout: float = number(10, low=0, high=86_400)
    """seconds to wait for a connection (at least 1 is used; the pool waits 30), so a
    dead host fails in seconds instead of libpq's default of waiting for ever. Not
    tuned."""
    vector: str = choice("auto", *VECTOR_MODES)
    """pgvector's use: "auto" uses it where it is installed or can be, "pgvector"
    requires it, "off" never touches it; auto, so search is fast where it can be and
    works everywhere."""
    vacuum_on_erase: bool | str = choice(False, False, True, "full")
    """whether an erase vacuums its tables (True: ``VACUUM``, "full": ``VACUUM FULL``,
    which also rewrites the files without the erased text). Off: the documented MVCC
    behaviour is autovacuum's, and a full vacuum locks each table while it is copied
    (``store/postgres.py``, module notes)."""
    keyring: str | None = path(None)
    """the directory of the users' data keys of an encrypted store (``key=`` is its
    master key; ``store/envelope.py``): apart from the database, so its dumps never
    hold a key and ``delete_user`` can destroy one. None: a plain store."""
    create: bool = switch(True)
    """taken for the same ``store_options`` as SQLite and ignored: a PostgreSQL
    database always exists (its administrator makes it; remem makes only tables)."""
