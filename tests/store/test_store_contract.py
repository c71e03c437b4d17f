"""The Store contract (``store/base.py``), run against every backend: SQLite (a file in
tmp_path) and PostgreSQL (a fresh database of the session's server, see tests/pg.py),
with the built-in engines' tables attached through the extension hook as a Memory
attaches them (``store_rows.EngineStore``).

Whatever an engine or cache may rely on is pinned here once, so the backends cannot
drift apart: ids and seqs, user scoping, the user_state fingerprint, the cascades of
delete and delete_user through the engines' tables, the compare-and-swap writes, API
keys.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem import StoreError
from remem.engines.ilstma.storage import NoteRow
from remem.keys import KeyRing
from remem.store import Store, UserState
from remem.store.sqlite import SQLiteStore
from remem.types import Passages
from store_rows import EngineStore, new_memory, vectors  # noqa: E402

_new, _vecs = new_memory, vectors


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens stores on one location (several calls: several "processes")."""
    if request.param == "sqlite":
        path = tmp_path / "contract.db"

        def make() -> Store:
            return SQLiteStore(path)
    else:
        from remem.store.postgres import PostgresStore

        url = request.getfixturevalue("pg_url")

        def make() -> Store:
            return PostgresStore(url)

    opened: list[Store] = []

    def factory() -> Any:
        s = make()
        opened.append(s)
        return EngineStore(s)

    yield factory
    for s in opened:
        s.close()


@pytest.fixture
def store(make_store) -> Any:
    return make_store()


# -- memories ----------------------------------------------------------------------------


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


def test_pages_walk_one_user_in_order_by_cursor(store):
    store.add("u", [_new(f"m{i}") for i in range(7)], _vecs(7))
    store.add("other", [_new("theirs")], _vecs(1))
    gone = store.load("u")[2].id
    store.delete("u", [gone])
    pages = list(store.pages("u", 3, with_embeddings=True))
    assert [[m.text for m in p] for p in pages] == [["m0", "m1", "m3"], ["m4", "m5", "m6"]]
    assert all(m.embedding is not None for p in pages for m in p)
    assert [len(p) for p in store.pages("u", 6)] == [6]
    assert list(store.pages("nobody", 3)) == []


def test_add_keeps_given_ids_and_times_and_refuses_a_taken_id(store):
    kept = store.add("u", [_new("a"), _new("b")], _vecs(2), ids=["id-a", "id-b"],
                     created_at=[1000.0, 2000.0])  # fmt: skip
    assert [m.id for m in kept] == ["id-a", "id-b"]
    assert set(store.get("u", ["id-a", "id-b"])) == {"id-a", "id-b"}
    assert store.taken(["id-b", "id-x", "id-a"]) == ["id-b", "id-a"]
    with pytest.raises(StoreError, match="exists already"):
        store.add("v", [_new("c")], _vecs(1), ids=["id-a"])  # another user's id too
    with pytest.raises(StoreError, match="one distinct id"):
        store.add("v", [_new("c"), _new("d")], _vecs(2), ids=["same", "same"])
    assert store.count("v") == 0 and store.taken(["same"]) == []


def test_values_round_trip_exactly(store):
    """Bit-exact float32 (extremes, subnormals, -0.0), metadata key order and unicode,
    naive and offset timestamps, None fields."""
    special = np.array(
        [[np.float32(1e-45), -0.0, np.finfo(np.float32).max, np.float32(1 / 3)]], np.float32
    )
    naive = datetime(2020, 2, 29, 23, 59, 59, 123456)
    offset = datetime(2021, 7, 1, 8, 0, tzinfo=timezone(timedelta(hours=5, minutes=30)))
    meta = {"z": 1, "a": [1.5, {"b": None}], "ü": "é \u0000 ✓", "n": 2**53}
    out = store.add(
        "u",
        [
            _new("naïve 🙂", timestamp=naive, metadata=meta),
            _new("offset", timestamp=offset, speaker=None, session_id=None),
        ],
        np.vstack([special, _vecs(1)]),
    )
    first, second = store.load("u")
    assert first.embedding.tobytes() == special[0].tobytes()
    assert (first.text, first.timestamp, first.metadata) == ("naïve 🙂", naive, meta)
    assert list(first.metadata) == ["z", "a", "ü", "n"]
    assert second.timestamp == offset and second.timestamp.utcoffset() == offset.utcoffset()
    assert (second.speaker, second.session_id) == (None, None)
    assert store.get("u", [out[0].id])[out[0].id].metadata == meta


