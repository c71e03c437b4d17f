"""delete and delete_user leave nothing behind: not in the tables, not in the file bytes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from remem import Memory
from remem.errors import ErasureIncompleteError

MARKER = "zqxvorpal"  # appears in no other text, id or metadata


def _filler(n: int, user: str) -> list[dict]:
    return [
        {"text": f"ordinary memory number {i} of {user} about gardening", "metadata": {"i": i}}
        for i in range(n)
    ]


def _assert_absent(raw: bytes, *needles: str) -> None:
    for needle in needles:
        for enc in ("utf-8", "utf-16-le", "utf-16-be"):
            assert needle.encode(enc) not in raw, f"{needle!r} ({enc}) still on disk"


@pytest.mark.parametrize("engine", ["hybrid", "bm25"])
def test_delete_user_erases_every_byte(db_path: Path, embedder, raw_bytes, sql, engine):
    victim = f"victim-{MARKER}-user"
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        m.add_many(_filler(30, "keeper"), user_id="keeper")
        texts = [
            f"My {MARKER}{i} secret is long enough to span bytes {'x' * 200}" for i in range(40)
        ]
        m.add_many(texts, user_id=victim)
        m.add(
            f"one more {MARKER} with metadata",
            user_id=victim,
            speaker=f"spk{MARKER}",
            session_id=f"sess{MARKER}",
            metadata={"note": f"meta{MARKER}"},
        )
        m.search(f"{MARKER}3 secret", user_id=victim, k=5)  # indexes built, then erased
        assert MARKER.encode() in raw_bytes(db_path)  # sanity: the marker really was written

        assert m.delete_user(victim) == 41
        # while still open: rows gone, WAL checkpointed, file bytes clean
        assert m.count(victim) == 0 and m.search(MARKER, user_id=victim, k=5) == []
        _assert_absent(raw_bytes(db_path), MARKER)
        assert m.count("keeper") == 30

    _assert_absent(raw_bytes(db_path), MARKER)
    assert sql(db_path, "SELECT COUNT(*) FROM memories WHERE user_id = ?", (victim,)) == [(0,)]
    assert sql(db_path, "SELECT COUNT(*) FROM users WHERE user_id = ?", (victim,)) == [(0,)]
    like = (f"%{MARKER}%",)
    assert sql(db_path, "SELECT COUNT(*) FROM memories WHERE text LIKE ?", like) == [(0,)]
    for key, value in sql(db_path, "SELECT key, value FROM meta"):
        assert MARKER not in key and MARKER not in value
    assert sql(db_path, "SELECT COUNT(*) FROM memories WHERE user_id = 'keeper'") == [(30,)]
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        assert victim not in m.users()
        assert len(m.memories("keeper")) == 30


def test_delete_user_erases_the_user_id_itself(db_path: Path, embedder, raw_bytes):
    victim = f"person-{MARKER}@example.org"
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add_many(_filler(20, "keeper"), user_id="keeper")
        m.add_many(_filler(20, "victim"), user_id=victim)
        m.delete_user(victim)
    _assert_absent(raw_bytes(db_path), MARKER)


@pytest.mark.parametrize("engine", ["hybrid", "dense"])
def test_delete_single_memory_erases_its_text(db_path: Path, embedder, raw_bytes, sql, engine):
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        before = m.add_many(_filler(25, "u"), user_id="u")
        secret = m.add(
            f"The alarm code is {MARKER} and nobody must know",
            user_id="u",
            metadata={"kind": f"kind{MARKER}"},
        )
        after = m.add_many(_filler(5, "u2"), user_id="u")
        assert m.search("alarm code", user_id="u", k=1)[0].id == secret
        assert m.delete(secret, user_id="u") is True
        assert m.get(secret, user_id="u") is None
        assert all(h.id != secret for h in m.search("alarm code", user_id="u", k=50))
    _assert_absent(raw_bytes(db_path), MARKER, secret)
    assert sql(db_path, "SELECT COUNT(*) FROM memories WHERE id = ?", (secret,)) == [(0,)]
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        assert [h.id for h in m.memories("u")] == before + after
        assert m.get(secret, user_id="u") is None


def test_delete_leaves_neighbours_byte_intact(db_path: Path, embedder, raw_bytes):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        keep = m.add(f"keep this {MARKER}keep text", user_id="u")
        drop = m.add(f"drop this {MARKER}drop text", user_id="u")
        m.delete(drop, user_id="u")
    raw = raw_bytes(db_path)
    assert f"{MARKER}keep".encode() in raw
    assert f"{MARKER}drop".encode() not in raw
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        assert m.get(keep, user_id="u").text == f"keep this {MARKER}keep text"


def test_delete_user_erases_bytes_while_another_instance_is_open(
    db_path: Path, embedder, raw_bytes
):
    with (
        Memory(db_path, engine="hybrid", embedder=embedder) as other,
        Memory(db_path, engine="hybrid", embedder=embedder) as m,
    ):
        m.add_many([f"{MARKER} shared-file secret {i}" for i in range(10)], user_id="victim")
        m.add_many(_filler(10, "keeper"), user_id="keeper")
        assert len(other.search(f"{MARKER} secret", user_id="victim", k=3)) == 3
        assert m.delete_user("victim") == 10
        _assert_absent(raw_bytes(db_path), MARKER)
        assert other.search(f"{MARKER} secret", user_id="victim", k=3) == []
        assert other.count("keeper") == 10
    _assert_absent(raw_bytes(db_path), MARKER)


# -- every erasure scrubs the files at once, while the store stays open ------------------


def _engine_copies(m: Memory, user: str) -> None:
    """Make the engines copy text into their own tables and caches: SYNAPSE's concepts
    and mentions, ILSTMA's summaries, recall metadata and short-term memory."""
    m.consolidate(user)
    m.recall(f"what is {MARKER.capitalize()}'s passport number?", user_id=user, k=5)
    m.search(f"{MARKER} passport", user_id=user, k=5)
    m.flush(user)


