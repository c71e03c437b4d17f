"""The SQLite store: schema version, WAL, refusal of foreign files, and its own contract."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from remem import Memory, StoreError
from remem.store import UserState, open_store
from remem.store.sqlite import SCHEMA_VERSION, SQLiteStore
from remem.types import NewMemory


def _new(text: str, **kw) -> NewMemory:
    return NewMemory(
        text=text,
        speaker=kw.get("speaker"),
        timestamp=kw.get("timestamp", datetime(2024, 1, 1, tzinfo=timezone.utc)),
        session_id=kw.get("session_id"),
        metadata=kw.get("metadata", {}),
    )


def _vecs(n: int, dim: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


@pytest.fixture
def store(db_path: Path):
    s = SQLiteStore(db_path)
    yield s
    s.close()


# -- schema, WAL, refusals -------------------------------------------------------------


def test_schema_version_recorded(db_path, embedder, sql):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("hello", user_id="u")
    assert SCHEMA_VERSION == 5
    assert sql(db_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert sql(db_path, "SELECT value FROM meta WHERE key = 'schema_version'") == [("5",)]
    tables = {r[0] for r in sql(db_path, "SELECT name FROM sqlite_master WHERE type='table'")}
    assert {
        "memories",
        "users",
        "meta",
        "syn_mentions",
        "syn_concepts",
        "syn_aliases",
        "syn_state",
        "syn_activity",
        "table_meta",
        "ilstma_notes",
        "ilstma_state",
        "api_keys",
    } <= tables
    columns = {r[1] for r in sql(db_path, "PRAGMA table_info(syn_concepts)")}
    assert "archived" not in columns  # v3: archiving is derived, not stored


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


# -- the store contract ------------------------------------------------------------


def test_add_get_load_round_trip(store):
    ts = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    vecs = _vecs(3)
    out = store.add(
        "u",
        [
            _new("a", speaker="S", timestamp=ts, session_id="s1", metadata={"k": [1]}),
            _new("b"),
            _new("c"),
        ],
        vecs,
    )
    assert [m.seq for m in out] == [0, 1, 2]
    assert [m.user_id for m in out] == ["u"] * 3
    got = store.get("u", [out[0].id, out[2].id, "missing"])
    assert set(got) == {out[0].id, out[2].id}
    a = got[out[0].id]
    assert (a.text, a.speaker, a.timestamp, a.session_id, a.metadata) == (
        "a",
        "S",
        ts,
        "s1",
        {"k": [1]},
    )
    assert a.embedding is None  # get does not load vectors
    loaded = store.load("u")
    assert [m.text for m in loaded] == ["a", "b", "c"]
    for m, v in zip(loaded, vecs, strict=True):
        assert m.embedding.dtype == np.float32
        np.testing.assert_array_equal(m.embedding, v)
    assert [m.text for m in store.load("u", after_seq=0)] == ["b", "c"]
    assert all(m.embedding is None for m in store.load("u", with_embeddings=False))


def test_add_continues_seq_and_checks_embedding_count(store):
    store.add("u", [_new("a"), _new("b")], _vecs(2))
    more = store.add("u", [_new("c")], _vecs(1))
    assert more[0].seq == 2
    with pytest.raises(StoreError, match="one embedding per memory"):
        store.add("u", [_new("d"), _new("e")], _vecs(1))
    assert store.count("u") == 3
    assert store.add("v", [_new("first of v")], None)[0].seq == 0


def test_get_and_delete_are_scoped_to_user(store):
    (a,) = store.add("alice", [_new("alice's")], _vecs(1))
    (b,) = store.add("bob", [_new("bob's")], _vecs(1))
    assert store.get("bob", [a.id]) == {}
    assert store.delete("bob", [a.id]) == []
    assert store.count("alice") == 1
    assert store.delete("alice", [a.id, a.id, "nope"]) == [a.id]
    assert store.count("alice") == 0 and store.count("bob") == 1
    assert store.delete("alice", []) == []
    assert b.id in store.get("bob", [b.id])


def test_user_state_fingerprint(store):
    assert store.user_state("u") is None
    store.add("u", [_new("a"), _new("b")], _vecs(2))
    s1 = store.user_state("u")
    assert isinstance(s1, UserState) and (s1.next_seq, s1.del_rev) == (2, 0)
    ids = [m.id for m in store.load("u")]
    store.delete("u", [ids[0]])
    s2 = store.user_state("u")
    assert (s2.epoch, s2.next_seq, s2.del_rev) == (s1.epoch, 2, 1)
    store.delete("u", ["not-there"])
    assert store.user_state("u") == s2  # a no-op delete changes nothing
    assert store.delete_user("u") == 1
    assert store.user_state("u") is None
    store.add("u", [_new("again")], _vecs(1))
    s3 = store.user_state("u")
    assert s3.epoch != s1.epoch and s3.next_seq == 1


def test_many_ids_in_one_call(store):
    out = store.add("u", [_new(f"t{i}") for i in range(1200)], None)
    ids = [m.id for m in out]
    assert len(store.get("u", ids)) == 1200  # more than one 500-id chunk
    assert store.delete("u", ids[::2]) == ids[::2]
    assert store.count("u") == 600


def test_meta_and_users(store):
    assert store.get_meta("nothing") is None
    store.set_meta("k", "v1")
    store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"
    store.add("zed", [_new("z")], None)
    store.add("amy", [_new("a")], None)
    assert store.users() == ["amy", "zed"]


def test_failed_transaction_rolls_back(store):
    store.add("u", [_new("kept")], None)
    with pytest.raises(ValueError), store._write() as con:
        con.execute("INSERT INTO meta (key, value) VALUES ('half', 'done')")
        raise ValueError("boom")
    assert store.get_meta("half") is None
    assert store.count("u") == 1


def test_close_is_idempotent(db_path):
    s = SQLiteStore(db_path)
    s.close()
    s.close()


def test_unopenable_path_is_a_store_error(tmp_path, embedder):
    with pytest.raises(StoreError, match="cannot open"):
        Memory(tmp_path / "no" / "such" / "dir" / "x.db", engine="bm25", embedder=embedder)