def test_add_continues_seq_and_checks_embedding_count(store):
    store.add("u", [_new("a"), _new("b")], _vecs(2))
    more = store.add("u", [_new("c")], _vecs(1))
    assert more[0].seq == 2
    with pytest.raises(StoreError, match="one embedding per memory"):
        store.add("u", [_new("d"), _new("e")], _vecs(1))
    assert store.count("u") == 3
    assert store.add("v", [_new("first of v")], None)[0].seq == 0
    assert store.load("v")[0].embedding is None


def test_empty_add_creates_the_user(store):
    assert store.add("u", [], None) == []
    assert store.user_state("u").next_seq == 0
    assert store.users() == ["u"] and store.count("u") == 0


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
    assert store.get("bob", []) == {}


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
    store.add("u", [_new("c")], _vecs(1))
    assert store.user_state("u") == UserState(s1.epoch, 3, 1)
    assert store.delete_user("u") == 2
    assert store.user_state("u") is None
    assert store.delete_user("u") == 0
    store.add("u", [_new("again")], _vecs(1))
    s3 = store.user_state("u")
    assert s3.epoch != s1.epoch and (s3.next_seq, s3.del_rev) == (1, 0)
    assert store.load("u")[0].seq == 0


def test_many_ids_in_one_call(store):
    out = store.add("u", [_new(f"t{i}") for i in range(1200)], None)
    ids = [m.id for m in out]
    assert len(store.get("u", ids)) == 1200  # more than one 500-id chunk
    assert store.delete("u", ids[::2]) == ids[::2]
    assert store.count("u") == 600
    assert [m.seq for m in store.load("u")] == list(range(1, 1200, 2))


def test_meta_users_count(store):
    assert store.get_meta("nothing") is None
    store.set_meta("k", "v1")
    store.set_meta("k", "v2")
    assert store.get_meta("k") == "v2"
    assert store.schema_version() == 7
    for user in ["zed", "amy", "Bob", "Émile", "_x"]:
        store.add(user, [_new("z")], None)
    assert store.users() == sorted(["zed", "amy", "Bob", "Émile", "_x"])  # code point order
    assert store.count("amy") == 1 and store.count("nobody") == 0


def test_failed_transaction_rolls_back(store):
    store.add("u", [_new("kept")], None)
    with pytest.raises(ValueError), store._write() as tx:
        tx.run("INSERT INTO meta (key, value) VALUES ('half', 'done')")
        raise ValueError("boom")
    assert store.get_meta("half") is None
    assert store.count("u") == 1


def test_close_is_idempotent(make_store):
    s = make_store()
    s.add("u", [_new("x")], None)
    s.close()
    s.close()
    again = make_store()
    assert again.count("u") == 1  # closing kept the data


def test_writes_through_one_instance_are_seen_by_another(make_store):
    a, b = make_store(), make_store()
    (m,) = a.add("u", [_new("from a")], _vecs(1))
    assert b.get("u", [m.id])[m.id].text == "from a"
    assert b.user_state("u") == a.user_state("u")
    b.delete("u", [m.id])
    assert a.count("u") == 0 and a.user_state("u").del_rev == 1


# -- SYNAPSE's semantic layer ---------------------------------------------------------------


def _graph_fixture(store: Store, user: str = "u") -> list[str]:
    """Memories 0..2; concept 0 "lisbon" (alias "lisboa") mentioned by m0 and m1,
    concept 1 "cello" mentioned by m2 only."""
    ids = [m.id for m in store.add(user, [_new(f"m{i}") for i in range(3)], _vecs(3))]
    rev = store.graph_save(
        user,
        mentions=[
            (ids[0], "lisbon", "place"),
            (ids[1], "lisboa", "place"),
            (ids[2], "cello", "thing"),
        ],
        concepts=[(0, "lisbon", "place", _vecs(1, seed=1)[0]), (1, "cello", "thing", _vecs(1)[0])],
        aliases=[("lisbon", 0), ("lisboa", 0), ("cello", 1)],
        consolidated_seq=2,
        expect_rev=0,
        activity=[("m", ids[2], 4), ("c", "1", 4), ("c", "0", 2)],
    )
    assert rev == 1
    return ids