@pytest.mark.parametrize("engine", ["hybrid", "ilstma", "synapse"])
def test_delete_leaves_no_copy_in_any_file_while_the_store_is_open(
    db_path: Path, embedder, raw_bytes, sql, engine
):
    """A long-running server never closes its store: a delete must not leave the text
    in the -wal (or anywhere) until close."""
    with Memory(db_path, engine=engine, embedder=embedder, llm="none") as m:
        m.add_many(_filler(12, "u"), user_id="u")
        secrets = [
            m.add(f"{MARKER.capitalize()} passport number is XK{MARKER}{i}", user_id="u")
            for i in range(3)
        ]
        m.add_many(_filler(12, "u2"), user_id="u")
        _engine_copies(m, "u")
        assert MARKER.encode() in raw_bytes(db_path)  # sanity: it really was written
        for memory_id in secrets:
            assert m.delete(memory_id, user_id="u") is True
        _assert_absent(raw_bytes(db_path), MARKER)
        assert m.count("u") == 24
    _assert_absent(raw_bytes(db_path), MARKER)


def test_a_failed_import_leaves_no_copy_in_any_file(db_path: Path, embedder, raw_bytes):
    """An import that fails after its rows were stored takes them back out (all or
    nothing); that undo is an erasure too, scrubbed before the error reaches the caller."""
    with Memory(db_path, engine="hybrid", embedder=embedder, llm="none") as m:
        m.add_many(_filler(10, "u"), user_id="u")
        # a real database failure after the entries were inserted: the recall metadata
        # the import writes next is refused by a trigger made on another connection
        con = sqlite3.connect(db_path)
        con.execute(
            "CREATE TRIGGER refuse_meta BEFORE INSERT ON table_meta "
            "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
        )
        con.commit()
        con.close()
        table = {
            "format": "remem.global-memory-table/1",
            "entries": [
                {"text": f"the safe code is {MARKER}{i}", "recall_times": 3} for i in range(5)
            ],
        }
        with pytest.raises(sqlite3.DatabaseError, match="refused by the test"):
            m.import_data(table, user_id="u")
        assert m.count("u") == 10
        _assert_absent(raw_bytes(db_path), MARKER)


# -- an erase that cannot scrub yet says so ------------------------------------------------


