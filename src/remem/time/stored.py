"""Event times kept beside the memories: read once at ingest, read back by id.

Every memory's text is read by :func:`remem.time.events.event_times` when it is
added, *inside the store's add transaction* (:meth:`EventTables.on_add`, the
extension hook's add side), so a memory and its event times are written together or
not at all; imported tables go the same way. The rows live in the extension's tables
(``event_times``, one row per time a memory talks about; ``event_users``, which
users' rows are complete and by which extractor), so every delete, ``delete_user``
and the scrub after them erase them with the memory, also in a process that never
imports this module (the recorded erasure rule).

Choices, and why:

* **Times as both ISO text and epoch seconds.** ``start_at``/``end_at`` keep the
  wall-clock reading in the zone the memory was said in (what a reader shows);
  ``start_s``/``end_s`` are what comparisons and range queries use, indexed by
  ``(user_id, start_s)`` (one shape for SQLite's REAL and PostgreSQL's DOUBLE
  PRECISION).
* **Backfill is lazy, per user.** A database written before this extension (or by an
  older extractor: ``EXTRACTOR``) has memories without rows, and a memory that names
  no time has none either, so "no rows" cannot mean "not read". ``event_users``
  records, per user, that every memory was read and by which extractor version; the
  first read for a user in a process (a recall, a search naming a time, a hit shown)
  checks it once and, when it is missing or older, reads that user's memories then, in
  one transaction. Opening a large old file costs nothing; each user pays once, for
  their own memories only. A user whose first memory is added here is complete from
  the start.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..store.base import Store, timestamp_epoch
from ..store.extension import Extension, Tables, Tx, register_extension
from ..types import StoredMemory
from .anchors import Anchored, all_anchored
from .events import event_times

#: the extractor's version: rows of an older one are read again, per user, on first use
#: (raise it when ``events.py`` reads texts differently)
EXTRACTOR = 3

_SQLITE_V1 = """
CREATE TABLE IF NOT EXISTS event_times (
    user_id     TEXT NOT NULL,
    memory_id   TEXT NOT NULL,
    ordinal     INTEGER NOT NULL,
    start_at    TEXT NOT NULL,
    end_at      TEXT NOT NULL,
    start_s     REAL NOT NULL,
    end_s       REAL NOT NULL,
    granularity TEXT NOT NULL,
    words       TEXT NOT NULL,
    confidence  REAL NOT NULL,
    PRIMARY KEY (user_id, memory_id, ordinal)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS event_times_start ON event_times (user_id, start_s);
CREATE TABLE IF NOT EXISTS event_users (
    user_id   TEXT PRIMARY KEY,
    extractor INTEGER NOT NULL
) WITHOUT ROWID
"""

_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS event_times (
    user_id     TEXT COLLATE "C" NOT NULL,
    memory_id   TEXT COLLATE "C" NOT NULL,
    ordinal     INTEGER NOT NULL,
    start_at    TEXT NOT NULL,
    end_at      TEXT NOT NULL,
    start_s     DOUBLE PRECISION NOT NULL,
    end_s       DOUBLE PRECISION NOT NULL,
    granularity TEXT NOT NULL,
    words       TEXT NOT NULL,
    confidence  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, memory_id, ordinal)
);
CREATE INDEX IF NOT EXISTS event_times_start ON event_times (user_id, start_s);
CREATE TABLE IF NOT EXISTS event_users (
    user_id   TEXT COLLATE "C" PRIMARY KEY,
    extractor INTEGER NOT NULL
)
"""

# v2: the two-step times a memory's words name ("two days after the wedding",
# ``anchors.py``), kept unresolved: their anchor is another memory, found when a
# question's window needs them (``time/stage.py``)
_ANCHORS_V2 = """
CREATE TABLE IF NOT EXISTS event_anchors (
    user_id     TEXT{collate} NOT NULL,
    memory_id   TEXT{collate} NOT NULL,
    ordinal     INTEGER NOT NULL,
    words       TEXT NOT NULL,
    count       INTEGER NOT NULL,
    unit        TEXT NOT NULL,
    relation    TEXT NOT NULL,
    anchor      TEXT NOT NULL,
    whole       INTEGER NOT NULL,
    PRIMARY KEY (user_id, memory_id, ordinal)
){rowid}
"""
_INSERT_ANCHOR = (
    "INSERT INTO event_anchors (user_id, memory_id, ordinal, words, count, unit, relation, "
    "anchor, whole) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_INSERT = (
    "INSERT INTO event_times (user_id, memory_id, ordinal, start_at, end_at, start_s, end_s, "
    "granularity, words, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_MARK = (
    "INSERT INTO event_users (user_id, extractor) VALUES (?, ?) "
    "ON CONFLICT (user_id) DO UPDATE SET extractor = excluded.extractor"
)


@dataclass(frozen=True)
class Told:
    """One stored event time of a memory, as the time stage and the hits read it."""

    start_s: float
    end_s: float
    start: str
    end: str
    granularity: str
    words: str

    def to_dict(self) -> dict[str, str]:
        """What a Hit carries (``Hit.event_times``): JSON-ready, no epochs."""
        return {
            "start": self.start,
            "end": self.end,
            "granularity": self.granularity,
            "words": self.words,
        }


def anchor_rows_for(user_id: str, memory_id: str, text: str) -> list[tuple]:
    """The ``event_anchors`` rows of one memory (its two-step times, unresolved)."""
    return [
        (user_id, memory_id, n, a.words, a.count, a.unit, a.relation, a.anchor, int(a.whole))
        for n, a in enumerate(all_anchored(text))
    ]


def rows_for(user_id: str, memory_id: str, text: str, said_at: datetime) -> list[tuple]:
    """The ``event_times`` rows of one memory."""
    return [
        (
            user_id,
            memory_id,
            n,
            e.start.isoformat(),
            e.end.isoformat(),
            timestamp_epoch(e.start),
            timestamp_epoch(e.end),
            e.granularity,
            e.words,
            float(e.confidence),
        )
        for n, e in enumerate(event_times(text, said_at))
    ]


def sealed_rows(tx: Tx, rows: list[tuple]) -> list[tuple]:
    """``event_times`` rows with the words naming the time sealed where the store
    seals (``Tx.seal_text``); the times stay plain: SQL filters by them."""
    return [(*r[:8], tx.seal_text(r[0], f"event_times.words:{r[1]}", r[8]), *r[9:]) for r in rows]


def sealed_anchors(tx: Tx, rows: list[tuple]) -> list[tuple]:
    """``event_anchors`` rows with their words and anchor sealed (as above)."""
    return [
        (
            *r[:3],
            tx.seal_text(r[0], f"event_anchors.words:{r[1]}", r[3]),
            *r[4:7],
            tx.seal_text(r[0], f"event_anchors.anchor:{r[1]}", r[7]),
            *r[8:],
        )
        for r in rows
    ]


class EventTables(Extension):
    """The extension: the schema, and the rows written in the add's transaction."""

    def on_add(self, tx: Tx, user_id: str, memories: list[StoredMemory]) -> None:
        rows = [r for m in memories for r in rows_for(user_id, m.id, m.text, m.timestamp)]
        tx.many(_INSERT, sealed_rows(tx, rows))
        tx.many(
            _INSERT_ANCHOR,
            sealed_anchors(
                tx, [r for m in memories for r in anchor_rows_for(user_id, m.id, m.text)]
            ),
        )
        if memories and memories[0].seq == 0:  # the user's first memories: complete
            tx.run(_MARK, (user_id, EXTRACTOR))


EVENT_TABLES = register_extension(
    EventTables(
        name="event_times",
        migrations={
            "sqlite": [
                (1, _SQLITE_V1),
                (2, _ANCHORS_V2.format(collate="", rowid=" WITHOUT ROWID")),
            ],
            "postgres": [
                (1, _POSTGRES_V1),
                (2, _ANCHORS_V2.format(collate=' COLLATE "C"', rowid="")),
            ],
        },
        user_tables=("event_times", "event_users", "event_anchors"),
        memory_refs=(("event_times", "memory_id"), ("event_anchors", "memory_id")),
        doc="the times each memory talks about (remem.time.stored)",
    )
)


class StoredEvents:
    """Reads the stored event times of a user's memories (module notes)."""

    def __init__(self, store: Store):
        self._store = store
        self._tables: Tables = store.attach(EVENT_TABLES)
        #: users whose rows this process found complete (by this extractor)
        self._ready: set[str] = set()
        self._lock = threading.Lock()

    def of(self, user_id: str, ids: Sequence[str]) -> dict[str, list[Told]]:
        """Per id (each one present), its event times in the order its text names
        them: one query."""
        out: dict[str, list[Told]] = {i: [] for i in ids}
        if not ids:
            return out
        self.ensure(user_id)
        sql = (
            "SELECT memory_id, start_s, end_s, start_at, end_at, granularity, words "
            "FROM event_times WHERE user_id = ? AND memory_id {in} ORDER BY memory_id, ordinal"
        )
        with self._tables.read() as tx:
            for memory_id, a, b, start, end, grain, words in tx.rows_in(sql, (user_id,), ids):
                words = tx.open_text(user_id, f"event_times.words:{memory_id}", words)
                out[memory_id].append(Told(float(a), float(b), start, end, grain, words))
        return out

    def overlapping(
        self, user_id: str, after: float | None, before: float | None
    ) -> frozenset[str]:
        """The ids of the user's memories with an event time overlapping
        ``[after, before)`` (epoch seconds; None: unbounded on that side), for a
        read's event-time filter (``remem/filters.py``): one query on
        ``(user_id, start_s)``. A memory that names no time has no row, so none."""
        self.ensure(user_id)
        sql = "SELECT DISTINCT memory_id FROM event_times WHERE user_id = ?"
        params: list[object] = [user_id]
        if before is not None:
            sql += " AND start_s < ?"
            params.append(before)
        if after is not None:
            sql += " AND end_s > ?"
            params.append(after)
        with self._tables.read() as tx:
            return frozenset(str(row[0]) for row in tx.all(sql, tuple(params)))

    def anchored(self, user_id: str, ids: Sequence[str]) -> dict[str, list[Anchored]]:
        """Per id that has any, the two-step times its words name, unresolved, in the
        order its text names them: one query."""
        out: dict[str, list[Anchored]] = {}
        if not ids:
            return out
        self.ensure(user_id)
        sql = (
            "SELECT memory_id, words, count, unit, relation, anchor, whole FROM event_anchors "
            "WHERE user_id = ? AND memory_id {in} ORDER BY memory_id, ordinal"
        )
        with self._tables.read() as tx:
            for memory_id, words, n, unit, rel, anchor, whole in tx.rows_in(sql, (user_id,), ids):
                words = tx.open_text(user_id, f"event_anchors.words:{memory_id}", words)
                anchor = tx.open_text(user_id, f"event_anchors.anchor:{memory_id}", anchor)
                a = Anchored(0, 0, words, int(n), unit, rel, anchor, bool(whole))
                out.setdefault(memory_id, []).append(a)
        return out

    def ensure(self, user_id: str) -> None:
        """Read the user's memories now unless their rows are complete (module notes:
        the lazy backfill)."""
        if user_id in self._ready:
            return
        with self._tables.read() as tx:
            row = tx.one("SELECT extractor FROM event_users WHERE user_id = ?", (user_id,))
        if row is None or int(row[0]) != EXTRACTOR:
            self._backfill(user_id)
        with self._lock:
            self._ready.add(user_id)

    def _backfill(self, user_id: str) -> None:
        memories = self._store.load(user_id, with_embeddings=False)
        rows = {m.id: rows_for(user_id, m.id, m.text, m.timestamp) for m in memories}
        anchors = {m.id: anchor_rows_for(user_id, m.id, m.text) for m in memories}
        with self._tables.write(user_id) as tx:
            # memories added meanwhile have their rows (the add wrote them); those
            # deleted meanwhile get none
            here = tx.existing(user_id, list(rows))
            if here:
                tx.rows_in(
                    "DELETE FROM event_times WHERE user_id = ? AND memory_id {in}",
                    (user_id,),
                    here,
                )
                tx.many(_INSERT, sealed_rows(tx, [r for i in here for r in rows[i]]))
                tx.rows_in(
                    "DELETE FROM event_anchors WHERE user_id = ? AND memory_id {in}",
                    (user_id,),
                    here,
                )
                tx.many(_INSERT_ANCHOR, sealed_anchors(tx, [r for i in here for r in anchors[i]]))
                tx.run(_MARK, (user_id, EXTRACTOR))

    def forget_user(self, user_id: str) -> None:
        with self._lock:
            self._ready.discard(user_id)

    def hits(self, user_id: str, rows: Sequence[StoredMemory], scores: Sequence[float]) -> list:
        """``rows`` as Hits carrying their event times."""
        told = self.of(user_id, [m.id for m in rows])
        return [
            m.to_hit(s, tuple(t.to_dict() for t in told[m.id]))
            for m, s in zip(rows, scores, strict=True)
        ]
