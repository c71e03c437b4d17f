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
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import numpy as np

from ..errors import StoreError
from ..types import NewMemory, StoredMemory
from .base import (
    INSERT_COLUMNS,
    KEY_COLUMNS,
    MEMORY_COLUMNS,
    USER_TABLES,
    GraphRows,
    KeyRow,
    NoteRow,
    Store,
    UserState,
    metadata_from_json,
    new_rows,
)

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


def _run_script(script: str) -> Callable[[sqlite3.Connection], None]:
    """``executescript`` would COMMIT the migration transaction; run statements one by one."""

    def step(con: sqlite3.Connection) -> None:
        for statement in script.split(";"):
            if statement.strip():
                con.execute(statement)

    return step


#: (version reached, function applying it); each runs inside the migration transaction.
MIGRATIONS: list[tuple[int, Callable[[sqlite3.Connection], None]]] = [
    (1, _run_script(_SCHEMA_V1)),
    (2, _run_script(_SCHEMA_V2)),
    (3, _run_script(_SCHEMA_V3)),
    (4, _run_script(_SCHEMA_V4)),
    (5, _run_script(_SCHEMA_V5)),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


def _row_to_memory(row: tuple, embedding: bytes | None = None) -> StoredMemory:
    vec = None
    if embedding is not None:
        vec = np.frombuffer(embedding, dtype="<f4")
    return StoredMemory(
        id=row[0],
        user_id=row[1],
        seq=row[2],
        text=row[3],
        speaker=row[4],
        timestamp=datetime.fromisoformat(row[5]),
        session_id=row[6],
        metadata=metadata_from_json(row[7]),
        embedding=vec,
    )


class SQLiteStore(Store):
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
    def _write(self) -> Iterator[sqlite3.Connection]:
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

    # -- writes -------------------------------------------------------------------

    def add(
        self, user_id: str, memories: Sequence[NewMemory], embeddings: np.ndarray | None
    ) -> list[StoredMemory]:
        if embeddings is not None and len(embeddings) != len(memories):
            raise StoreError("one embedding per memory is required")
        with self._write() as con:
            row = con.execute("SELECT next_seq FROM users WHERE user_id = ?", (user_id,)).fetchone()
            if row is None:
                con.execute(
                    "INSERT INTO users (user_id, epoch, next_seq, del_rev) VALUES (?, ?, 0, 0)",
                    (user_id, uuid.uuid4().hex),
                )
                seq0 = 0
            else:
                seq0 = row[0]
            rows = new_rows(user_id, memories, embeddings, seq0)
            out = [stored for stored, _ in rows]
            marks = ", ".join("?" * len(INSERT_COLUMNS.split(",")))
            con.executemany(
                f"INSERT INTO memories ({INSERT_COLUMNS}) VALUES ({marks})",
                [values for _, values in rows],
            )
            con.execute(
                "UPDATE users SET next_seq = ? WHERE user_id = ?",
                (seq0 + len(memories), user_id),
            )
        return out

    def delete(self, user_id: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        with self._write() as con:
            found = self._existing(con, user_id, ids)
            if found:
                pairs = [(user_id, i) for i in found]
                self._drop_notes(con, user_id, found)
                con.executemany("DELETE FROM table_meta WHERE user_id = ? AND memory_id = ?", pairs)
                con.executemany("DELETE FROM memories WHERE user_id = ? AND id = ?", pairs)
                con.executemany(
                    "DELETE FROM syn_mentions WHERE user_id = ? AND memory_id = ?", pairs
                )
                con.executemany(
                    "DELETE FROM syn_activity WHERE user_id = ? AND kind = 'm' AND ref = ?",
                    pairs,
                )
                self._drop_orphan_concepts(con, user_id)
                con.execute("UPDATE users SET del_rev = del_rev + 1 WHERE user_id = ?", (user_id,))
        return found

    @staticmethod
    def _existing(con: sqlite3.Connection, user_id: str, ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for chunk in _chunks(list(dict.fromkeys(ids)), 500):
            marks = ",".join("?" * len(chunk))
            have = {
                r[0]
                for r in con.execute(
                    f"SELECT id FROM memories WHERE +user_id = ? AND id IN ({marks})",
                    (user_id, *chunk),
                )
            }
            found.extend(i for i in chunk if i in have)
        return found

    @staticmethod
    def _drop_notes(con: sqlite3.Connection, user_id: str, ids: list[str]) -> None:
        """Notes quoting a deleted memory go; summarising resumes before the earliest
        dropped summary, so the surviving memories of its group are summarised again."""
        seqs = []
        for chunk in _chunks(ids, 500):
            marks = ",".join("?" * len(chunk))
            seqs += [
                r[0]
                for r in con.execute(
                    f"SELECT seq FROM memories WHERE +user_id = ? AND id IN ({marks})",
                    (user_id, *chunk),
                )
            ]
        restart = None
        for seq in seqs:
            rows = con.execute(
                "SELECT kind, first_seq FROM ilstma_notes WHERE user_id = ? AND "
                "first_seq <= ? AND last_seq >= ?",
                (user_id, seq, seq),
            ).fetchall()
            for kind, first in rows:
                if kind == "summary":
                    restart = first if restart is None else min(restart, first)
            con.execute(
                "DELETE FROM ilstma_notes WHERE user_id = ? AND first_seq <= ? AND last_seq >= ?",
                (user_id, seq, seq),
            )
        if restart is not None:
            con.execute(
                "DELETE FROM ilstma_notes WHERE user_id = ? AND kind IN ('summary', 'trait') "
                "AND last_seq >= ?",
                (user_id, restart),
            )
            con.execute(
                "UPDATE ilstma_state SET summarized_seq = MIN(summarized_seq, ?) WHERE user_id = ?",
                (restart - 1, user_id),
            )

    @staticmethod
    def _drop_orphan_concepts(con: sqlite3.Connection, user_id: str) -> None:
        """Concepts no remaining memory mentions go too: no dangling semantic nodes."""
        con.execute(
            "DELETE FROM syn_aliases WHERE user_id = ? AND label NOT IN "
            "(SELECT label FROM syn_mentions WHERE user_id = ?)",
            (user_id, user_id),
        )
        con.execute(
            "DELETE FROM syn_concepts WHERE user_id = ? AND cid NOT IN "
            "(SELECT cid FROM syn_aliases WHERE user_id = ?)",
            (user_id, user_id),
        )
        con.execute(
            "DELETE FROM syn_activity WHERE user_id = ? AND kind = 'c' AND CAST(ref AS INTEGER) "
            "NOT IN (SELECT cid FROM syn_concepts WHERE user_id = ?)",
            (user_id, user_id),
        )
        con.execute("UPDATE syn_state SET rev = rev + 1 WHERE user_id = ?", (user_id,))

    def delete_user(self, user_id: str) -> int:
        with self._write() as con:
            n = con.execute("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
            con.execute("DELETE FROM users WHERE user_id = ?", (user_id,))
            for table in USER_TABLES:
                con.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        if self.shared:
            # Move the WAL's copies of the erased pages into the (zeroed) main file and
            # truncate the WAL, so the user's text is gone from every file on disk.
            with self._lock:
                self._con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        return max(n, 0)

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as con:
            con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    # -- reads --------------------------------------------------------------------

    def get(self, user_id: str, ids: Sequence[str]) -> dict[str, StoredMemory]:
        # "+user_id" keeps SQLite on the primary key: through the (user_id, seq) index
        # it would scan every row of the user (9 ms at 10,000 memories instead of 0.1).
        out: dict[str, StoredMemory] = {}
        with self._lock:
            for chunk in _chunks(list(dict.fromkeys(ids)), 500):
                marks = ",".join("?" * len(chunk))
                for row in self._con.execute(
                    f"SELECT {MEMORY_COLUMNS} FROM memories WHERE +user_id = ? AND id IN ({marks})",
                    (user_id, *chunk),
                ):
                    out[row[0]] = _row_to_memory(row)
        return out

    def load(
        self,
        user_id: str,
        after_seq: int = -1,
        with_embeddings: bool = True,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[StoredMemory]:
        cols = MEMORY_COLUMNS + (", embedding" if with_embeddings else "")
        with self._lock:
            rows = self._con.execute(
                f"SELECT {cols} FROM memories WHERE user_id = ? AND seq > ? ORDER BY seq "
                "LIMIT ? OFFSET ?",
                (user_id, after_seq, -1 if limit is None else int(limit), int(offset)),
            ).fetchall()
        if with_embeddings:
            return [_row_to_memory(r[:-1], r[-1]) for r in rows]
        return [_row_to_memory(r) for r in rows]

    def user_state(self, user_id: str) -> UserState | None:
        with self._lock:
            row = self._con.execute(
                "SELECT epoch, next_seq, del_rev FROM users WHERE user_id = ?", (user_id,)
            ).fetchone()
        return UserState(*row) if row else None

    def count(self, user_id: str) -> int:
        with self._lock:
            return self._con.execute(
                "SELECT COUNT(*) FROM memories WHERE user_id = ?", (user_id,)
            ).fetchone()[0]

    def users(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._con.execute("SELECT user_id FROM users ORDER BY user_id")]

    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    # -- SYNAPSE semantic layer ----------------------------------------------------

    def graph_state(self, user_id: str) -> tuple[int, int]:
        """(consolidated_seq, rev); (-1, 0) for a user never consolidated."""
        with self._lock:
            row = self._con.execute(
                "SELECT consolidated_seq, rev FROM syn_state WHERE user_id = ?", (user_id,)
            ).fetchone()
        return (row[0], row[1]) if row else (-1, 0)

    def graph_load(self, user_id: str) -> GraphRows:
        with self._lock:
            con = self._con
            mentions = con.execute(
                "SELECT s.memory_id, s.label, s.kind, m.seq FROM syn_mentions s "
                "JOIN memories m ON m.id = s.memory_id WHERE s.user_id = ? ORDER BY m.seq",
                (user_id,),
            ).fetchall()
            concepts = [
                (cid, label, kind, np.frombuffer(blob, dtype="<f4"))
                for cid, label, kind, blob in con.execute(
                    "SELECT cid, label, kind, embedding FROM syn_concepts "
                    "WHERE user_id = ? ORDER BY cid",
                    (user_id,),
                )
            ]
            aliases = con.execute(
                "SELECT label, cid FROM syn_aliases WHERE user_id = ?", (user_id,)
            ).fetchall()
            activity = {
                (kind, ref): win
                for kind, ref, win in con.execute(
                    "SELECT kind, ref, win FROM syn_activity WHERE user_id = ?", (user_id,)
                )
            }
        seq, rev = self.graph_state(user_id)
        return GraphRows(mentions, concepts, dict(aliases), activity, seq, rev)

    def graph_save(
        self,
        user_id: str,
        *,
        mentions: Sequence[tuple[str, str, str]],
        concepts: Sequence[tuple[int, str, str, np.ndarray]],
        aliases: Sequence[tuple[str, int]],
        consolidated_seq: int,
        expect_rev: int,
        activity: Sequence[tuple[str, str, int]] = (),
    ) -> int | None:
        """Write one consolidation window atomically; returns the new rev, or None when
        another writer consolidated meanwhile (the caller reloads and retries)."""
        with self._write() as con:
            row = con.execute("SELECT rev FROM syn_state WHERE user_id = ?", (user_id,)).fetchone()
            rev = row[0] if row else 0
            if rev != expect_rev:
                return None
            # Skip mentions of memories deleted since they were read.
            live = {r[0] for r in mentions}
            live = set(self._existing(con, user_id, list(live))) if live else set()
            con.executemany(
                "INSERT OR IGNORE INTO syn_mentions (user_id, memory_id, label, kind) "
                "VALUES (?, ?, ?, ?)",
                [(user_id, m, label, kind) for m, label, kind in mentions if m in live],
            )
            con.executemany(
                "INSERT INTO syn_concepts (user_id, cid, label, kind, embedding) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (user_id, cid, label, kind, np.asarray(vec, dtype="<f4").tobytes())
                    for cid, label, kind, vec in concepts
                ],
            )
            con.executemany(
                "INSERT OR REPLACE INTO syn_aliases (user_id, label, cid) VALUES (?, ?, ?)",
                [(user_id, label, cid) for label, cid in aliases],
            )
            con.execute(
                "INSERT INTO syn_state (user_id, consolidated_seq, rev) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET consolidated_seq = excluded.consolidated_seq, "
                "rev = excluded.rev",
                (user_id, consolidated_seq, rev + 1),
            )
            self._upsert_activity(con, user_id, activity)
        return rev + 1

    def graph_touch(self, user_id: str, activity: Sequence[tuple[str, str, int]]) -> None:
        if activity:
            with self._write() as con:
                self._upsert_activity(con, user_id, activity)

    def _upsert_activity(
        self, con: sqlite3.Connection, user_id: str, activity: Sequence[tuple[str, str, int]]
    ) -> None:
        """Keep the later window; rows of memories deleted meanwhile are not recreated."""
        if not activity:
            return
        mids = [ref for kind, ref, _ in activity if kind == "m"]
        live = {("m", m) for m in self._existing(con, user_id, mids)} if mids else set()
        live |= {
            ("c", str(r[0]))
            for r in con.execute("SELECT cid FROM syn_concepts WHERE user_id = ?", (user_id,))
        }
        con.executemany(
            "INSERT INTO syn_activity (user_id, kind, ref, win) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (user_id, kind, ref) DO UPDATE SET win = MAX(win, excluded.win)",
            [(user_id, kind, ref, win) for kind, ref, win in activity if (kind, ref) in live],
        )

    # -- the global memory table and ILSTMA's notes -----------------------------------

    def table_meta(
        self, user_id: str, ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, float]]:
        sql = "SELECT memory_id, recall_times, last_recall FROM table_meta WHERE user_id = ?"
        with self._lock:
            if ids is None:
                rows = self._con.execute(sql, (user_id,)).fetchall()
            else:
                rows = []
                for chunk in _chunks(list(dict.fromkeys(ids)), 500):
                    marks = ",".join("?" * len(chunk))
                    rows += self._con.execute(
                        f"{sql} AND memory_id IN ({marks})", (user_id, *chunk)
                    ).fetchall()
        return {m: (int(n), float(t)) for m, n, t in rows}

    def table_meta_update(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        self._meta_write(
            user_id,
            rows,
            "VALUES (?, ?, ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE SET "
            "recall_times = excluded.recall_times, last_recall = excluded.last_recall",
        )

    def table_meta_bump(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        self._meta_write(
            user_id,
            rows,
            "VALUES (?, ?, 1 + ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE SET "
            "recall_times = recall_times + excluded.recall_times - 1, "
            "last_recall = MAX(last_recall, excluded.last_recall)",
        )

    def _meta_write(self, user_id: str, rows: Sequence[tuple[str, int, float]], sql: str) -> None:
        """``table_meta`` rows of the user's live memories, written with ``sql`` (what
        follows the column list of the INSERT)."""
        if not rows:
            return
        with self._write() as con:
            live = set(self._existing(con, user_id, [r[0] for r in rows]))
            con.executemany(
                "INSERT INTO table_meta (user_id, memory_id, recall_times, last_recall) " + sql,
                [(user_id, m, int(n), float(t)) for m, n, t in rows if m in live],
            )

    def notes_state(self, user_id: str) -> int:
        with self._lock:
            row = self._con.execute(
                "SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,)
            ).fetchone()
        return row[0] if row else -1

    def notes_load(self, user_id: str) -> tuple[int, list[NoteRow]]:
        with self._lock:
            con = self._con
            row = con.execute(
                "SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,)
            ).fetchone()
            notes = [
                NoteRow(*r)
                for r in con.execute(
                    "SELECT kind, nid, speaker, first_seq, last_seq, pieces FROM ilstma_notes "
                    "WHERE user_id = ? ORDER BY kind, nid",
                    (user_id,),
                )
            ]
        return (row[0] if row else -1), notes

    def notes_save(
        self, user_id: str, notes: Sequence[NoteRow], summarized_seq: int, expect_seq: int
    ) -> bool:
        with self._write() as con:
            row = con.execute(
                "SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,)
            ).fetchone()
            if (row[0] if row else -1) != expect_seq:
                return False
            con.executemany(
                "INSERT OR REPLACE INTO ilstma_notes "
                "(user_id, kind, nid, speaker, first_seq, last_seq, pieces) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (user_id, n.kind, n.nid, n.speaker, n.first_seq, n.last_seq, n.pieces)
                    for n in notes
                ],
            )
            con.execute(
                "INSERT INTO ilstma_state (user_id, summarized_seq) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET summarized_seq = excluded.summarized_seq",
                (user_id, summarized_seq),
            )
        return True

    # -- API keys ---------------------------------------------------------------------

    def key_add(self, row: KeyRow) -> None:
        try:
            with self._write() as con:
                con.execute(
                    f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                    (row.key_id, row.tenant, row.digest, row.label, row.created, row.revoked),
                )
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"an API key with id {row.key_id!r} exists") from exc

    def key_get(self, key_id: str) -> KeyRow | None:
        with self._lock:
            row = self._con.execute(
                f"SELECT {KEY_COLUMNS} FROM api_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        return KeyRow(*row) if row else None

    def key_list(self, tenant: str | None = None) -> list[KeyRow]:
        sql = f"SELECT {KEY_COLUMNS} FROM api_keys"
        args: tuple = ()
        if tenant is not None:
            sql, args = sql + " WHERE tenant = ?", (tenant,)
        with self._lock:
            rows = self._con.execute(sql + " ORDER BY created, key_id", args).fetchall()
        return [KeyRow(*r) for r in rows]

    def key_revoke(self, key_id: str, when: float) -> bool:
        with self._write() as con:
            n = con.execute(
                "UPDATE api_keys SET revoked = ? WHERE key_id = ? AND revoked IS NULL",
                (when, key_id),
            ).rowcount
        return n > 0

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


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
