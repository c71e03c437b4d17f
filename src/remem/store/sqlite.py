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
  older files in order and refuses files from a newer remem. Extensions (engines'
  tables, API keys) version their own schemas (``store/extension.py``).
* Multi-statement reads (an extension's ``snapshot``) run in one read transaction,
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
from .sql import LEGACY_KEY, SqlStore, chunks, script

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

# Versions 2 to 5 added SYNAPSE's, ILSTMA's and the API keys' tables here; they now
# belong to their owners (``store/extension.py``: engines/synapse/storage.py,
# engines/ilstma/storage.py, keys.py), which create them through the extension hook.
# Version 6 is that split: the store's own tables are unchanged, and a file written at
# 1-5 records its version (``legacy_schema``) so each owner knows which of its tables
# the file already holds.
SPLIT_VERSION = 6


# Version 7: a long memory's passages (``index/passages.py``) beside its row: their
# character spans (JSON) and vectors (float32, one row per passage), NULL for a memory
# that is one passage. In the row, so a delete removes every passage with it.
_SCHEMA_V7 = """
ALTER TABLE memories ADD COLUMN passages TEXT;
ALTER TABLE memories ADD COLUMN passage_vectors BLOB
"""
PASSAGES_VERSION = 7


#: (version reached, function applying it); each runs inside the migration transaction.
MIGRATIONS: list[tuple[int, Callable[[sqlite3.Connection], None]]] = [
    (1, script(_SCHEMA_V1)),
    (SPLIT_VERSION, lambda con: None),
    (PASSAGES_VERSION, script(_SCHEMA_V7)),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class SQLiteStore(SqlStore):
    """A remem database in one SQLite file (or ``:memory:``); see the module notes."""

    dialect = "sqlite"
    _uid_pk = "+user_id"
    _no_limit = -1

    def __init__(
        self,
        path: str | Path = ":memory:",
        *,
        timeout_ms: int = BUSY_TIMEOUT_MS,
        create: bool = True,
    ):
        """``create=False`` opens only a file that exists (to read and write): a
        mistyped path is then a StoreError, not a new empty database."""
        self._init_extensions()
        self.path = str(path)
        self.shared = self.path != ":memory:"
        self._lock = threading.RLock()
        self._timeout_ms = timeout_ms
        # SQLite's own "open, never create" (a URI with mode=rw), so no file can
        # appear between a check and the open
        target, uri = (self.path, False)
        if self.shared and not create:
            target, uri = (f"{Path(self.path).absolute().as_uri()}?mode=rw", True)
        try:
            self._con = sqlite3.connect(
                target,
                timeout=timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,  # guarded by self._lock
                uri=uri,
            )
        except sqlite3.Error as exc:
            if uri and not Path(self.path).exists():
                raise StoreError(f"no database at {self.path!r}") from None
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
    def _open_read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._con

    @contextmanager
    def _open_snapshot(self) -> Iterator[sqlite3.Connection]:
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
    def _open_write(self, user_id: str | None = None) -> Iterator[sqlite3.Connection]:
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
        with self._open_write() as con:
            version = con.execute("PRAGMA user_version").fetchone()[0]
            self._check_version(version)
            legacy = version if 0 < version < SPLIT_VERSION else 0
            for target, step in MIGRATIONS:
                if version < target:
                    step(con)
                    con.execute(f"PRAGMA user_version = {target}")
                    version = target
            con.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                (str(version),),
            )
            if legacy:
                con.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    (LEGACY_KEY, str(legacy)),
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

    def _after_erase(self, tables: Sequence[str]) -> None:
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
