"""SQLite storage (stdlib ``sqlite3``): the default, zero-setup backend.

Choices, and why:

* WAL journal and a busy timeout, and every write in ``BEGIN IMMEDIATE``: several
  processes may write one file; a writer waits for the lock instead of failing with
  "database is locked", and readers never block writers.
* ``secure_delete`` and a WAL checkpoint after erasing a user: a deleted user's text
  must not linger in free pages or in the WAL, because "delete" has to mean gone.
* Embeddings as little-endian float32 blobs next to the row, so a restart never
  re-embeds and a row and its vector can never disagree.
* The schema version lives in ``PRAGMA user_version``; :data:`MIGRATIONS` upgrades
  older files in order and refuses files from a newer remem.
* Multi-statement reads (``graph_load``, ``notes_load``) run in one read transaction,
  so other processes' writes cannot land between them.

The queries themselves are in ``sql.py``, shared with PostgreSQL; this module holds
the schema, the connection and locking, and what only SQLite does.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..types import StoredMemory
from .base import INSERT_COLUMNS
from .sql import SqlStore, chunks, script

BUSY_TIMEOUT_MS = 60_000

_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
    user_id  TEXT PRIMARY KEY,
    epoch    TEXT NOT NULL,
    next_seq INTEGER NOT NULL,
    del_rev  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS memories (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    seq        INTEGER NOT NULL,
    text       TEXT NOT NULL,
    speaker    TEXT,
    ts         TEXT NOT NULL,
    ts_epoch   REAL NOT NULL,
    session_id TEXT,
    metadata   TEXT NOT NULL,
    embedding  BLOB,
    created_at REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS memories_user_seq ON memories (user_id, seq);
"""

# SYNAPSE's semantic layer. Mentions are what the extractor found in each memory;
# concepts are the canonical semantic nodes (with their label vectors) and aliases
# map every label that was merged into a concept. Temporal, abstraction and
# association edges are pure functions of these rows and the memories' vectors, so
# they are rebuilt, never stored twice.
_SCHEMA_V2 = """
CREATE TABLE IF NOT EXISTS syn_mentions (
    user_id   TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    label     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    PRIMARY KEY (user_id, memory_id, label)
);
CREATE INDEX IF NOT EXISTS syn_mentions_label ON syn_mentions (user_id, label);
CREATE TABLE IF NOT EXISTS syn_concepts (
    user_id   TEXT NOT NULL,
    cid       INTEGER NOT NULL,
    label     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    embedding BLOB NOT NULL,
    archived  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, cid)
);
CREATE TABLE IF NOT EXISTS syn_aliases (
    user_id TEXT NOT NULL,
    label   TEXT NOT NULL,
    cid     INTEGER NOT NULL,
    PRIMARY KEY (user_id, label)
);
CREATE TABLE IF NOT EXISTS syn_state (
    user_id          TEXT PRIMARY KEY,
    consolidated_seq INTEGER NOT NULL,
    rev              INTEGER NOT NULL
)
"""


# SYNAPSE's dormancy bookkeeping: the latest consolidation window in which a node was
# active beyond what the memories themselves imply (a query reached it). Which nodes
# are archived is a pure function of these rows, the memories' windows and the
# engine's configuration, so no archived flag is stored (v2's ``archived`` column is
# dropped).
_SCHEMA_V3 = """
CREATE TABLE IF NOT EXISTS syn_activity (
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    ref     TEXT NOT NULL,
    win     INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, ref)
) WITHOUT ROWID;
ALTER TABLE syn_concepts DROP COLUMN archived
"""


# ILSTMA: recall metadata of global-memory-table entries (rows only for entries
# recalled at least once), summaries and personality traits ("notes", cascaded by the
# sequence range of memories they were made from), and how far summarising got.
_SCHEMA_V4 = """
CREATE TABLE IF NOT EXISTS table_meta (
    user_id      TEXT NOT NULL,
    memory_id    TEXT NOT NULL,
    recall_times INTEGER NOT NULL,
    last_recall  REAL NOT NULL,
    PRIMARY KEY (user_id, memory_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ilstma_notes (
    user_id   TEXT NOT NULL,
    kind      TEXT NOT NULL,
    nid       INTEGER NOT NULL,
    speaker   TEXT,
    first_seq INTEGER NOT NULL,
    last_seq  INTEGER NOT NULL,
    pieces    TEXT NOT NULL,
    PRIMARY KEY (user_id, kind, nid)
);
CREATE TABLE IF NOT EXISTS ilstma_state (
    user_id        TEXT PRIMARY KEY,
    summarized_seq INTEGER NOT NULL
)
"""