def test_graph_save_load_and_compare_and_swap(store):
    assert store.graph_state("u") == (-1, 0)
    empty = store.graph_load("u")
    assert (empty.mentions, empty.concepts, empty.aliases, empty.activity) == ([], [], {}, {})
    assert (empty.consolidated_seq, empty.rev) == (-1, 0)
    ids = _graph_fixture(store)
    assert store.graph_state("u") == (2, 1)
    rows = store.graph_load("u")
    assert rows.mentions == [
        (ids[0], "lisbon", "place", 0),
        (ids[1], "lisboa", "place", 1),
        (ids[2], "cello", "thing", 2),
    ]
    assert [(c, lab, k) for c, lab, k, _ in rows.concepts] == [
        (0, "lisbon", "place"),
        (1, "cello", "thing"),
    ]
    assert rows.concepts[0][3].dtype == np.float32
    np.testing.assert_array_equal(rows.concepts[0][3], _vecs(1, seed=1)[0])
    assert rows.aliases == {"lisbon": 0, "lisboa": 0, "cello": 1}
    assert rows.activity == {("m", ids[2]): 4, ("c", "1"): 4, ("c", "0"): 2}
    assert (rows.consolidated_seq, rows.rev) == (2, 1)
    # a stale writer loses and writes nothing
    stale = store.graph_save(
        "u",
        mentions=[(ids[0], "fado", "thing")],
        concepts=[(2, "fado", "thing", _vecs(1)[0])],
        aliases=[("fado", 2)],
        consolidated_seq=9,
        expect_rev=0,
    )
    assert stale is None
    assert store.graph_state("u") == (2, 1) and len(store.graph_load("u").concepts) == 2
    # mentions and activity of memories that no longer exist are skipped
    store.delete("u", [ids[0]])  # bumps rev (orphan sweep)
    assert store.graph_state("u") == (2, 2)
    rev = store.graph_save(
        "u",
        mentions=[(ids[0], "ghost", "thing"), ("never-existed", "ghost", "thing")],
        concepts=[],
        aliases=[],
        consolidated_seq=3,
        expect_rev=2,
        activity=[("m", ids[0], 9), ("m", ids[1], 5), ("c", "77", 5)],
    )
    assert rev == 3
    rows = store.graph_load("u")
    assert all(m[1] != "ghost" for m in rows.mentions)
    assert ("m", ids[0]) not in rows.activity and ("c", "77") not in rows.activity
    assert rows.activity[("m", ids[1])] == 5
    assert store.graph_state("other") == (-1, 0)  # per user


def test_graph_touch_keeps_the_latest_window(store):
    ids = _graph_fixture(store)
    store.graph_touch("u", [("m", ids[0], 5), ("c", "0", 7)])
    store.graph_touch("u", [("m", ids[0], 3), ("c", "0", 9), ("c", "5", 1), ("m", "gone", 1)])
    store.graph_touch("u", [])
    act = store.graph_load("u").activity
    assert act[("m", ids[0])] == 5 and act[("c", "0")] == 9
    assert ("c", "5") not in act and ("m", "gone") not in act
    assert store.graph_state("u") == (2, 1)  # touching is not a new revision


def test_delete_cascades_through_the_semantic_layer(store):
    ids = _graph_fixture(store)
    other = _graph_fixture(store, "other")
    store.delete("u", [ids[2]])  # the only mention of "cello": the concept goes
    rows = store.graph_load("u")
    assert [m[0] for m in rows.mentions] == ids[:2]
    assert [c[0] for c in rows.concepts] == [0]
    assert rows.aliases == {"lisbon": 0, "lisboa": 0}
    assert rows.activity == {("c", "0"): 2}
    assert rows.rev == 2
    store.delete("u", [ids[0]])  # "lisboa" still mentions concept 0: it stays
    rows = store.graph_load("u")
    assert rows.aliases == {"lisboa": 0} and [c[0] for c in rows.concepts] == [0]
    store.delete("u", [ids[1]])
    rows = store.graph_load("u")
    assert (rows.mentions, rows.concepts, rows.aliases, rows.activity) == ([], [], {}, {})
    assert (rows.consolidated_seq, rows.rev) == (2, 4)
    theirs = store.graph_load("other")  # the other user's layer is untouched
    assert len(theirs.mentions) == 3 and len(theirs.concepts) == 2 and theirs.rev == 1
    assert [m[0] for m in theirs.mentions] == other


