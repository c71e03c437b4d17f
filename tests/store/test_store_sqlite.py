"""The SQLite store: schema version, WAL, refusal of foreign files (the contract shared
with PostgreSQL is in test_store_contract.py)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from remem import Memory, StoreError
from remem.errors import ErasureIncompleteError
from remem.store import open_store
from remem.store.sqlite import SCHEMA_VERSION, SQLiteStore
from store_rows import EXTENSION_TABLES, TABLES, EngineStore, new_memory

# -- schema, WAL, refusals -------------------------------------------------------------


def test_schema_version_recorded(db_path, embedder, sql):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("hello", user_id="u")
    assert SCHEMA_VERSION == 7
    assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert sql(db_path, "SELECT value FROM meta WHERE key = 'schema_version'") == [("7",)]
    tables = {r[0] for r in sql(db_path, "SELECT name FROM sqlite_master WHERE type='table'")}
    # a Memory attaches every built-in engine's tables and the stored event times; the
    # keys' come with a key ring
    assert tables >= TABLES | EXTENSION_TABLES - {"api_keys"} | {"event_times", "event_users"}
    columns = {r[1] for r in sql(db_path, "PRAGMA table_info(syn_concepts)")}
    assert "archived" not in columns  # SYNAPSE's v2: archiving is derived, not stored
    records = dict(sql(db_path, "SELECT key, value FROM meta WHERE key LIKE 'ext:%'"))
    assert sorted(records) == [
        "ext:current",
        "ext:event_times",
        "ext:history",
        "ext:ilstma",
        "ext:synapse",
    ]
    assert sql(db_path, "SELECT value FROM meta WHERE key = 'legacy_schema'") == []


def test_a_bare_store_has_only_its_own_tables(db_path, sql):
    SQLiteStore(db_path).close()
    tables = {r[0] for r in sql(db_path, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == TABLES


def test_version_1_file_is_migrated_keeping_its_memories(db_path, embedder, sql):
    from remem.store.sqlite import MIGRATIONS

    con = sqlite3.connect(db_path, isolation_level=None)
    con.execute("BEGIN")
    MIGRATIONS[0][1](con)
    con.execute("PRAGMA user_version = 1")
    con.execute("COMMIT")
    con.execute("INSERT INTO users (user_id, epoch, next_seq, del_rev) VALUES ('u', 'e', 1, 0)")
    con.execute(
        "INSERT INTO memories (id, user_id, seq, text, speaker, ts, ts_epoch, session_id, "
        "metadata, embedding, created_at) VALUES ('m1', 'u', 0, 'old memory about Lisbon', "
        "NULL, '2023-01-01T00:00:00', 0, NULL, '{}', ?, 0)",
        (embedder.embed_one("old memory about Lisbon").astype("<f4").tobytes(),),
    )
    con.close()
    with Memory(db_path, engine="synapse", embedder=embedder) as m:
        assert m.get("m1", user_id="u").text == "old memory about Lisbon"
        assert m.search("Lisbon", user_id="u", k=1)[0].id == "m1"
    assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]


def test_new_empty_file_gets_schema_without_any_write(db_path, embedder, sql):
    Memory(db_path, engine="bm25", embedder=embedder).close()
    assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert sql(db_path, "SELECT COUNT(*) FROM memories") == [(0,)]


def test_file_db_uses_wal(db_path, embedder, sql):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("hello", user_id="u")
        assert m._store._con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert m._store._con.execute("PRAGMA secure_delete").fetchone()[0] == 1
        assert m._store._con.execute("PRAGMA busy_timeout").fetchone()[0] >= 1000
    assert sql(db_path, "PRAGMA journal_mode") == [("wal",)]  # persistent in the file


def test_in_memory_db_is_not_shared(embedder):
    with Memory(":memory:", engine="bm25", embedder=embedder) as m:
        assert m._store.shared is False
        m.add("x", user_id="u")
        m.delete_user("u")  # no checkpoint on an in-memory db, no error


def test_newer_schema_version_refused(db_path, embedder):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("from the future", user_id="u")
    con = sqlite3.connect(db_path)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="newer"):
        Memory(db_path, engine="bm25", embedder=embedder)
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}"):
        SQLiteStore(db_path)


def test_existing_empty_sqlite_file_is_migrated(db_path, embedder, sql):
    con = sqlite3.connect(db_path)
    con.execute("CREATE TABLE unrelated (x INTEGER)")
    con.commit()
    con.close()
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("migrated", user_id="u")
    assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert sql(db_path, "SELECT COUNT(*) FROM unrelated") == [(0,)]


def test_embedder_recorded_and_mismatch_refused(db_path, embedder, sql):
    with Memory(db_path, engine="dense", embedder=embedder) as m:
        m.add("vectors of MiniLM", user_id="u")
    assert sql(db_path, "SELECT value FROM meta WHERE key = 'embedder'") == [
        ("all-MiniLM-L6-v2/384",)
    ]
    con = sqlite3.connect(db_path)
    con.execute("UPDATE meta SET value = 'some-other-model/768' WHERE key = 'embedder'")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="some-other-model/768"):
        Memory(db_path, engine="dense", embedder=embedder)
    # the refused open released the file: it can be fixed and reopened
    con = sqlite3.connect(db_path)
    con.execute("UPDATE meta SET value = 'all-MiniLM-L6-v2/384' WHERE key = 'embedder'")
    con.commit()
    con.close()
    with Memory(db_path, engine="dense", embedder=embedder) as m:
        assert m.count("u") == 1


def test_not_a_database_is_a_store_error(tmp_path, embedder):
    """errors.StoreError: "holds data remem cannot use" -- a raw sqlite3 error must not escape."""
    bogus = tmp_path / "bogus.db"
    bogus.write_bytes(b"this is not an sqlite file at all" * 100)
    with pytest.raises(StoreError):
        Memory(bogus, engine="bm25", embedder=embedder)


def test_open_store_by_path(tmp_path):
    s = open_store(str(tmp_path / "o.db"))
    try:
        assert isinstance(s, SQLiteStore) and s.shared
        assert s.schema_version() == SCHEMA_VERSION
    finally:
        s.close()


def test_create_false_opens_only_a_file_that_exists(tmp_path, embedder):
    """What the CLI's read commands open with: a mistyped path is an error, not a new
    empty database that answers every question with nothing."""
    missing = tmp_path / "typo.db"
    with pytest.raises(StoreError, match="no database at"):
        open_store(str(missing), create=False)
    with pytest.raises(StoreError, match="no database at"):
        Memory(missing, engine="bm25", embedder=embedder, store_options={"create": False})
    assert list(tmp_path.iterdir()) == []
    # a file that exists opens as ever, whatever characters its name holds
    for name in ("made.db", "a b?c#d%20&mode=ro.db"):
        SQLiteStore(tmp_path / name).close()
        s = open_store(str(tmp_path / name), create=False)
        try:
            assert s.schema_version() == SCHEMA_VERSION
            s.set_meta("probe", "written")  # opened to write, not read-only
            assert s.get_meta("probe") == "written"
        finally:
            s.close()
    open_store(":memory:", create=False).close()  # nothing to find, nothing made


# The generic Store contract (round trips, scoping, fingerprint, cascades, CAS, keys)
# runs for every backend in test_store_contract.py.


def test_unopenable_path_is_a_store_error(tmp_path, embedder):
    with pytest.raises(StoreError, match="cannot open"):
        Memory(tmp_path / "no" / "such" / "dir" / "x.db", engine="bm25", embedder=embedder)


def test_graph_load_reads_one_state_while_another_process_writes(db_path, monkeypatch):
    """graph_load's five reads run in one read transaction: a consolidation committed
    by another connection between them is not half seen (the rows and the revision
    always agree)."""
    import numpy as np

    from remem.store.sql import SqlTx

    r_store, w_store = SQLiteStore(db_path), SQLiteStore(db_path)
    reader, writer = EngineStore(r_store), EngineStore(w_store)
    try:
        mem = r_store.add("u", [new_memory("Ana moved to Lisbon")], None)[0]
        real = SqlTx.run
        calls = {"n": 0}

        def run_then_write(tx, sql, args=()):
            out = real(tx, sql, args)
            if tx._store is not r_store:
                return out
            calls["n"] += 1
            if calls["n"] == 1:  # after the mentions were read, another process writes
                rev = writer.graph_save(
                    "u",
                    mentions=[(mem.id, "lisbon", "place")],
                    concepts=[(1, "lisbon", "place", np.ones(4, dtype=np.float32))],
                    aliases=[("lisbon", 1)],
                    consolidated_seq=0,
                    expect_rev=0,
                )
                assert rev == 1
            return out

        monkeypatch.setattr(SqlTx, "run", run_then_write)
        rows = reader.graph_load("u")
        assert (rows.mentions, rows.concepts, rows.aliases, rows.rev) == ([], [], {}, 0)
        monkeypatch.setattr(SqlTx, "run", real)
        rows = reader.graph_load("u")
        assert rows.rev == 1 and rows.aliases == {"lisbon": 1} and len(rows.mentions) == 1
    finally:
        r_store.close()
        w_store.close()


# -- scrubbing erased bytes from the files ----------------------------------------------------

SECRET = "qvxzorbital"  # in no other row, id or name


def _reader_holding_a_snapshot(db_path) -> sqlite3.Connection:
    """Another connection (a backup tool, a second process) in a read transaction: its
    snapshot still shows the rows about to be erased, so their pages cannot leave the
    files until it ends."""
    con = sqlite3.connect(db_path, isolation_level=None)
    con.execute("BEGIN")
    assert con.execute("SELECT COUNT(*) FROM memories").fetchone()[0] > 0
    return con


def test_erase_under_an_open_reader_says_so_and_a_later_scrub_finishes_it(db_path, raw_bytes):
    store = SQLiteStore(db_path, scrub_wait_ms=50)
    try:
        store.add("keep", [new_memory("an ordinary row")], None)
        store.add("v", [new_memory(f"secret {SECRET} number {i}") for i in range(8)], None)
        reader = _reader_holding_a_snapshot(db_path)
        with pytest.raises(ErasureIncompleteError, match="deleted") as err:
            store.delete_user("v")
        assert err.value.result == 8  # what the erase did: the rows are gone ...
        assert store.count("v") == 0 and store.users() == ["keep"]
        assert store.scrub_pending  # ... but not yet their bytes, and it says so
        assert SECRET.encode() in raw_bytes(db_path)
        with pytest.raises(ErasureIncompleteError):
            store.scrub()  # still held
        # an erase that finds nothing is no erase: no word of the pending one ...
        assert store.delete("v", ["no-such-id"]) == []
        assert store.delete_user("nobody") == 0
        # ... but a retry of it reports what it did, until the scrub finishes
        with pytest.raises(ErasureIncompleteError) as again:
            store.delete_user("v")
        assert again.value.result == 8
        # pending is recorded in the file itself, for any process to finish
        assert store.get_meta("scrub") is not None
        assert json.loads(store.get_meta("scrub:v") or "") == {"ids": [], "count": 8}
        reader.execute("COMMIT")
        reader.close()
        store.scrub()
        assert not store.scrub_pending
        assert store.get_meta("scrub") is None and store.get_meta("scrub:v") is None
        assert SECRET.encode() not in raw_bytes(db_path)
        assert b"scrub:v" not in raw_bytes(db_path)  # the record named the user: gone too
        assert store.delete_user("v") == 0  # finished: a retry now erases nothing
    finally:
        store.close()


def test_a_later_write_finishes_a_pending_scrub(db_path, raw_bytes):
    store = SQLiteStore(db_path, scrub_wait_ms=50)
    try:
        ids = [m.id for m in store.add("u", [new_memory(f"{SECRET} {i}") for i in range(4)], None)]
        reader = _reader_holding_a_snapshot(db_path)
        with pytest.raises(ErasureIncompleteError) as err:
            store.delete("u", ids[:2])
        assert err.value.result == ids[:2] and store.count("u") == 2
        reader.execute("COMMIT")
        reader.close()
        assert store.scrub_pending
        store.set_meta("unrelated", "write")  # any write completes it
        assert not store.scrub_pending
        raw = raw_bytes(db_path)
        assert f"{SECRET} 0".encode() not in raw and f"{SECRET} 1".encode() not in raw
        assert f"{SECRET} 2".encode() in raw  # the rows not deleted stay, of course
    finally:
        store.close()


def test_delete_scrubs_the_wal_at_once(db_path, raw_bytes):
    store = SQLiteStore(db_path)
    try:
        kept = store.add("u", [new_memory("nothing secret")], None)
        gone = store.add("u", [new_memory(f"the {SECRET} text")], None)
        assert SECRET.encode() in raw_bytes(db_path)
        assert store.delete("u", [gone[0].id]) == [gone[0].id]
        assert not store.scrub_pending
        assert SECRET.encode() not in raw_bytes(db_path)
        assert store.get("u", [kept[0].id])[kept[0].id].text == "nothing secret"
    finally:
        store.close()