# The HTTP server's API keys: a public key id, the tenant it is bound to, and the
# SHA-256 digest of its secret part (never the secret itself).
_SCHEMA_V5 = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id  TEXT PRIMARY KEY,
    tenant  TEXT NOT NULL,
    digest  TEXT NOT NULL,
    label   TEXT,
    created REAL NOT NULL,
    revoked REAL
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant)
"""


#: (version reached, function applying it); each runs inside the migration transaction.
MIGRATIONS: list[tuple[int, Callable[[sqlite3.Connection], None]]] = [
    (1, script(_SCHEMA_V1)),
    (2, script(_SCHEMA_V2)),
    (3, script(_SCHEMA_V3)),
    (4, script(_SCHEMA_V4)),
    (5, script(_SCHEMA_V5)),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class SQLiteStore(SqlStore):
    """A remem database in one SQLite file (or ``:memory:``); see the module notes."""

    _uid_pk = "+user_id"
    _no_limit = -1

    def __init__(self, path: str | Path = ":memory:", *, timeout_ms: int = BUSY_TIMEOUT_MS):
        self.path = str(path)
        self.shared = self.path != ":memory:"
        self._lock = threading.RLock()
        self._timeout_ms = timeout_ms
        try:
            self._con = sqlite3.connect(
                self.path,
                timeout=timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,  # guarded by self._lock
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open SQLite database {self.path!r}: {exc}") from exc
        try:
            self._setup()
        except StoreError:
            self._con.close()
            raise
        except sqlite3.Error as exc:
            self._con.close()
            raise StoreError(f"cannot use {self.path!r} as a remem database: {exc}") from exc

    def _setup(self) -> None:
        con = self._con
        con.execute(f"PRAGMA busy_timeout = {int(self._timeout_ms)}")
        con.execute("PRAGMA secure_delete = ON")
        con.execute("PRAGMA foreign_keys = ON")
        self._check_version(con.execute("PRAGMA user_version").fetchone()[0])
        if self.shared:
            mode = con.execute("PRAGMA journal_mode").fetchone()[0]
            if mode.lower() != "wal":
                self._retry_locked(lambda: con.execute("PRAGMA journal_mode = WAL").fetchone())
            con.execute("PRAGMA synchronous = NORMAL")
        self._migrate()

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path!r} has schema version {version}, newer than this remem "
                f"understands ({SCHEMA_VERSION}); upgrade remem"
            )

    # -- plumbing -----------------------------------------------------------------

    @staticmethod
    def _retry_locked(fn: Callable[[], object], attempts: int = 50) -> object:
        """Switching journal mode ignores busy_timeout in some SQLite versions; retry it."""
        for i in range(attempts):
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or i == attempts - 1:
                    raise
                time.sleep(0.05 * (i + 1))
        return None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._con

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: in WAL mode its statements see one state even while
        other processes write."""
        with self._lock:
            con = self._con
            con.execute("BEGIN")
            try:
                yield con
            finally:
                con.execute("COMMIT")

    @contextmanager
    def _write(self, user_id: str | None = None) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` takes the file's write lock: one writer at a time, for
        every user (SQLite has no finer lock)."""
        with self._lock:
            con = self._con
            con.execute("BEGIN IMMEDIATE")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            else:
                con.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as con:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            self._check_version(version)
            for target, step in MIGRATIONS:
                if version < target:
                    step(con)
                    con.execute(f"PRAGMA user_version = {target}")
                    version = target
            con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(version),),
            )

    def _in(
        self, con: sqlite3.Connection, sql: str, args: Sequence[Any], ids: Sequence[str]
    ) -> list[tuple]:
        out: list[tuple] = []
        for part in chunks(ids, 500):  # under SQLite's bound-variable limit
            marks = ",".join("?" * len(part))
            out += con.execute(sql.format(**{"in": f"IN ({marks})"}), (*args, *part)).fetchall()
        return out

    def _insert_memories(
        self, con: sqlite3.Connection, rows: list[tuple[StoredMemory, list[Any]]]
    ) -> None:
        marks = ", ".join("?" * len(INSERT_COLUMNS.split(",")))
        con.executemany(
            f"INSERT INTO memories ({INSERT_COLUMNS}) VALUES ({marks})",
            [values for _, values in rows],
        )

    def _is_duplicate(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.IntegrityError)

    def _after_erase(self) -> None:
        if self.shared:
            # Move the WAL's copies of the erased pages into the (zeroed) main file and
            # truncate the WAL, so the user's text is gone from every file on disk.
            with self._lock:
                self._con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def close(self) -> None:
        with self._lock:
            if not isinstance(self._con, _Closed):
                self._con.close()
                self._con = _Closed()  # type: ignore[assignment]


class _Closed:
    """Stands in for the connection after ``close``: any use is a clear StoreError
    (not an AttributeError on None), whoever still holds the store."""

    def __getattr__(self, name: str) -> object:
        raise StoreError("this SQLite store is closed")
