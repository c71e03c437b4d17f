"""The versions of each updated memory (``Memory.update`` / ``Memory.history``).

An update replaces a memory's row (``Store.update``): what the engines, indexes and
time code derived from it is dropped and derived again from the new text, so recall
only ever sees the current version. The versions themselves live here, one row each,
written in the update's own transaction (``on_update``), so a memory is never
updated without its history nor its history written for an update that did not
happen.

Choices, and why:

* **An extension, not a store table.** The store records the extension's erasure
  rule in the database (``store/extension.py``), so every ``delete`` and
  ``delete_user`` erases a memory's history in the erase's transaction, with the
  erase's scrub of the files after it, in any process, including one whose code
  never heard of updates. ``keep_on_update`` is what keeps these rows (and only
  these) across an update.
* **Every version, the current one too, once a memory was updated.** The first
  update writes version 1 (the memory as added, dated by its row's ``created_at``)
  and version 2; each later one the next. A memory never updated has no rows: its
  history is its row, read as version 1. Listing is then one ordered read, and
  the current version's "what changed and when" is stored like the others'.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone

from ..types import StoredMemory, Version
from .extension import Extension, Tables, Tx, register_extension

_SQLITE_V1 = """
CREATE TABLE IF NOT EXISTS memory_history (
    user_id    TEXT NOT NULL,
    memory_id  TEXT NOT NULL,
    version    INTEGER NOT NULL,
    text       TEXT NOT NULL,
    ts         TEXT NOT NULL,
    metadata   TEXT NOT NULL,
    changed    TEXT NOT NULL,
    written_at REAL NOT NULL,
    PRIMARY KEY (user_id, memory_id, version)
) WITHOUT ROWID
"""

_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS memory_history (
    user_id    TEXT COLLATE "C" NOT NULL,
    memory_id  TEXT COLLATE "C" NOT NULL,
    version    BIGINT NOT NULL,
    text       TEXT NOT NULL,
    ts         TEXT NOT NULL,
    metadata   TEXT NOT NULL,
    changed    TEXT NOT NULL,
    written_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (user_id, memory_id, version)
)
"""