# -- the global memory table and ILSTMA's notes ---------------------------------------------


def test_table_meta_update_and_read(store):
    ids = [m.id for m in store.add("u", [_new(f"m{i}") for i in range(3)], None)]
    assert store.table_meta("u") == {}
    store.table_meta_update("u", [(ids[0], 2, 1700000000.25), (ids[1], 1, 1.5), ("nope", 3, 0)])
    assert store.table_meta("u") == {ids[0]: (2, 1700000000.25), ids[1]: (1, 1.5)}
    store.table_meta_update("u", [(ids[0], 5, 2.0)])
    assert store.table_meta("u", [ids[0], ids[2], "nope"]) == {ids[0]: (5, 2.0)}
    assert store.table_meta("u", []) == {}
    assert store.table_meta("v") == {}
    store.table_meta_update("v", [(ids[2], 9, 9.0)])  # another user's memory: skipped
    assert store.table_meta("v") == {} and ids[2] not in store.table_meta("u")
    store.delete("u", [ids[0]])
    assert store.table_meta("u") == {ids[1]: (1, 1.5)}
    store.table_meta_update("u", [(ids[0], 7, 7.0)])  # deleted meanwhile: skipped
    assert store.table_meta("u") == {ids[1]: (1, 1.5)}
    store.table_meta_update("u", [])


def test_table_meta_bump_adds_increments_and_keeps_the_latest_recall(store):
    ids = [m.id for m in store.add("u", [_new(f"m{i}") for i in range(2)], _vecs(2))]
    store.table_meta_bump("u", [(ids[0], 1, 10.0), ("nope", 1, 1.0)])
    assert store.table_meta("u") == {ids[0]: (2, 10.0)}  # from the default 1
    store.table_meta_bump("u", [(ids[0], 3, 5.0), (ids[1], 2, 7.0)])
    assert store.table_meta("u") == {ids[0]: (5, 10.0), ids[1]: (3, 7.0)}
    store.table_meta_bump("v", [(ids[0], 1, 99.0)])  # another user's memory: skipped
    assert store.table_meta("u")[ids[0]] == (5, 10.0) and store.table_meta("v") == {}
    store.table_meta_bump("u", [])


def test_table_meta_bumps_from_several_processes_all_count(make_store):
    stores = [make_store() for _ in range(4)]
    (mid,) = [m.id for m in stores[0].add("u", [_new("m")], _vecs(1))]
    _race(4, lambda i: [stores[i].table_meta_bump("u", [(mid, 1, float(i))]) for _ in range(5)])
    assert stores[0].table_meta("u") == {mid: (21, 3.0)}


def _note(kind: str, nid: int, first: int, last: int, text: str = "x") -> NoteRow:
    return NoteRow(kind, nid, "S", first, last, json.dumps([{"text": text}]))


def test_notes_compare_and_swap(store):
    assert store.notes_state("u") == -1
    assert store.notes_load("u") == (-1, [])
    notes = [_note("trait", 0, 0, 2), _note("summary", 1, 3, 5), _note("summary", 0, 0, 2)]
    assert store.notes_save("u", notes, 5, expect_seq=-1) is True
    assert store.notes_state("u") == 5
    seq, rows = store.notes_load("u")
    assert seq == 5 and [(n.kind, n.nid) for n in rows] == [
        ("summary", 0),
        ("summary", 1),
        ("trait", 0),
    ]
    assert rows[0] == notes[2]
    assert store.notes_save("u", [_note("summary", 9, 6, 7)], 7, expect_seq=-1) is False
    assert store.notes_load("u") == (5, rows)  # the loser wrote nothing
    updated = _note("trait", 0, 0, 5, "new trait")
    assert store.notes_save("u", [updated], 7, expect_seq=5) is True
    seq, rows = store.notes_load("u")
    assert seq == 7 and rows[-1] == updated and len(rows) == 3
    assert store.notes_save("u", [], 8, expect_seq=7) is True
    assert store.notes_state("u") == 8 and store.notes_state("v") == -1


