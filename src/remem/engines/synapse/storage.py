"""SYNAPSE's tables: the semantic layer and its dormancy bookkeeping.

The engine owns them and reaches them through the store's extension hook
(``store/extension.py``), in the store's transactions.

Mentions are what the extractor found in each memory; concepts are the canonical
semantic nodes (with their label vectors) and aliases map every label that was merged
into a concept. Temporal, abstraction and association edges are pure functions of
these rows and the memories' vectors, so they are rebuilt, never stored twice.

Activity is the dormancy bookkeeping: the latest consolidation window in which a node
was active beyond what the memories themselves imply (a query reached it). Which nodes
are archived is a pure function of these rows, the memories' windows and the engine's
configuration, so no archived flag is stored (version 1's ``archived`` column is
dropped by version 2).

Deleting memories drops their mentions and activity (the recorded rule), then every
concept no remaining memory mentions (no dangling semantic nodes), and moves the
layer's revision so other processes reload it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...store.extension import Extension, Tables, Tx

_SQLITE_V1 = """
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

_SQLITE_V2 = """
CREATE TABLE IF NOT EXISTS syn_activity (
    user_id TEXT NOT NULL,
    kind    TEXT NOT NULL,
    ref     TEXT NOT NULL,
    win     INTEGER NOT NULL,
    PRIMARY KEY (user_id, kind, ref)
) WITHOUT ROWID;
ALTER TABLE syn_concepts DROP COLUMN archived
"""

# Version 2 in one step (PostgreSQL databases began at it).
_POSTGRES_V2 = """
CREATE TABLE IF NOT EXISTS syn_mentions (
    user_id   TEXT COLLATE "C" NOT NULL,
    memory_id TEXT COLLATE "C" NOT NULL,
    label     TEXT COLLATE "C" NOT NULL,
    kind      TEXT NOT NULL,
    PRIMARY KEY (user_id, memory_id, label)
);
CREATE INDEX IF NOT EXISTS syn_mentions_label ON syn_mentions (user_id, label);
CREATE TABLE IF NOT EXISTS syn_concepts (
    user_id   TEXT COLLATE "C" NOT NULL,
    cid       BIGINT NOT NULL,
    label     TEXT NOT NULL,
    kind      TEXT NOT NULL,
    embedding BYTEA NOT NULL,
    PRIMARY KEY (user_id, cid)
);
CREATE TABLE IF NOT EXISTS syn_aliases (
    user_id TEXT COLLATE "C" NOT NULL,
    label   TEXT COLLATE "C" NOT NULL,
    cid     BIGINT NOT NULL,
    PRIMARY KEY (user_id, label)
);
CREATE TABLE IF NOT EXISTS syn_state (
    user_id          TEXT COLLATE "C" PRIMARY KEY,
    consolidated_seq BIGINT NOT NULL,
    rev              BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS syn_activity (
    user_id TEXT COLLATE "C" NOT NULL,
    kind    TEXT COLLATE "C" NOT NULL,
    ref     TEXT COLLATE "C" NOT NULL,
    win     BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind, ref)
)
"""


#: Where mention and alias labels are sealed for lookups (``Tx.seal_text``): one place
#: for both, so a label matches across the two tables (``drop_orphans``) and an upsert
#: of an alias finds its row, with the words sealed in an encrypted store.
LABEL_PLACE = "syn.label"


class SynapseTables(Extension):
    """The extension: SYNAPSE's schema and its delete rule."""

    def on_delete(self, tx: Tx, user_id: str, ids: list[str]) -> None:
        # the recorded rule has dropped the memories' mentions and activity
        drop_orphans(tx, user_id)


def drop_orphans(tx: Tx, user_id: str) -> None:
    """Concepts no remaining memory mentions go, with their aliases and activity; the
    layer's revision moves, so every process reloads it."""
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
        tx.run(sql, (user_id,))


SYNAPSE_TABLES = SynapseTables(
    name="synapse",
    migrations={
        "sqlite": [(1, _SQLITE_V1), (2, _SQLITE_V2)],
        "postgres": [(2, _POSTGRES_V2)],
    },
    user_tables=("syn_mentions", "syn_concepts", "syn_aliases", "syn_state", "syn_activity"),
    memory_refs=(("syn_mentions", "memory_id"), ("syn_activity", "ref")),
    # store versions 2 and 3 added these tables (before extensions existed)
    legacy=((3, 2), (2, 1)),
)


@dataclass(frozen=True)
class GraphRows:
    """SYNAPSE's stored semantic layer of one user."""

    mentions: list[tuple[str, str, str, int]]  # (memory_id, label, kind, memory seq)
    concepts: list[tuple[int, str, str, np.ndarray]]  # (cid, label, kind, vec)
    aliases: dict[str, int]  # label -> cid
    activity: dict[tuple[str, str], int]  # ("m", memory_id) | ("c", str(cid)) -> window
    consolidated_seq: int
    rev: int