_INSERT = (
    "INSERT INTO memory_history (user_id, memory_id, version, text, ts, metadata, changed, "
    "written_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
_VERSIONS = (
    "SELECT version, text, ts, metadata, changed, written_at FROM memory_history "
    "WHERE user_id = ? AND memory_id = ? ORDER BY version"
)


class HistoryTables(Extension):
    """The extension: the schema, and the versions written in the update's transaction."""

    def on_update(
        self, tx: Tx, user_id: str, old: StoredMemory, new: StoredMemory, changed: tuple[str, ...]
    ) -> None:
        top = tx.one(
            "SELECT MAX(version) FROM memory_history WHERE user_id = ? AND memory_id = ?",
            (user_id, old.id),
        )
        last = int(top[0]) if top and top[0] is not None else 0
        rows = []
        if last == 0:  # the first update: the memory as added is version 1
            made = tx.one(
                "SELECT created_at FROM memories WHERE user_id = ? AND id = ?", (user_id, old.id)
            )
            rows.append(_row(user_id, old, 1, (), float(made[0]) if made else 0.0))
            last = 1
        now = datetime.now(timezone.utc).timestamp()
        rows.append(_row(user_id, new, last + 1, changed, now))
        tx.many(_INSERT, [_sealed(tx, r) for r in rows])


def _row(user_id: str, m: StoredMemory, version: int, changed: tuple[str, ...], at: float) -> tuple:
    return (
        user_id,
        m.id,
        version,
        m.text,
        m.timestamp.isoformat(),
        json.dumps(m.metadata, ensure_ascii=False),
        json.dumps(list(changed)),
        at,
    )


#: The columns of an ``_INSERT`` row that tell, sealed where the store encrypts
#: (``Tx.seal_text``): a version is a copy of a memory's words.
_SEALED = ((3, "text"), (4, "ts"), (5, "metadata"), (6, "changed"))


def _sealed(tx: Tx, row: tuple) -> tuple:
    user_id, memory_id, version = row[:3]
    out = list(row)
    for i, column in _SEALED:
        out[i] = tx.seal_text(user_id, f"memory_history.{column}:{memory_id}:{version}", row[i])
    return tuple(out)


def _opened(tx: Tx, user_id: str, memory_id: str, row: Sequence) -> tuple:
    """A ``_VERSIONS`` row (version, text, ts, metadata, changed, written_at) opened."""
    version = row[0]
    out = list(row)
    for i, column in _SEALED:
        place = f"memory_history.{column}:{memory_id}:{version}"
        out[i - 2] = tx.open_text(user_id, place, row[i - 2])
    return tuple(out)


def _opened_memory(tx: Tx, user_id: str, memory_id: str, row: Sequence) -> tuple:
    """A memory's (text, ts, metadata, created_at) as the plain store holds them."""
    text, ts, meta, made = row
    return (
        tx.open_text(user_id, f"memories.text:{memory_id}", text),
        tx.open_text(user_id, f"memories.ts:{memory_id}", ts),
        tx.open_text(user_id, f"memories.metadata:{memory_id}", meta),
        made,
    )


HISTORY_TABLES = register_extension(
    HistoryTables(
        name="history",
        migrations={"sqlite": [(1, _SQLITE_V1)], "postgres": [(1, _POSTGRES_V1)]},
        user_tables=("memory_history",),
        memory_refs=(("memory_history", "memory_id"),),
        doc="the versions of each updated memory (Memory.history)",
        keep_on_update=True,
    )
)  # every Memory attaches it: any delete erases the history


def versions(tables: Tables, user_id: str, memory_id: str) -> list[Version] | None:
    """The memory's versions, oldest first (one snapshot: the memory and its rows
    agree); None when the user has no such memory."""
    with tables.snapshot() as tx:
        row = tx.one(
            "SELECT text, ts, metadata, created_at FROM memories WHERE user_id = ? AND id = ?",
            (user_id, memory_id),
        )
        if row is None:
            return None
        rows = [_opened(tx, user_id, memory_id, r) for r in tx.all(_VERSIONS, (user_id, memory_id))]
        if not rows:
            text, ts, meta, made = _opened_memory(tx, user_id, memory_id, row)
            return [_version(1, text, ts, meta, "[]", made)]
    return [_version(*r) for r in rows]


def _version(version: int, text: str, ts: str, meta: str, changed: str, at: float) -> Version:
    return Version(
        version=int(version),
        text=text,
        metadata=json.loads(meta) if meta else {},
        timestamp=datetime.fromisoformat(ts),
        changed=tuple(json.loads(changed)),
        at=datetime.fromtimestamp(float(at), timezone.utc),
    )


def page_versions(
    tables: Tables, user_id: str, rows: Sequence[StoredMemory]
) -> dict[str, list[Version]]:
    """:func:`versions` of a page of the user's memories in two reads (an export
    lists a million memories: not a read per memory). A memory never updated is
    version 1 as its row holds it; one gone meanwhile is absent."""
    ids = [m.id for m in rows]
    if not ids:
        return {}
    with tables.snapshot() as tx:
        made = tx.rows_in(
            "SELECT id, created_at FROM memories WHERE user_id = ? AND id {in}", (user_id,), ids
        )
        kept = tx.rows_in(
            "SELECT memory_id, version, text, ts, metadata, changed, written_at FROM "
            "memory_history WHERE user_id = ? AND memory_id {in}",
            (user_id,),
            ids,
        )
        kept = [(r[0], *_opened(tx, user_id, r[0], r[1:])) for r in kept]
    out: dict[str, list[Version]] = {}
    for memory_id, *row in sorted(kept, key=lambda r: (r[0], int(r[1]))):
        out.setdefault(memory_id, []).append(_version(*row))
    created = dict(made)
    for m in rows:
        if m.id not in out and m.id in created:
            meta = json.dumps(m.metadata, ensure_ascii=False)
            out[m.id] = [_version(1, m.text, m.timestamp.isoformat(), meta, "[]", created[m.id])]
    return out


def restore(tables: Tables, user_id: str, kept: Sequence[tuple[str, Sequence[Version]]]) -> None:
    """Write the versions of imported memories (``kept``: memory id and its versions,
    oldest first), in one transaction. A memory of one version needs no rows: its
    row is its history (dated by its row's ``created_at``, which the import keeps)."""
    rows = [
        (
            user_id,
            memory_id,
            v.version,
            v.text,
            v.timestamp.isoformat(),
            json.dumps(v.metadata, ensure_ascii=False),
            json.dumps(list(v.changed)),
            v.at.timestamp(),
        )
        for memory_id, history in kept
        if len(history) > 1
        for v in history
    ]
    if rows:
        with tables.write(user_id) as tx:
            tx.many(_INSERT, [_sealed(tx, r) for r in rows])
