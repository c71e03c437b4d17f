"""PostgreSQL storage (psycopg 3 with a connection pool): for several servers or
workers sharing one database over the network.

Choices, and why:

* The same rows and semantics as ``sqlite.py``: embeddings as little-endian float32
  ``bytea`` beside the row, timestamps and metadata as the exact text SQLite keeps
  (``jsonb`` would reorder keys and refuse ``\\u0000``), ``COLLATE "C"`` on ids so
  ``users()`` and key lists sort by code point as in SQLite, not by the server's locale.
  Engines and caches cannot tell the backends apart. The queries are the same text
  too (``sql.py``); this module holds the schema, the pool, the locks and pgvector.
* Every write that touches one user runs in one transaction holding a per-user
  advisory lock (``pg_advisory_xact_lock``), the counterpart of SQLite's
  ``BEGIN IMMEDIATE`` but per user: sequence numbers stay dense and ordered, a delete
  and a concurrent consolidation cannot interleave (no mention of a deleted memory
  survives), and different users never wait for each other. Seq allocation also locks
  the ``users`` row (``INSERT ... ON CONFLICT DO NOTHING`` then ``FOR UPDATE``).
  The compare-and-swap writes of the engines' tables (SYNAPSE's ``graph_save``,
  ILSTMA's ``notes_save``) read their revision ``FOR UPDATE`` under that lock, so
  exactly one of two racing writers wins.
* Multi-statement reads (an extension's ``snapshot``) run in one REPEATABLE READ
  snapshot, so rows and their revision always agree.
* Migrations are versioned like SQLite's (:data:`MIGRATIONS`, the version in
  ``schema_migrations`` and in meta ``schema_version``, the same numbers as
  :data:`remem.store.sqlite.SCHEMA_VERSION`) and run in one transaction holding a
  database-wide advisory lock: N workers starting at once migrate exactly once, and a
  database from a newer remem is refused instead of misread.
* pgvector, when present, adds a dimension-less ``vec`` column filled on add and an
  exact per-user ``ORDER BY vec <=> q`` scan (:meth:`PostgresStore.vector_search`), so
  the dense channel can run where the data is. No ANN index is created by default:
  one user's memories are few (thousands), an exact scan of them through the
  ``(user_id, seq)`` index takes milliseconds, and an HNSW index is global: under a
  ``user_id`` filter it fetches the ``ef_search`` nearest rows of *all* users and
  filters them afterwards, so a small user's results are silently lost (pgvector 0.8's
  iterative scans soften this, within ``max_scan_tuples``). An exact scan also ranks
  exactly like the in-process index, so switching backends never changes answers.
  Rows written without the column (an
  instance with ``vector="off"``, a database that got pgvector later) are filled in
  from ``embedding`` on the next search of their user, so the scan never misses rows.
* Connections come from a ``psycopg_pool`` pool; construction connects once directly
  first, so an unreachable server or bad credentials fail at once with libpq's own
  reason and the host (never the password), not after a pool timeout.
* An erase (``delete``, ``delete_user``, an import taken back) deletes every row in one
  transaction, from every table of every engine, but PostgreSQL's MVCC keeps the
  dead row versions in the table files until (auto)vacuum prunes them, and the WAL
  keeps them until its segments are recycled. ``vacuum_on_erase=True`` runs ``VACUUM``
  on the affected tables right after every erase, so the dead versions are pruned at once
  instead of whenever autovacuum comes by; pruning frees the space but does not zero
  it, so the bytes can linger in a page until overwritten. ``vacuum_on_erase="full"``
  runs ``VACUUM FULL``, which rewrites the tables without them (measured: the text is
  then gone from the table files) at the price of an exclusive lock on each table while
  it is copied, which is why it is not the default. WAL archives and backups are out of
  reach of any of this; the operator's retention governs them.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import ConnectionPool

from ..errors import InvalidInputError, StoreError
from ..types import StoredMemory
from .base import INSERT_COLUMNS
from .envelope import KeyRing, make_envelope
from .options import VECTOR_MODES as _VECTOR_MODES
from .sql import LEGACY_KEY, SqlStore, SqlTx, script
from .sqlite import PASSAGES_VERSION as SQLITE_PASSAGES_VERSION
from .sqlite import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION
from .sqlite import SPLIT_VERSION as SQLITE_SPLIT_VERSION

#: pg_advisory_xact_lock(bigint) key serialising migrations ("remem" + 1).
MIGRATION_LOCK = 0x72656D656D0001
#: First key of pg_advisory_xact_lock(int, int) per-user write locks (the two-key
#: space does not overlap the one-key space of the migration lock).
USER_LOCK_CLASS = 0x72656D00

# The store's own tables, as SQLite's (see ``sqlite.py``). Text keys use the "C"
# collation: byte order like SQLite, and cheaper comparisons than a locale's.
# Embeddings are stored uncompressed (EXTERNAL): float32 bytes do not compress, so
# pglz's attempt on every row would be wasted. Until version 6 this script also held
# SYNAPSE's, ILSTMA's and the API keys' tables (a fresh database went straight to 5);
# their owners now create them through the extension hook (``store/extension.py``).
_SCHEMA_CORE = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT COLLATE "C" PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
    user_id  TEXT COLLATE "C" PRIMARY KEY,
    epoch    TEXT NOT NULL,
    next_seq BIGINT NOT NULL,
    del_rev  BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS memories (
    id         TEXT COLLATE "C" PRIMARY KEY,
    user_id    TEXT COLLATE "C" NOT NULL,
    seq        BIGINT NOT NULL,
    text       TEXT NOT NULL,
    speaker    TEXT,
    ts         TEXT NOT NULL,
    ts_epoch   DOUBLE PRECISION NOT NULL,
    session_id TEXT,
    metadata   TEXT NOT NULL,
    embedding  BYTEA,
    created_at DOUBLE PRECISION NOT NULL
);
ALTER TABLE memories ALTER COLUMN embedding SET STORAGE EXTERNAL;
CREATE UNIQUE INDEX IF NOT EXISTS memories_user_seq ON memories (user_id, seq)
"""

