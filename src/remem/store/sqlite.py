"""SQLite storage (stdlib ``sqlite3``): the default, zero-setup backend.

Choices, and why:

* WAL journal and a busy timeout, and every write in ``BEGIN IMMEDIATE``: several
  processes may write one file; a writer waits for the lock instead of failing with
  "database is locked", and readers never block writers.
* ``secure_delete`` and a truncating WAL checkpoint after every erase (``delete``,
  ``delete_user``, an import taken back): the erased text must not linger in free
  pages or in the WAL while a long-running server keeps the file open, because
  "delete" has to mean gone. ``secure_delete`` zeroes the freed cells and pages; the
  checkpoint copies those zeroed pages over the old ones in the main file and empties
  the WAL. It cannot finish while another connection holds a read snapshot from before
  the erase (SQLite keeps the old pages for it): the checkpoint then waits at most
  ``scrub_wait_ms`` (not the minute-long busy timeout of writes), the erase raises
  :class:`~remem.errors.ErasureIncompleteError` (rows deleted, bytes not yet), and the
  scrub stays pending: it is retried after every later write without waiting, with
  waiting at every later erase, at :meth:`SQLiteStore.scrub` (``Memory.scrub()``) and
  on close.
* "Scrub pending" lives in the file, not in the process that erased: the erase's own
  transaction writes a mark (``meta`` ``scrub``) and a record of what it erased
  (``scrub:<user id>``), so a process killed before its scrub finished leaves the mark,
  and the next write of any process (one already running, or one opening the file,
  whose schema check writes) finishes the scrub, instead of SQLite's checkpoint when
  the file's last connection closes. The record answers a retry: an erase that finds
  nothing reports what the user's pending erase did (and only that user's; another
  user's erase of nothing is told nothing about it). The records name users, so once
  the erased pages are out of the files they are deleted and scrubbed the same way,
  and only then the mark goes.
* Embeddings as little-endian float32 blobs next to the row, so a restart never
  re-embeds and a row and its vector can never disagree.
* The schema version lives in ``PRAGMA user_version``; :data:`MIGRATIONS` upgrades
  older files in order and refuses files from a newer remem. Extensions (engines'
  tables, API keys) version their own schemas (``store/extension.py``).
* Multi-statement reads (an extension's ``snapshot``) run in one read transaction,
  so other processes' writes cannot land between them.
* ``key=``: the file is encrypted, every table in it (SQLite3 Multiple Ciphers
  through APSW, given ``sqlite3``'s calls by ``mcdb.py``; ``cipher.py`` says why and
  how).

The queries themselves are in ``sql.py``, shared with PostgreSQL; this module holds
the schema, the connection and locking, and what only SQLite does.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ErasureIncompleteError, InvalidInputError, StoreError
from ..types import StoredMemory
from . import cipher
from .base import INSERT_COLUMNS
from .envelope import KeyRing, make_envelope
from .sql import LEGACY_KEY, SqlStore, SqlTx, chunks, script

log = logging.getLogger("remem.store")

BUSY_TIMEOUT_MS = 60_000
"""How long a write waits for another writer's lock before "database is locked"."""
SCRUB_KEY = "scrub"
"""``meta`` key of the file-wide mark: present while an erase's bytes may still be in
the files; its value (a random token) changes at every erase, so a process clears only
the mark its own checkpoint covered."""
ERASED_PREFIX, ERASED_END = "scrub:", "scrub;"
"""``meta`` keys of the per-user records of pending erases, ``scrub:<user id>`` -> JSON
``{"ids": [...], "count": n}`` (``count`` once the whole user was erased)."""
SCRUB_WAIT_MS = 2_000
"""How long the checkpoint after an erase waits for other connections' reads and
writes: remem's own last milliseconds, so in a busy server they finish and the scrub
completes; a snapshot held longer than this (a backup, an open ``sqlite3`` shell) makes
the erase report the scrub pending instead of holding the caller for the write busy
timeout (the 40-60 s issue 18 measured)."""

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


NEW_FILE_TRIES = 5
"""Opens of an encrypted file that was empty when its key was given (another process
was creating it) before "not a database" is believed."""