def _reader_holding_a_snapshot(db_path: Path) -> sqlite3.Connection:
    """Another connection in a read transaction (a backup, an open sqlite3 shell): its
    snapshot keeps the erased pages in the WAL until it ends."""
    con = sqlite3.connect(db_path, isolation_level=None)
    con.execute("BEGIN")
    con.execute("SELECT COUNT(*) FROM memories").fetchone()
    return con


@pytest.mark.parametrize("engine", ["hybrid", "ilstma"])
def test_erase_under_another_connections_snapshot_is_reported_then_finished(
    db_path: Path, embedder, raw_bytes, engine
):
    with Memory(
        db_path,
        engine=engine,
        embedder=embedder,
        llm="none",
        store_options={"scrub_wait_ms": 50},
    ) as m:
        m.add_many(_filler(10, "u"), user_id="u")
        secret = m.add(f"the safe code is {MARKER}", user_id="u")
        m.add_many([f"{MARKER} user secret {i}" for i in range(8)], user_id="victim")
        m.recall(f"what is the safe code {MARKER}?", user_id="u", k=3)
        reader = _reader_holding_a_snapshot(db_path)
        with pytest.raises(ErasureIncompleteError, match="deleted, but") as err:
            m.delete(secret, user_id="u")
        assert err.value.result is True
        with pytest.raises(ErasureIncompleteError) as err:
            m.delete_user("victim")
        assert err.value.result == 8
        # the rows are gone for every reader of this Memory, and its caches forgot them
        assert m.get(secret, user_id="u") is None and m.count("victim") == 0
        assert all(h.id != secret for h in m.search(f"safe code {MARKER}", user_id="u", k=20))
        assert m.search(MARKER, user_id="victim", k=5) == []
        with pytest.raises(ErasureIncompleteError):
            m.scrub()
        assert MARKER.encode() in raw_bytes(db_path)  # honest: not scrubbed yet
        reader.execute("COMMIT")
        reader.close()
        m.scrub()
        _assert_absent(raw_bytes(db_path), MARKER)
        m.scrub()  # nothing pending: nothing to do


def test_a_pending_scrub_is_reported_only_to_the_user_whose_erase_it_is(
    db_path: Path, embedder, raw_bytes
):
    """The scrub is file-wide, but the error is each request's own: another user's erase
    of nothing is no erase (no error, no wait), and a retry of the erase still pending
    reports what the erase did, not what the retry found (issue 34, finding 7)."""
    with Memory(
        db_path, engine="hybrid", embedder=embedder, llm="none", store_options={"scrub_wait_ms": 50}
    ) as m:
        secret = m.add(f"the safe code is {MARKER}", user_id="u")
        m.add("an ordinary memory of u", user_id="u")
        m.add_many([f"{MARKER} user secret {i}" for i in range(8)], user_id="victim")
        m.add("an ordinary memory of other", user_id="other")
        reader = _reader_holding_a_snapshot(db_path)
        try:
            with pytest.raises(ErasureIncompleteError) as err:
                m.delete_user("victim")
            assert err.value.result == 8
            with pytest.raises(ErasureIncompleteError) as err:
                m.delete(secret, user_id="u")
            assert err.value.result is True
            # other users' erases of nothing: plain answers about themselves
            assert m.delete("nonexistent", user_id="other") is False
            assert m.delete(secret, user_id="other") is False  # u's id is not other's
            assert m.delete_user("nobody") == 0
            assert m.delete("nonexistent", user_id="u") is False  # not what u erased
            # retries of the pending erases report what those erases did
            with pytest.raises(ErasureIncompleteError) as err:
                m.delete_user("victim")
            assert err.value.result == 8
            with pytest.raises(ErasureIncompleteError) as err:
                m.delete(secret, user_id="u")
            assert err.value.result is True
            assert m.count("other") == 1 and m.count("u") == 1
            assert MARKER.encode() in raw_bytes(db_path)  # honest: not scrubbed yet
        finally:
            reader.execute("COMMIT")
            reader.close()
        assert m.delete_user("victim") == 8  # the retry that finishes it: the erase's count
        _assert_absent(raw_bytes(db_path), MARKER, "victim")
        assert m.delete_user("victim") == 0  # finished: now an erase of nothing
        assert m.delete(secret, user_id="u") is False