# Version 7, as SQLite's: a long memory's passages beside its row (spans as JSON text,
# vectors uncompressed like the embedding).
_SCHEMA_V7 = """
ALTER TABLE memories ADD COLUMN IF NOT EXISTS passages TEXT;
ALTER TABLE memories ADD COLUMN IF NOT EXISTS passage_vectors BYTEA;
ALTER TABLE memories ALTER COLUMN passage_vectors SET STORAGE EXTERNAL
"""

# The optional pgvector column; not part of the versioned schema because whether the
# extension can be installed depends on the server, not on the remem version. The
# partial index finds rows still lacking their vector without scanning the user.
_VECTOR_DDL = """
ALTER TABLE memories ADD COLUMN IF NOT EXISTS vec vector;
CREATE INDEX IF NOT EXISTS memories_vec_missing ON memories (user_id)
    WHERE vec IS NULL AND embedding IS NOT NULL
"""


#: (version reached, function applying it); each runs inside the migration transaction.
#: A fresh database goes straight to the latest; versions are numbered as SQLite's, so
#: both backends move together. A database at 5 (every table in one script) runs the
#: core script again (all ``IF NOT EXISTS``) and records 5 as its legacy version.
MIGRATIONS: list[tuple[int, Callable[[psycopg.Connection], None]]] = [
    (SQLITE_SPLIT_VERSION, script(_SCHEMA_CORE)),
    (SQLITE_PASSAGES_VERSION, script(_SCHEMA_V7)),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]
assert SCHEMA_VERSION == SQLITE_SCHEMA_VERSION, "PostgreSQL and SQLite schemas must move together"