def test_delete_drops_notes_and_rewinds_summarising(store):
    ids = [m.id for m in store.add("u", [_new(f"m{i}") for i in range(8)], None)]
    notes = [
        _note("summary", 0, 0, 2),
        _note("summary", 1, 3, 5),
        _note("trait", 0, 0, 5),
        _note("trait", 1, 6, 7),
    ]
    assert store.notes_save("u", notes, 7, expect_seq=-1)
    store.delete("u", [ids[6]])  # only a trait covers seq 6: no rewind
    assert store.notes_load("u") == (7, notes[:3])
    store.delete("u", [ids[4]])  # summary 1 (3..5) and trait 0 (0..5) go; resume at 3
    assert store.notes_load("u") == (2, [notes[0]])
    store.delete("u", [ids[1], ids[7]])  # summary 0 goes; resume at 0
    assert store.notes_load("u") == (-1, [])


def test_delete_of_many_ids_rewinds_to_the_earliest_dropped_summary(store):
    """More ids than one bound-variable chunk: the rewind is the minimum over all of
    them, not over the first chunk."""
    ids = [m.id for m in store.add("u", [_new(f"m{i}") for i in range(1200)], None)]
    notes = [_note("summary", 0, 0, 9), _note("summary", 1, 1000, 1009)]
    assert store.notes_save("u", notes + [_note("trait", 0, 1100, 1199)], 1199, expect_seq=-1)
    assert store.delete("u", ids[600:] + [ids[5]]) == ids[600:] + [ids[5]]
    assert store.notes_load("u") == (-1, [])
    assert store.count("u") == 599


def test_delete_user_erases_every_layer(store):
    ids = _graph_fixture(store)
    _graph_fixture(store, "other")
    store.table_meta_update("u", [(ids[0], 2, 2.0)])
    store.notes_save("u", [_note("summary", 0, 0, 2)], 2, expect_seq=-1)
    assert store.delete_user("u") == 3
    assert store.count("u") == 0 and store.load("u") == [] and store.users() == ["other"]
    assert store.graph_state("u") == (-1, 0) and store.graph_load("u").mentions == []
    assert store.table_meta("u") == {} and store.notes_load("u") == (-1, [])
    assert store.graph_state("other") == (2, 1) and store.count("other") == 3