def _empty(path: str) -> bool:
    """No file, or an empty one; by ``stat``, never by opening it (``cipher.unlock``)."""
    try:
        return Path(path).stat().st_size == 0
    except FileNotFoundError:
        return True


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
        scrub_wait_ms: int = SCRUB_WAIT_MS,
        create: bool = True,
        key: str | None = None,
        keyring: str | os.PathLike[str] | KeyRing | None = None,
    ):
        """``create=False`` opens only a file that exists (to read and write): a
        mistyped path is then a StoreError, not a new empty database. ``key``: the
        file is encrypted with it (``store/cipher.py``); a wrong or missing
        key is a :class:`~remem.errors.DatabaseKeyError` before anything is written.
        ``keyring``: each user's rows are sealed inside the file too, under the user's
        data key from this key store (a directory wrapped by ``key``, or a
        :class:`~remem.store.envelope.KeyRing`), so ``delete_user`` shreds the user in
        every copy of the file taken before (``store/envelope.py``)."""
        self._init_extensions()
        self.path = str(path)
        self.shared = self.path != ":memory:"
        #: whether the file is encrypted; the key itself is not kept
        self.encrypted = key is not None
        self._lock = threading.RLock()
        self._timeout_ms = timeout_ms
        self._scrub_wait_ms = scrub_wait_ms
        self._db = self._driver(key)
        for attempt in range(NEW_FILE_TRIES):
            # an encrypted file that another process creates at this very moment: the
            # key was given to an empty file (a salt of its own), then the other's first
            # page landed; opened again, the key reads that page's salt
            fresh = key is not None and _empty(self.path)
            try:
                self._open(create, key)
                break
            except StoreError as exc:
                if not fresh or "not a database" not in str(exc) or attempt == NEW_FILE_TRIES - 1:
                    raise
                time.sleep(0.05 * (attempt + 1))
        try:
            self._envelope = make_envelope(key, keyring, "SQLite file")
            # a write (the file's lock) only where the mark may be written
            with self._write() if self._envelope is not None else self._read() as tx:
                self._check_envelope(tx.con)
        except BaseException:
            self.close()
            raise

    def _open(self, create: bool, key: str | None) -> None:
        self._con = self._connect(create)
        try:
            if self.shared:
                cipher.unlock(self._con, self.path, key)
            self._setup()
        except StoreError:
            self._con.close()
            raise
        except self._db.Error as exc:
            self._con.close()
            raise StoreError(f"cannot use {self.path!r} as a remem database: {exc}") from exc

    def _driver(self, key: str | None) -> ModuleType:
        """stdlib ``sqlite3`` for a plain file, SQLite3 Multiple Ciphers for an
        encrypted one (``store/mcdb.py``); the first read (``cipher.unlock``) tells a
        key for the wrong kind of file, or none for an encrypted one."""
        if key is None:
            return sqlite3
        if not self.shared:
            raise InvalidInputError("a key encrypts a database file; ':memory:' takes none")
        return cipher.driver()

    def _connect(self, create: bool) -> Any:
        # SQLite's own "open, never create" (a URI with mode=rw), so no file can
        # appear between a check and the open
        target, uri = (self.path, False)
        if self.shared and not create:
            target, uri = (f"{Path(self.path).absolute().as_uri()}?mode=rw", True)
        try:
            return self._db.connect(
                target,
                timeout=self._timeout_ms / 1000,
                isolation_level=None,  # we issue BEGIN/COMMIT ourselves
                check_same_thread=False,  # guarded by self._lock
                uri=uri,
            )
        except self._db.Error as exc:
            if uri and not Path(self.path).exists():
                raise StoreError(f"no database at {self.path!r}") from None
            raise StoreError(f"cannot open SQLite database {self.path!r}: {exc}") from exc

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

    def _retry_locked(self, fn: Callable[[], object], attempts: int = 50) -> object:
        """Switching journal mode ignores busy_timeout in some SQLite versions; retry it."""
        for i in range(attempts):
            try:
                return fn()
            except self._db.OperationalError as exc:
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
            with self._immediate() as con:
                yield con
                # any process's erase left unscrubbed (the mark is in the file): try
                # after this commit, without waiting
                pending = self.shared and self._mark(con) is not None
            if pending:
                self._finish(0)

    @contextmanager
    def _immediate(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed unless its body raises (the caller holds
        ``self._lock``). The scrub's own bookkeeping uses it bare: ``_open_write``
        would try the scrub again after it."""
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
            f"INSERT INTO memories ({INSERT_COLUMNS}) VALUES ({marks})", self._sealed_values(rows)
        )

    def _note_erase(
        self, tx: SqlTx, user_id: str, ids: Sequence[str] = (), count: int | None = None
    ) -> None:
        if not self.shared:  # ":memory:": no file to scrub
            return
        record = self._pending_erase(tx, user_id) or {}
        record["ids"] = list(dict.fromkeys([*record.get("ids", ()), *ids]))
        if count is not None:  # a retry repeats the latest erase of the user
            record["count"] = count
        self._set_meta(tx, ERASED_PREFIX + user_id, json.dumps(record))
        self._set_meta(tx, SCRUB_KEY, uuid.uuid4().hex)

    def _pending_erase(self, tx: SqlTx, user_id: str) -> dict[str, Any] | None:
        if not self.shared:
            return None
        row = tx.one("SELECT value FROM meta WHERE key = ?", (ERASED_PREFIX + user_id,))
        return json.loads(row[0]) if row else None

    def _after_erase(self, tables: Sequence[str]) -> str | None:
        if not self.shared:  # ":memory:": no file to scrub
            return None
        with self._lock:
            return self._finish(self._scrub_wait_ms)

    @staticmethod
    def _mark(con: sqlite3.Connection) -> str | None:
        row = con.execute("SELECT value FROM meta WHERE key = ?", (SCRUB_KEY,)).fetchone()
        return row[0] if row else None

    def _finish(self, wait_ms: int) -> str | None:
        """Finish the file's pending scrub, whoever erased (under ``self._lock``, in no
        transaction): checkpoint; then delete the records of pending erases and
        checkpoint again (they name users), and only then the mark. A mark another
        erase replaced meanwhile stays for that erase's own scrub. None when every
        erase committed before this call is out of the files, else why not."""
        token = self._mark(self._con)
        if token is None:
            return None
        why = self._checkpoint(wait_ms)
        if why is not None:
            return why
        with self._immediate() as con:
            if self._mark(con) != token:
                return None
            records = con.execute(
                "DELETE FROM meta WHERE key >= ? AND key < ?", (ERASED_PREFIX, ERASED_END)
            ).rowcount
            token = uuid.uuid4().hex if records else ""
            if records:
                con.execute("UPDATE meta SET value = ? WHERE key = ?", (token, SCRUB_KEY))
            else:
                con.execute("DELETE FROM meta WHERE key = ?", (SCRUB_KEY,))
        if records and self._checkpoint(wait_ms) is None:
            # the mark itself names no one: no checkpoint needed after it goes
            with self._immediate() as con:
                if self._mark(con) == token:
                    con.execute("DELETE FROM meta WHERE key = ?", (SCRUB_KEY,))
        return None

    def _checkpoint(self, wait_ms: int) -> str | None:
        """Copy the WAL's pages into the main file (the erased ones zeroed by
        ``secure_delete``) and truncate the WAL, waiting at most ``wait_ms`` for other
        connections. None when done (nothing pending any more), else why not."""
        con = self._con
        con.execute(f"PRAGMA busy_timeout = {int(wait_ms)}")
        try:
            # (busy, frames in the WAL, frames copied); TRUNCATE empties the WAL only
            # when busy is 0: a reader of an older snapshot, or a writer, stops it
            busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            con.execute(f"PRAGMA busy_timeout = {int(self._timeout_ms)}")
        if busy:
            return (
                "their bytes are still in the database files: another connection holds "
                "a snapshot from before the erase (a long read or a backup). The scrub "
                "stays pending and finishes at the next write or erase, at "
                "Memory.scrub(), or on close, once that connection is done"
            )
        return None

    @property
    def scrub_pending(self) -> bool:
        """Read from the file: any process's erase counts."""
        if not self.shared:
            return False
        with self._lock:
            return self._mark(self._con) is not None

    def scrub(self) -> None:
        if not self.shared:
            return
        with self._lock:
            why = self._finish(self._scrub_wait_ms)
            if why is not None:
                raise ErasureIncompleteError(
                    f"the memories of an earlier erase are deleted, but {why}"
                )

    def close(self) -> None:
        with self._lock:
            if not isinstance(self._con, _Closed):
                try:
                    if self.shared and self._finish(self._scrub_wait_ms):
                        # the mark stays in the file: the next process to write there
                        # finishes it (or SQLite's checkpoint when the file's last
                        # connection closes); there is no caller left to raise to
                        log.warning(
                            "closing %s with an erase's bytes still in its WAL: another "
                            "connection holds an older snapshot",
                            self.path,
                        )
                finally:  # a failed scrub attempt must not keep the connection open
                    self._con.close()
                    self._con = _Closed()


class _Closed:
    """Stands in for the connection after ``close``: any use is a clear StoreError
    (not an AttributeError on None), whoever still holds the store."""

    def __getattr__(self, name: str) -> object:
        raise StoreError("this SQLite store is closed")