def _scalar(con: psycopg.Connection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    return row[0] if row else None


@functools.lru_cache(maxsize=256)
def _placeholders(sql: str) -> str:
    """The shared SQL's ``?`` as psycopg's ``%s`` (no shared statement holds a literal
    ``?`` or ``%``)."""
    return sql.replace("?", "%s")


def _sealed_vector_mode(vector: str) -> str:
    """pgvector's column would hold each vector in clear: an encrypted store ranks in
    process ("off"), and refuses a caller who required pgvector."""
    if vector == "pgvector":
        raise InvalidInputError(
            "vector='pgvector' ranks plain vectors in the server; an encrypted "
            "store seals them and ranks in process (vector='auto' or 'off')"
        )
    return "off"


def _vec_text(vec: np.ndarray) -> str:
    """pgvector's text input; a float32's double repr parses back to the same float32."""
    return "[" + ",".join(map(repr, np.asarray(vec, dtype=np.float32).ravel().tolist())) + "]"


class PostgresStore(SqlStore):
    """A remem database in PostgreSQL, shared by any number of processes.

    ``url`` is a libpq URL (``postgresql://user:password@host:port/dbname``, with
    query parameters such as ``sslmode`` or ``options=-csearch_path%3Dremem``); the
    pool keeps ``min_size`` to ``max_size`` connections. ``vector``: "auto" uses
    pgvector when it is installed or can be, "pgvector" requires it, "off" never
    touches it. ``vacuum_on_erase``: False, True (``VACUUM`` after every ``delete``
    and ``delete_user``) or "full" (``VACUUM FULL``); see the module notes. An erase
    here never raises :class:`~remem.errors.ErasureIncompleteError`: what stays in
    the files without a vacuum is the documented MVCC behaviour, not a failed scrub.
    """

    shared = True
    dialect = "postgres"
    _greatest = "GREATEST"
    _least = "LEAST"
    _for_update = " FOR UPDATE"

    def __init__(
        self,
        url: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10,
        vector: str = "auto",
        vacuum_on_erase: bool | str = False,
        key: str | bytes | None = None,
        keyring: str | os.PathLike[str] | KeyRing | None = None,
    ):
        self._envelope = make_envelope(key, keyring, "PostgreSQL store")
        if self._envelope is not None:
            vector = _sealed_vector_mode(vector)
        if vector not in _VECTOR_MODES:
            raise StoreError(f"vector must be one of {', '.join(_VECTOR_MODES)}, not {vector!r}")
        if vacuum_on_erase not in (False, True, "full"):
            raise StoreError(
                f"vacuum_on_erase must be False, True or 'full', not {vacuum_on_erase!r}"
            )
        self._init_extensions()
        self._pool: ConnectionPool | None = None
        try:
            info = conninfo_to_dict(url)
        except psycopg.Error as exc:
            reason = re.sub(r"(://[^:/@\s]*):[^@\s]*@", r"\1:***@", str(exc))  # hide password
            raise StoreError(
                f"invalid PostgreSQL URL ({reason}); "
                "expected postgresql://user:password@host:port/dbname"
            ) from None
        self._password = str(info.get("password") or "")
        host = str(info.get("host") or "")
        port = f":{info['port']}" if info.get("port") else ""
        user = f"{info['user']}@" if info.get("user") else ""
        dbname = info.get("dbname") or ""
        #: Where this store points, for messages: never the password.
        self.location = (
            f"postgresql://{user}/{dbname}?host={host}"  # a Unix socket directory
            if host.startswith("/")
            else f"postgresql://{user}{host or 'localhost'}{port}/{dbname}"
        )
        self.vacuum_on_erase = vacuum_on_erase
        self.vector = False  # set by _setup: whether vec is filled and searched
        timeout = max(float(connect_timeout), 1.0)
        try:
            con = psycopg.connect(url, autocommit=True, connect_timeout=max(int(timeout), 2))
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot connect to PostgreSQL at {self.location}: {self._scrub(exc)}"
            ) from None
        try:
            self._setup(con, vector)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot use {self.location} as a remem database: {self._scrub(exc)}"
            ) from exc
        finally:
            con.close()
        pool = ConnectionPool(
            url,
            min_size=min_size,
            max_size=max(max_size, min_size),
            kwargs={"autocommit": True, "connect_timeout": max(int(timeout), 2)},
            timeout=max(timeout, 30.0),
            name="remem",
            open=False,
            # a connection broken by a server restart or failover is replaced when it
            # is checked out, not discovered by the caller's query (one empty round
            # trip per checkout: about 0.08 ms measured on a local socket)
            check=ConnectionPool.check_connection,
        )
        try:
            pool.open(wait=True, timeout=timeout)
        except psycopg.Error as exc:
            pool.close()
            raise StoreError(
                f"cannot open a connection pool to {self.location}: {self._scrub(exc)}"
            ) from None
        self._pool = pool

    def __repr__(self) -> str:
        return f"PostgresStore({self.location!r})"

    # -- plumbing -----------------------------------------------------------------

    def _scrub(self, exc: BaseException) -> str:
        msg = str(exc).strip() or type(exc).__name__
        if self._password:
            msg = msg.replace(self._password, "***")
        return msg

    def _setup(self, con: psycopg.Connection, vector: str) -> None:
        with con.transaction():
            con.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            version = 0
            if _scalar(con, "SELECT to_regclass('schema_migrations')"):
                version = _scalar(con, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations")
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.location} has schema version {version}, newer than this remem "
                    f"understands ({SCHEMA_VERSION}); upgrade remem"
                )
            con.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
            legacy = version if 0 < version < SQLITE_SPLIT_VERSION else 0
            for target, step in MIGRATIONS:
                if version < target:
                    step(con)
                    con.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (target,))
                    version = target
            if legacy:
                con.execute(
                    "INSERT INTO meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO NOTHING",
                    (LEGACY_KEY, str(legacy)),
                )
            con.execute(
                "INSERT INTO meta (key, value) VALUES ('schema_version', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (str(version),),
            )
            self._check_envelope(con)  # in the migration's transaction, under its lock
            if vector != "off":
                self.vector = self._enable_vector(con, required=vector == "pgvector")

    def _enable_vector(self, con: psycopg.Connection, *, required: bool) -> bool:
        """Install pgvector and the vec column in a savepoint: on a server without the
        extension (or without the right to create it) "auto" carries on without."""
        available = con.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone()
        if available is None and not required:
            return False  # asking anyway would leave an error in the server's log per open
        try:
            with con.transaction():  # a savepoint inside the migration transaction
                con.execute("CREATE EXTENSION IF NOT EXISTS vector")
                script(_VECTOR_DDL)(con)
        except psycopg.Error as exc:
            if required:
                raise StoreError(
                    f"pgvector is not usable on {self.location}: {self._scrub(exc)}"
                ) from None
            return False
        return True

    def _connection(self) -> Any:
        if self._pool is None:
            raise StoreError("this PostgreSQL store is closed")
        return self._pool.connection()

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """psycopg and pool failures surface as StoreError; our own errors pass through."""
        try:
            yield
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL error on {self.location}: {self._scrub(exc)}") from exc

    @contextmanager
    def _open_read(self) -> Iterator[psycopg.Connection]:
        """A pooled connection in autocommit: each statement sees the latest commits."""
        with self._errors(), self._connection() as con:
            yield con

    @contextmanager
    def _open_snapshot(self) -> Iterator[psycopg.Connection]:
        """Several reads from one consistent snapshot."""
        with self._errors(), self._connection() as con, con.transaction():
            con.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield con

    @contextmanager
    def _open_write(self, user_id: str | None = None) -> Iterator[psycopg.Connection]:
        """One transaction; with ``user_id``, serialised against the user's other writes."""
        with self._errors(), self._connection() as con, con.transaction():
            if user_id is not None:
                con.execute(
                    "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (USER_LOCK_CLASS, user_id)
                )
            yield con

    def _sql(self, sql: str) -> str:
        return _placeholders(sql)

    def _many(self, con: psycopg.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            with con.cursor() as cur:
                cur.executemany(self._sql(sql), rows)

    def _in(
        self, con: psycopg.Connection, sql: str, args: Sequence[Any], ids: Sequence[str]
    ) -> list[tuple]:
        cur = con.execute(self._sql(sql.format(**{"in": "= ANY(?)"})), (*args, list(ids)))
        return cur.fetchall() if cur.description else []

    def _fetch_memories(self, con: psycopg.Connection, sql: str, args: Sequence[Any]) -> list:
        with con.cursor(binary=True) as cur:  # bytea as raw bytes, not hex text to decode
            return cur.execute(self._sql(sql), tuple(args)).fetchall()

    def _insert_memories(
        self, con: psycopg.Connection, rows: list[tuple[StoredMemory, list[Any]]]
    ) -> None:
        cols = INSERT_COLUMNS
        marks = ", ".join(["%s"] * len(cols.split(",")))
        params = self._sealed_values(rows)
        if self.vector:
            cols, marks = cols + ", vec", marks + ", %s::vector"
            params = [
                values + [None if m.embedding is None else _vec_text(m.embedding)]
                for m, values in rows
            ]
        with con.cursor() as cur:
            cur.executemany(f"INSERT INTO memories ({cols}) VALUES ({marks})", params)

    def _lock_schema(self, tx: SqlTx) -> None:
        # the migration lock: N workers attaching an extension at once migrate once
        tx.con.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))

    def _after_erase(self, tables: Sequence[str]) -> str | None:
        if self.vacuum_on_erase:
            # VACUUM cannot run in a transaction block: the pooled connections are in
            # autocommit, and this runs after the erase committed.
            full = "FULL " if self.vacuum_on_erase == "full" else ""
            with self._open_read() as con:
                con.execute(f"VACUUM {full}{', '.join(dict.fromkeys(tables))}")
        return None

    def vector_search(
        self, user_id: str, vec: np.ndarray, k: int
    ) -> list[tuple[str, float]] | None:
        """Exact cosine scan of the user's rows in the server (see the module notes);
        None without pgvector, so the engines search in process."""
        if not self.vector:
            return None
        with self._open_read() as con:
            self._fill_vectors(con, user_id)
            rows = con.execute(
                "SELECT id, vec <=> %s::vector AS d FROM memories "
                "WHERE user_id = %s AND vec IS NOT NULL ORDER BY d, seq LIMIT %s",
                (_vec_text(vec), user_id, int(k)),
            ).fetchall()
        return [(i, 1.0 - float(d)) for i, d in rows]

    @staticmethod
    def _fill_vectors(con: psycopg.Connection, user_id: str) -> None:
        """Give ``vec`` to the user's rows written without it (one partial-index probe
        when there are none)."""
        missing = con.execute(
            "SELECT id, embedding FROM memories "
            "WHERE user_id = %s AND vec IS NULL AND embedding IS NOT NULL",
            (user_id,),
        ).fetchall()
        if missing:
            with con.transaction(), con.cursor() as cur:
                cur.executemany(
                    "UPDATE memories SET vec = %s::vector WHERE id = %s AND vec IS NULL",
                    [(_vec_text(np.frombuffer(blob, dtype="<f4")), i) for i, blob in missing],
                )

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
