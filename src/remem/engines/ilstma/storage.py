"""ILSTMA's tables: the global memory table's recall metadata, summaries, traits.

The engine owns them and reaches them through the store's extension hook
(``store/extension.py``), in the store's transactions. They are attached for every
engine (built-in extensions always are), since any engine's table can be exported
and imported with its recall metadata (``remem.table``).

* ``table_meta``: recall metadata of global-memory-table entries, rows only for
  entries recalled at least once (the others have recall times 1 and were last
  "recalled" when created);
* ``ilstma_notes``: summaries and personality traits, each covering the memories
  ``first_seq..last_seq`` it was made from (its ``pieces`` are JSON);
* ``ilstma_state``: how far summarising got.

Deleting a memory drops its recall metadata (the recorded rule) and every note quoting
it; summarising then resumes before the earliest dropped summary, so the surviving
memories of its group are summarised again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...store.extension import Extension, Tables, Tx

_SQLITE_V1 = """
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

_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS table_meta (
    user_id      TEXT COLLATE "C" NOT NULL,
    memory_id    TEXT COLLATE "C" NOT NULL,
    recall_times BIGINT NOT NULL,
    last_recall  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, memory_id)
);
CREATE TABLE IF NOT EXISTS ilstma_notes (
    user_id   TEXT COLLATE "C" NOT NULL,
    kind      TEXT COLLATE "C" NOT NULL,
    nid       BIGINT NOT NULL,
    speaker   TEXT,
    first_seq BIGINT NOT NULL,
    last_seq  BIGINT NOT NULL,
    pieces    TEXT NOT NULL,
    PRIMARY KEY (user_id, kind, nid)
);
CREATE TABLE IF NOT EXISTS ilstma_state (
    user_id        TEXT COLLATE "C" PRIMARY KEY,
    summarized_seq BIGINT NOT NULL
)
"""


@dataclass(frozen=True)
class NoteRow:
    """An ILSTMA summary or personality trait: ``pieces`` is JSON, a list of
    {text, seq, memory_id}; it covers memories first_seq..last_seq."""

    kind: str  # "summary" | "trait"
    nid: int
    speaker: str | None
    first_seq: int
    last_seq: int
    pieces: str


class IlstmaTables(Extension):
    """The extension: ILSTMA's schema and its delete rule."""

    def on_delete(self, tx: Tx, user_id: str, ids: list[str]) -> None:
        """Notes quoting a deleted memory go; summarising resumes before the earliest
        dropped summary. Runs before the memories themselves are deleted (their seqs
        are joined)."""
        covers = (
            "EXISTS (SELECT 1 FROM memories m WHERE m.user_id = ilstma_notes.user_id "
            "AND ilstma_notes.first_seq <= m.seq AND ilstma_notes.last_seq >= m.seq "
            "AND m.id {in})"
        )
        firsts = tx.rows_in(
            "SELECT first_seq FROM ilstma_notes WHERE user_id = ? AND kind = 'summary' AND "
            + covers,
            (user_id,),
            ids,
        )
        tx.rows_in("DELETE FROM ilstma_notes WHERE user_id = ? AND " + covers, (user_id,), ids)
        if firsts:
            restart = min(int(r[0]) for r in firsts)
            tx.run(
                "DELETE FROM ilstma_notes WHERE user_id = ? AND kind IN ('summary', 'trait') "
                "AND last_seq >= ?",
                (user_id, restart),
            )
            tx.run(
                f"UPDATE ilstma_state SET summarized_seq = {tx.least}(summarized_seq, ?) "
                "WHERE user_id = ?",
                (restart - 1, user_id),
            )


ILSTMA_TABLES = IlstmaTables(
    name="ilstma",
    migrations={"sqlite": [(1, _SQLITE_V1)], "postgres": [(1, _POSTGRES_V1)]},
    user_tables=("table_meta", "ilstma_notes", "ilstma_state"),
    memory_refs=(("table_meta", "memory_id"),),
    # store version 4 added these tables (before extensions existed)
    legacy=((4, 1),),
)