def _every_row_as_text(store: Store, but: str = "") -> str:
    """Every row of every table of the database (but one), as text (to look for a word)."""
    with store._read() as tx:  # type: ignore[attr-defined]
        if tx.dialect == "sqlite":
            names = tx.all("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            names = tx.all(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            )
        return "\n".join(
            repr(row) for (name,) in names if name != but for row in tx.all(f"SELECT * FROM {name}")
        )


@pytest.mark.parametrize("engine", ["synapse", "ilstma", "hybrid"])
def test_delete_leaves_the_text_in_no_table_of_any_engine(store, embedder, engine):
    """Every table that copies a memory's words (SYNAPSE's mentions, concepts and
    aliases, ILSTMA's summaries and recall metadata) lets go of them with the memory."""
    from remem import Memory

    marker = "Zorvexa"
    mem = Memory(store=store.store, engine=engine, embedder=embedder, llm="none")
    try:
        mem.add_many([f"ordinary day number {i} in the garden" for i in range(7)], "u")
        ids = [mem.add(f"{marker} keeps the passport, says {marker} {i}", "u") for i in range(3)]
        mem.add_many([f"another ordinary evening {i} with tea" for i in range(7)], "u")
        mem.consolidate("u")
        mem.recall(f"where is {marker}'s passport?", user_id="u", k=5)
        mem.flush("u")
        if engine != "hybrid":  # sanity: the engine copied it into its own tables
            assert marker.lower() in _every_row_as_text(store.store, but="memories").lower()
        for memory_id in ids:
            assert mem.delete(memory_id, user_id="u")
        assert marker.lower() not in _every_row_as_text(store.store).lower()
        assert mem.count("u") == 14
    finally:
        mem.close()


# -- concurrency: compare-and-swap and seq allocation across instances ----------------------


def _race(n: int, fn: Callable[[int], object]) -> list[object]:
    barrier = threading.Barrier(n)
    results: list[object] = [None] * n
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            barrier.wait()
            results[i] = fn(i)
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def test_compare_and_swap_has_one_winner_across_instances(make_store):
    stores = [make_store() for _ in range(4)]
    (m,) = stores[0].add("u", [_new("m")], _vecs(1))

    def consolidate(i: int) -> int | None:
        return stores[i].graph_save(
            "u",
            mentions=[(m.id, f"label{i}", "thing")],
            concepts=[(0, f"label{i}", "thing", _vecs(1)[0])],
            aliases=[(f"label{i}", 0)],
            consolidated_seq=0,
            expect_rev=0,
        )

    revs = _race(4, consolidate)
    assert sorted(revs, key=str) == [1, None, None, None]
    assert len(stores[1].graph_load("u").mentions) == 1

    def summarise(i: int) -> bool:
        return stores[i].notes_save("u", [_note("summary", i, 0, 0)], 0, expect_seq=-1)

    assert sorted(_race(4, summarise)) == [False, False, False, True]
    assert len(stores[2].notes_load("u")[1]) == 1


def test_concurrent_adds_get_distinct_dense_seqs(make_store):
    stores = [make_store() for _ in range(2)]

    def add(i: int) -> list[int]:
        seqs = []
        for b in range(10):
            out = stores[i % 2].add("u", [_new(f"{i}-{b}-{j}") for j in range(3)], _vecs(3))
            assert [m.seq for m in out] == list(range(out[0].seq, out[0].seq + 3))
            seqs += [m.seq for m in out]
        return seqs

    results = _race(4, add)
    every = sorted(s for seqs in results for s in seqs)
    assert every == list(range(120))
    assert stores[0].count("u") == 120 and stores[1].user_state("u").next_seq == 120
    assert [m.seq for m in stores[1].load("u")] == list(range(120))


# -- API keys ------------------------------------------------------------------------------


def test_api_keys(store, monkeypatch):
    ring = KeyRing(store.keys)
    k1, i1 = ring.create("acme", "ci")
    k2, i2 = ring.create("acme")
    k3, i3 = ring.create("other", "x")
    assert ring.verify(k1) == "acme" and ring.verify(k3) == "other"
    assert [i.key_id for i in ring.list()] == [i1.key_id, i2.key_id, i3.key_id]  # by time
    assert [i.key_id for i in ring.list("acme")] == [i1.key_id, i2.key_id]
    assert ring.list("none") == []
    monkeypatch.setattr("remem.keys.secrets.token_hex", lambda n: i1.key_id)
    with pytest.raises(StoreError, match=f"'{i1.key_id}' exists"):
        ring.create("evil")
    assert ring.revoke(i1.key_id) is True
    assert ring.revoke(i1.key_id) is False  # already revoked: keeps the first time
    assert ring.revoke("nope") is False
    assert ring.verify(k1) is None and ring.verify(k2) == "acme"
    first = ring.list("acme")[0]
    assert first.key_id == i1.key_id and not first.active and first.revoked is not None


def test_passages_round_trip_with_their_memory(store):
    spans = ((0, 5), (3, 9))
    pv = _vecs(2, seed=3)
    rows = store.add(
        "u",
        [_new("abcdefghi"), _new("short")],
        _vecs(2),
        [Passages(spans, pv), None],
    )
    assert rows[0].passages.spans == spans and rows[1].passages is None
    loaded = {m.id: m for m in store.load("u")}
    got = loaded[rows[0].id].passages
    assert got.spans == spans and np.array_equal(got.vectors, pv)
    assert loaded[rows[1].id].passages is None
    bare = store.get("u", [rows[0].id])[rows[0].id]  # without embeddings: spans only
    assert bare.passages.spans == spans and bare.passages.vectors is None
    assert store.load("u", with_embeddings=False)[0].passages.vectors is None
    with pytest.raises(StoreError, match="one passages entry per memory"):
        store.add("u", [_new("x")], _vecs(1), [])
    store.delete("u", [rows[0].id])
    assert [m.id for m in store.load("u")] == [rows[1].id]


def test_load_pages_in_the_database(store):
    ids = [m.id for m in store.add("u", [_new(f"m{i}") for i in range(7)], _vecs(7))]
    page = lambda **kw: [m.id for m in store.load("u", with_embeddings=False, **kw)]  # noqa: E731
    assert page() == ids
    assert page(limit=3) == ids[:3]
    assert page(limit=3, offset=3) == ids[3:6]
    assert page(limit=3, offset=6) == ids[6:]
    assert page(offset=5) == ids[5:]
    assert page(limit=3, offset=10) == []
    assert [m.id for m in store.load("u", after_seq=2, limit=2)] == ids[3:5]