class SynapseStorage:
    """The engine's queries over its tables (every one scoped by ``user_id``)."""

    def __init__(self, tables: Tables):
        self.tables = tables

    def graph_state(self, user_id: str) -> tuple[int, int]:
        """(consolidated_seq, rev) of the user's semantic layer; (-1, 0) if none."""
        with self.tables.read() as tx:
            row = tx.one(
                "SELECT consolidated_seq, rev FROM syn_state WHERE user_id = ?", (user_id,)
            )
        return (row[0], row[1]) if row else (-1, 0)

    def graph_load(self, user_id: str) -> GraphRows:
        """The user's whole layer, read in one snapshot (rows and revision agree)."""
        with self.tables.snapshot() as tx:
            mentions = [
                (mid, tx.open_text(user_id, LABEL_PLACE, label), kind, seq)
                for mid, label, kind, seq in tx.all(
                    "SELECT s.memory_id, s.label, s.kind, m.seq FROM syn_mentions s "
                    "JOIN memories m ON m.id = s.memory_id AND m.user_id = s.user_id "
                    "WHERE s.user_id = ?",
                    (user_id,),
                )
            ]
            # in Python, not SQL: labels may be sealed (an encrypted store); code point
            # order, as the store's "C" collation and SQLite's BINARY sort text
            mentions.sort(key=lambda r: (r[3], r[1]))
            concepts = [
                (
                    cid,
                    tx.open_text(user_id, f"syn_concepts.label:{cid}", label),
                    kind,
                    np.frombuffer(
                        tx.open_bytes(user_id, f"syn_concepts.embedding:{cid}", bytes(blob)),
                        dtype="<f4",
                    ),
                )
                for cid, label, kind, blob in tx.all(
                    "SELECT cid, label, kind, embedding FROM syn_concepts "
                    "WHERE user_id = ? ORDER BY cid",
                    (user_id,),
                )
            ]
            aliases = {
                tx.open_text(user_id, LABEL_PLACE, label): cid
                for label, cid in tx.all(
                    "SELECT label, cid FROM syn_aliases WHERE user_id = ?", (user_id,)
                )
            }
            activity = {
                (kind, ref): win
                for kind, ref, win in tx.all(
                    "SELECT kind, ref, win FROM syn_activity WHERE user_id = ?", (user_id,)
                )
            }
            row = tx.one(
                "SELECT consolidated_seq, rev FROM syn_state WHERE user_id = ?", (user_id,)
            )
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
        with self.tables.write(user_id) as tx:
            row = tx.one(f"SELECT rev FROM syn_state WHERE user_id = ?{tx.for_update}", (user_id,))
            rev = row[0] if row else 0
            if rev != expect_rev:
                return None
            # Skip mentions of memories deleted since they were read.
            live = set(tx.existing(user_id, [m for m, _, _ in mentions]))
            tx.many(
                "INSERT INTO syn_mentions (user_id, memory_id, label, kind) "
                "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [
                    (user_id, m, tx.seal_text(user_id, LABEL_PLACE, label, lookup=True), kind)
                    for m, label, kind in mentions
                    if m in live
                ],
            )
            tx.many(
                "INSERT INTO syn_concepts (user_id, cid, label, kind, embedding) "
                "VALUES (?, ?, ?, ?, ?)",
                [
                    (
                        user_id,
                        int(cid),
                        tx.seal_text(user_id, f"syn_concepts.label:{int(cid)}", label),
                        kind,
                        tx.seal_bytes(
                            user_id,
                            f"syn_concepts.embedding:{int(cid)}",
                            np.asarray(vec, dtype="<f4").tobytes(),
                        ),
                    )
                    for cid, label, kind, vec in concepts
                ],
            )
            tx.many(
                "INSERT INTO syn_aliases (user_id, label, cid) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id, label) DO UPDATE SET cid = excluded.cid",
                [
                    (user_id, tx.seal_text(user_id, LABEL_PLACE, label, lookup=True), int(cid))
                    for label, cid in aliases
                ],
            )
            tx.run(
                "INSERT INTO syn_state (user_id, consolidated_seq, rev) VALUES (?, ?, ?) "
                "ON CONFLICT (user_id) DO UPDATE SET consolidated_seq = excluded.consolidated_seq, "
                "rev = excluded.rev",
                (user_id, int(consolidated_seq), rev + 1),
            )
            _upsert_activity(tx, user_id, activity)
        return rev + 1

    def graph_touch(self, user_id: str, activity: Sequence[tuple[str, str, int]]) -> None:
        """Record the latest window in which nodes were active (kept: the larger)."""
        if activity:
            with self.tables.write(user_id) as tx:
                _upsert_activity(tx, user_id, activity)


def _upsert_activity(tx: Tx, user_id: str, activity: Sequence[tuple[str, str, int]]) -> None:
    """Keep the later window; rows of memories deleted meanwhile are not recreated."""
    if not activity:
        return
    mids = [ref for kind, ref, _ in activity if kind == "m"]
    live = {("m", m) for m in tx.existing(user_id, mids)}
    live |= {
        ("c", str(r[0]))
        for r in tx.all("SELECT cid FROM syn_concepts WHERE user_id = ?", (user_id,))
    }
    tx.many(
        "INSERT INTO syn_activity (user_id, kind, ref, win) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (user_id, kind, ref) "
        f"DO UPDATE SET win = {tx.greatest}(syn_activity.win, excluded.win)",
        [(user_id, kind, ref, int(win)) for kind, ref, win in activity if (kind, ref) in live],
    )