class IlstmaStorage:
    """The engine's queries over its tables (every one scoped by ``user_id``)."""

    def __init__(self, tables: Tables):
        self.tables = tables

    # -- the global memory table's recall metadata ------------------------------------

    def table_meta(
        self, user_id: str, ids: Sequence[str] | None = None
    ) -> dict[str, tuple[int, float]]:
        """memory_id -> (recall times, last recall as epoch seconds) for the entries
        (all, or ``ids``) recalled at least once; absent entries have the defaults
        (1, creation time)."""
        sql = "SELECT memory_id, recall_times, last_recall FROM table_meta WHERE user_id = ?"
        with self.tables.read() as tx:
            if ids is None:
                rows = tx.all(sql, (user_id,))
            else:
                unique = list(dict.fromkeys(ids))
                rows = tx.rows_in(sql + " AND memory_id {in}", (user_id,), unique)
        return {m: (int(n), float(t)) for m, n, t in rows}

    def table_meta_update(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        """Set (memory_id, recall times, last recall); deleted memories are skipped."""
        self._meta_write(
            user_id,
            rows,
            "VALUES (?, ?, ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE SET "
            "recall_times = excluded.recall_times, last_recall = excluded.last_recall",
        )

    def table_meta_bump(self, user_id: str, rows: Sequence[tuple[str, int, float]]) -> None:
        """Atomically add (memory_id, recalls, when): recall times grow by ``recalls``
        from the stored value (1 when none), the last recall becomes the later of the
        two. Increments, not values: two workers recalling one memory at once both
        count. Deleted memories are skipped."""
        self._meta_write(
            user_id,
            rows,
            "VALUES (?, ?, 1 + ?, ?) ON CONFLICT (user_id, memory_id) DO UPDATE "
            "SET recall_times = table_meta.recall_times + excluded.recall_times - 1, "
            "last_recall = {greatest}(table_meta.last_recall, excluded.last_recall)",
        )

    def _meta_write(self, user_id: str, rows: Sequence[tuple[str, int, float]], sql: str) -> None:
        """``table_meta`` rows of the user's live memories, written with ``sql`` (what
        follows the column list of the INSERT)."""
        if not rows:
            return
        with self.tables.write(user_id) as tx:
            live = set(tx.existing(user_id, [r[0] for r in rows]))
            tx.many(
                "INSERT INTO table_meta (user_id, memory_id, recall_times, last_recall) "
                + sql.replace("{greatest}", tx.greatest),
                [(user_id, m, int(n), float(t)) for m, n, t in rows if m in live],
            )

    # -- summaries and traits ---------------------------------------------------------

    def notes_state(self, user_id: str) -> int:
        """The last summarised sequence number, or -1 (one indexed row: cheap)."""
        with self.tables.read() as tx:
            row = tx.one("SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,))
        return row[0] if row else -1

    def notes_load(self, user_id: str) -> tuple[int, list[NoteRow]]:
        """(last summarised sequence number or -1, the user's notes), in one snapshot."""
        with self.tables.snapshot() as tx:
            row = tx.one("SELECT summarized_seq FROM ilstma_state WHERE user_id = ?", (user_id,))
            notes = [
                NoteRow(
                    kind,
                    nid,
                    None
                    if speaker is None
                    else tx.open_text(user_id, _place("speaker", kind, nid), speaker),
                    first,
                    last,
                    tx.open_text(user_id, _place("pieces", kind, nid), pieces),
                )
                for kind, nid, speaker, first, last, pieces in tx.all(
                    "SELECT kind, nid, speaker, first_seq, last_seq, pieces FROM ilstma_notes "
                    "WHERE user_id = ? ORDER BY kind, nid",
                    (user_id,),
                )
            ]
        return (row[0] if row else -1), notes

    def notes_save(
        self, user_id: str, notes: Sequence[NoteRow], summarized_seq: int, expect_seq: int
    ) -> bool:
        """Upsert notes and advance the summarised position atomically; False (nothing
        written) when another writer moved it from ``expect_seq`` meanwhile."""
        with self.tables.write(user_id) as tx:
            row = tx.one(
                f"SELECT summarized_seq FROM ilstma_state WHERE user_id = ?{tx.for_update}",
                (user_id,),
            )
            if (row[0] if row else -1) != expect_seq:
                return False
            tx.many(
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
                        None
                        if n.speaker is None
                        else tx.seal_text(user_id, _place("speaker", n.kind, n.nid), n.speaker),
                        int(n.first_seq),
                        int(n.last_seq),
                        tx.seal_text(user_id, _place("pieces", n.kind, n.nid), n.pieces),
                    )
                    for n in notes
                ],
            )
            tx.run(
                "INSERT INTO ilstma_state (user_id, summarized_seq) VALUES (?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET summarized_seq = excluded.summarized_seq",
                (user_id, int(summarized_seq)),
            )
        return True


def _place(column: str, kind: str, nid: int) -> str:
    """Where a note's sealed column belongs (``Tx.seal_text``): the words of summaries
    and traits are sealed in an encrypted store, bound to their note."""
    return f"ilstma_notes.{column}:{kind}:{int(nid)}"
