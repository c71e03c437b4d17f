"""The SQL both backends share: one text of every query, with small dialect hooks.

SQLite and PostgreSQL hold the same tables with the same meaning (see ``sqlite.py``
and ``postgres.py`` for why each is laid out as it is), so the statements that read
and write them are written once, here, in the common subset of the two dialects
(``ON CONFLICT`` upserts, ``NOT EXISTS``, ``CAST``) with ``?`` placeholders. A
backend supplies only what really differs:

* how a connection is held: :meth:`SqlStore._read` (latest commits),
  :meth:`SqlStore._snapshot` (several reads that agree) and :meth:`SqlStore._write`
  (one transaction; SQLite locks the file, PostgreSQL one user);
* how a list of ids is matched: :meth:`SqlStore._in` (SQLite binds ``IN (?, ...)`` in
  chunks under its variable limit, PostgreSQL binds one array to ``= ANY(...)``);
* a few words: the placeholder, the two-argument max/min (``MAX``/``GREATEST``),
  ``FOR UPDATE`` (a row lock PostgreSQL needs and SQLite's file lock makes moot),
  and what "no limit" is;
* inserting memory rows (PostgreSQL may fill its pgvector column too), what a
  duplicate key looks like, and what follows an erase (a WAL checkpoint, a VACUUM).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from ..errors import StoreError
from ..types import NewMemory, StoredMemory
from .base import (
    KEY_COLUMNS,
    MEMORY_COLUMNS,
    USER_TABLES,
    GraphRows,
    KeyRow,
    NoteRow,
    Store,
    UserState,
    new_rows,
    row_to_memory,
)


class SqlStore(Store):
    """A :class:`Store` over a DB-API connection; subclasses fill in the hooks."""

    #: SQL for the larger / smaller of two values.
    _greatest = "MAX"
    _least = "MIN"
    #: Appended to a compare-and-swap read of a revision row.
    _for_update = ""
    #: The user column in lookups by primary key (SQLite: "+user_id", see ``get``).
    _uid_pk = "user_id"
    #: LIMIT's value for "every row".
    _no_limit: int | None = None

    # -- hooks ------------------------------------------------------------------------

    def _read(self) -> AbstractContextManager[Any]:
        """A connection whose statements each see the latest commits."""
        raise NotImplementedError

    def _snapshot(self) -> AbstractContextManager[Any]:
        """A connection whose statements all see one consistent state."""
        raise NotImplementedError

    def _write(self, user_id: str | None = None) -> AbstractContextManager[Any]:
        """One transaction; with ``user_id``, serialised against that user's writes."""
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        """``sql`` in this backend's placeholder style (written with ``?``)."""
        return sql

    def _many(self, con: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            con.executemany(self._sql(sql), rows)

    def _in(self, con: Any, sql: str, args: Sequence[Any], ids: Sequence[str]) -> list[tuple]:
        """Run ``sql`` whose ``{in}`` matches a column against ``ids`` (bound after
        ``args``); the rows of every part, for a SELECT."""
        raise NotImplementedError

    def _insert_memories(self, con: Any, rows: list[tuple[StoredMemory, list[Any]]]) -> None:
        raise NotImplementedError

    def _is_duplicate(self, exc: BaseException) -> bool:
        raise NotImplementedError

    def _after_erase(self) -> None:
        """Make an erased user's bytes leave the files (see each backend's notes)."""

    def _fetch_memories(self, con: Any, sql: str, args: Sequence[Any]) -> list[tuple]:
        return self._run(con, sql, args).fetchall()

    # -- helpers ------------------------------------------------------------------------

    def _run(self, con: Any, sql: str, args: Sequence[Any] = ()) -> Any:
        return con.execute(self._sql(sql), tuple(args))

    def _one(self, sql: str, args: Sequence[Any]) -> tuple | None:
        with self._read() as con:
            return self._run(con, sql, args).fetchone()

    def _existing(self, con: Any, user_id: str, ids: Sequence[str]) -> list[str]:
        """The given ids that are the user's memories, deduplicated, in the given order."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        sql = f"SELECT id FROM memories WHERE {self._uid_pk} = ? AND id {{in}}"
        have = {r[0] for r in self._in(con, sql, (user_id,), unique)}
        return [i for i in unique if i in have]

    # -- writes ---------------------------------------------------------------------------

    def add(
        self, user_id: str, memories: Sequence[NewMemory], embeddings: np.ndarray | None
    ) -> list[StoredMemory]:
        if embeddings is not None and len(embeddings) != len(memories):
            raise StoreError("one embedding per memory is required")
        with self._write(user_id) as con:
            self._run(
                con,
                "INSERT INTO users (user_id, epoch, next_seq, del_rev) VALUES (?, ?, 0, 0) "
                "ON CONFLICT (user_id) DO NOTHING",
                (user_id, uuid.uuid4().hex),
            )
            seq0 = self._run(
                con, f"SELECT next_seq FROM users WHERE user_id = ?{self._for_update}", (user_id,)
            ).fetchone()[0]
            rows = new_rows(user_id, memories, embeddings, seq0)
            if rows:
                self._insert_memories(con, rows)
            self._run(
                con,
                "UPDATE users SET next_seq = ? WHERE user_id = ?",
                (seq0 + len(memories), user_id),
            )
        return [stored for stored, _ in rows]

    def delete(self, user_id: str, ids: Sequence[str]) -> list[str]:
        if not ids:
            return []
        with self._write(user_id) as con:
            found = self._existing(con, user_id, ids)
            if found:
                self._drop_notes(con, user_id, found)
                for sql in (
                    "DELETE FROM table_meta WHERE user_id = ? AND memory_id {in}",
                    "DELETE FROM syn_mentions WHERE user_id = ? AND memory_id {in}",
                    "DELETE FROM syn_activity WHERE user_id = ? AND kind = 'm' AND ref {in}",
                    "DELETE FROM memories WHERE user_id = ? AND id {in}",
                ):
                    self._in(con, sql, (user_id,), found)
                self._drop_orphan_concepts(con, user_id)
                self._run(
                    con, "UPDATE users SET del_rev = del_rev + 1 WHERE user_id = ?", (user_id,)
                )
        return found

    def _drop_notes(self, con: Any, user_id: str, ids: list[str]) -> None:
        """Notes quoting a deleted memory go; summarising resumes before the earliest
        dropped summary, so the surviving memories of its group are summarised again.
        Runs before the memories themselves are deleted (their seqs are joined)."""
        covers = (
            "EXISTS (SELECT 1 FROM memories m WHERE m.user_id = ilstma_notes.user_id "
            "AND ilstma_notes.first_seq <= m.seq AND ilstma_notes.last_seq >= m.seq "
            "AND m.id {in})"
        )
        firsts = self._in(
            con,
            "SELECT first_seq FROM ilstma_notes WHERE user_id = ? AND kind = 'summary' AND "
            + covers,
            (user_id,),
            ids,
        )
        self._in(con, "DELETE FROM ilstma_notes WHERE user_id = ? AND " + covers, (user_id,), ids)
        if firsts:
            restart = min(int(r[0]) for r in firsts)
            self._run(
                con,
                "DELETE FROM ilstma_notes WHERE user_id = ? AND kind IN ('summary', 'trait') "
                "AND last_seq >= ?",
                (user_id, restart),
            )
            self._run(
                con,
                f"UPDATE ilstma_state SET summarized_seq = {self._least}(summarized_seq, ?) "
                "WHERE user_id = ?",
                (restart - 1, user_id),
            )

    def _drop_orphan_concepts(self, con: Any, user_id: str) -> None:
        """Concepts no remaining memory mentions go too: no dangling semantic nodes."""
        for sql in (
            "DELETE FROM syn_aliases WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "syn_mentions s WHERE s.user_id = syn_aliases.user_id AND s.label = syn_aliases.label)",
            "DELETE FROM syn_concepts WHERE user_id = ? AND NOT EXISTS (SELECT 1 FROM "
            "syn_aliases a WHERE a.user_id = syn_concepts.user_id AND a.cid = syn_concepts.cid)",
            "DELETE FROM syn_activity WHERE user_id = ? AND kind = 'c' AND NOT EXISTS (SELECT 1 "
            "FROM syn_concepts c WHERE c.user_id = syn_activity.user_id "
            "AND CAST(c.cid AS TEXT) = syn_activity.ref)",
            "UPDATE syn_state SET rev = rev + 1 WHERE user_id = ?",
        ):
            self._run(con, sql, (user_id,))

    def delete_user(self, user_id: str) -> int:
        with self._write(user_id) as con:
            n = self._run(con, "DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount
            for table in ("users", *USER_TABLES):
                self._run(con, f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
        self._after_erase()
        return max(n, 0)

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as con:
            self._run(
                con,
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    # -- reads ----------------------------------------------------------------------------

    def get(self, user_id: str, ids: Sequence[str]) -> dict[str, StoredMemory]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {self._uid_pk} = ? AND id {{in}}"
        with self._read() as con:
            rows = self._in(con, sql, (user_id,), unique)
        return {row[0]: row_to_memory(row) for row in rows}

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
        sql = (
            f"SELECT {cols} FROM memories WHERE user_id = ? AND seq > ? ORDER BY seq "
            "LIMIT ? OFFSET ?"
        )
        size = self._no_limit if limit is None else int(limit)
        with self._read() as con:
            rows = self._fetch_memories(con, sql, (user_id, after_seq, size, int(offset)))
        if with_embeddings:
            return [row_to_memory(r[:-1], r[-1]) for r in rows]
        return [row_to_memory(r) for r in rows]

    def user_state(self, user_id: str) -> UserState | None:
        row = self._one("SELECT epoch, next_seq, del_rev FROM users WHERE user_id = ?", (user_id,))
        return UserState(*row) if row else None

    def count(self, user_id: str) -> int:
        row = self._one("SELECT COUNT(*) FROM memories WHERE user_id = ?", (user_id,))
        return int(row[0]) if row else 0

    def users(self) -> list[str]:
        with self._read() as con:
            return [r[0] for r in self._run(con, "SELECT user_id FROM users ORDER BY user_id")]

    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    # -- SYNAPSE semantic layer --------------------------------------------------------

    def graph_state(self, user_id: str) -> tuple[int, int]:
        """(consolidated_seq, rev); (-1, 0) for a user never consolidated."""
        row = self._one("SELECT consolidated_seq, rev FROM syn_state WHERE user_id = ?", (user_id,))
        return (row[0], row[1]) if row else (-1, 0)

    def graph_load(self, user_id: str) -> GraphRows:
        with self._snapshot() as con:
            run = self._run
            mentions = [
                tuple(r)
                for r in run(
                    con,
                    "SELECT s.memory_id, s.label, s.kind, m.seq FROM syn_mentions s "
                    "JOIN memories m ON m.id = s.memory_id AND m.user_id = s.user_id "
                    "WHERE s.user_id = ? ORDER BY m.seq, s.label",
                    (user_id,),
                )
            ]
            concepts = [
                (cid, label, kind, np.frombuffer(blob, dtype="<f4"))
                for cid, label, kind, blob in run(
                    con,
                    "SELECT cid, label, kind, embedding FROM syn_concepts "
                    "WHERE user_id = ? ORDER BY cid",
                    (user_id,),
                )
            ]
            aliases = {
                label: cid
                for label, cid in run(
                    con, "SELECT label, cid FROM syn_aliases WHERE user_id = ?", (user_id,)
                )
            }
            activity = {
                (kind, ref): win
                for kind, ref, win in run(
                    con, "SELECT kind, ref, win FROM syn_activity WHERE user_id = ?", (user_id,)
                )
            }
            row = run(
                con, "SELECT consolidated_seq, rev FROM syn_state WHERE user_id = ?", (user_id,)
            ).fetchone()
        seq, rev = (row[0], row[1]) if row else (-1, 0)
        return GraphRows(mentions, concepts, aliases, activity, seq, rev)

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
        with self._write(user_id) as con:
            row = self._run(
                con, f"SELECT rev FROM syn_state WHERE user_id = ?{self._for_update}", (user_id,)
            ).fetchone()
            rev = row[0] if row else 0
            if rev != expect_rev:
                return None
            # Skip mentions of memories deleted since they were read.
            live = set(self._existing(con, user_id, [m for m, _, _ in mentions]))
            self._many(
                con,
                "INSERT INTO syn_mentions (user_id, memory_id, label, kind) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [(user_id, m, label, kind) for m, label, kind in mentions if m in live],
            )
            self._many(
                con,
                "INSERT INTO syn_concepts (user_id, cid, label, kind, embedding) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (user_id, int(cid), label, kind, np.asarray(vec, dtype="<f4").tobytes())
                    for cid, label, kind, vec in concepts
                ],
            )
            self._many(
                con,
                "INSERT INTO syn_aliases (user_id, label, cid) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id, label) DO UPDATE SET cid = excluded.cid",
                [(user_id, label, int(cid)) for label, cid in aliases],
            )
            self._run(
                con,
                "INSERT INTO syn_state (user_id, consolidated_seq, rev) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET consolidated_seq = excluded.consolidated_seq, "
                "rev = excluded.rev",
                (user_id, int(consolidated_seq), rev + 1),
            )
            self._upsert_activity(con, user_id, activity)
        return rev + 1

    def graph_touch(self, user_id: str, activity: Sequence[tuple[str, str, int]]) -> None:
        if activity:
            with self._write(user_id) as con:
                self._upsert_activity(con, user_id, activity)

    def _upsert_activity(
        self, con: Any, user_id: str, activity: Sequence[tuple[str, str, int]]
    ) -> None:
        """Keep the later window; rows of memories deleted meanwhile are not recreated."""
        if not activity:
            return
        mids = [ref for kind, ref, _ in activity if kind == "m"]
        live = {("m", m) for m in self._existing(con, user_id, mids)}
        live |= {
            ("c", str(r[0]))
            for r in self._run(con, "SELECT cid FROM syn_concepts WHERE user_id = ?", (user_id,))
        }
        self._many(
            con,
            "INSERT INTO syn_activity (user_id, kind, ref, win) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (user_id, kind, ref) "
            f"DO UPDATE SET win = {self._greatest}(syn_activity.win, excluded.win)",
            [(user_id, kind, ref, int(win)) for kind, ref, win in activity if (kind, ref) in live],
        )

    # -- the global memory table and ILSTMA's notes ----------------------------------

    def table_meta(
        self, user_id: str, ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, float]]:
        sql = "SELECT memory_id, recall_times, last_recall FROM table_meta WHERE user_id = ?"
        with self._read() as con:
            if ids is None:
                rows = self._run(con, sql, (user_id,)).fetchall()
            else:
                unique = list(dict.fromkeys(ids))
                rows = self._in(con, sql + " AND memory_id {in}", (user_id,), unique)
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
            "VALUES (?, ?, 1 + ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE "
            "SET recall_times = table_meta.recall_times + excluded.recall_times - 1, "
            f"last_recall = {self._greatest}(table_meta.last_recall, excluded.last_recall)",
        )

    def _meta_write(self, user_id: str, rows: Sequence[tuple[str, int, float]], sql: str) -> None:
        """``table_meta`` rows of the user's live memories, written with ``sql`` (what
        follows the column list of the INSERT)."""
        if not rows:
            return
        with self._write(user_id) as con:
            live = set(self._existing(con, user_id, [r[0] for r in rows]))
            self._many(
                con,
                "INSERT INTO table_meta (user_id, memory_id, recall_times, last_recall) " + sql,
                [(user_id, m, int(n), float(t)) for m, n, t in rows if m in live],
            )

    def notes_state(self, user_id: str) -> int:
        row = self._one("SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,))
        return row[0] if row else -1

    def notes_load(self, user_id: str) -> tuple[int, list[NoteRow]]:
        with self._snapshot() as con:
            row = self._run(
                con, "SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,)
            ).fetchone()
            notes = [
                NoteRow(*r)
                for r in self._run(
                    con,
                    "SELECT kind, nid, speaker, first_seq, last_seq, pieces FROM ilstma_notes "
                    "WHERE user_id = ? ORDER BY kind, nid",
                    (user_id,),
                )
            ]
        return (row[0] if row else -1), notes

    def notes_save(
        self, user_id: str, notes: Sequence[NoteRow], summarized_seq: int, expect_seq: int
    ) -> bool:
        with self._write(user_id) as con:
            row = self._run(
                con,
                f"SELECT summarized_seq FROM ilstma_state WHERE user_id = ?{self._for_update}",
                (user_id,),
            ).fetchone()
            if (row[0] if row else -1) != expect_seq:
                return False
            self._many(
                con,
                "INSERT INTO ilstma_notes "
                "(user_id, kind, nid, speaker, first_seq, last_seq, pieces) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (user_id, kind, nid) DO UPDATE SET "
                "speaker = excluded.speaker, first_seq = excluded.first_seq, "
                "last_seq = excluded.last_seq, pieces = excluded.pieces",
                [
                    (
                        user_id,
                        n.kind,
                        int(n.nid),
                        n.speaker,
                        int(n.first_seq),
                        int(n.last_seq),
                        n.pieces,
                    )
                    for n in notes
                ],
            )
            self._run(
                con,
                "INSERT INTO ilstma_state (user_id, summarized_seq) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET summarized_seq = excluded.summarized_seq",
                (user_id, int(summarized_seq)),
            )
        return True

    # -- API keys -------------------------------------------------------------------------

    def key_add(self, row: KeyRow) -> None:
        try:
            with self._write() as con:
                self._run(
                    con,
                    f"INSERT INTO api_keys ({KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)",
                    (row.key_id, row.tenant, row.digest, row.label, row.created, row.revoked),
                )
        except Exception as exc:
            if self._is_duplicate(exc):
                raise StoreError(f"an API key with id {row.key_id!r} exists") from exc
            raise

    def key_get(self, key_id: str) -> KeyRow | None:
        row = self._one(f"SELECT {KEY_COLUMNS} FROM api_keys WHERE key_id = ?", (key_id,))
        return KeyRow(*row) if row else None

    def key_list(self, tenant: str | None = None) -> list[KeyRow]:
        sql = f"SELECT {KEY_COLUMNS} FROM api_keys"
        args: tuple = ()
        if tenant is not None:
            sql, args = sql + " WHERE tenant = ?", (tenant,)
        with self._read() as con:
            rows = self._run(con, sql + " ORDER BY created, key_id", args).fetchall()
        return [KeyRow(*r) for r in rows]

    def key_revoke(self, key_id: str, when: float) -> bool:
        with self._write() as con:
            n = self._run(
                con,
                "UPDATE api_keys SET revoked = ? WHERE key_id = ? AND revoked IS NULL",
                (when, key_id),
            ).rowcount
        return n > 0


def script(sql: str) -> Callable[[Any], None]:
    """A migration step running each statement of ``sql`` on the connection it gets:
    ``executescript`` (SQLite) would COMMIT the migration transaction, and psycopg
    runs one statement per call."""

    def step(con: Any) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                con.execute(statement)

    return step


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
