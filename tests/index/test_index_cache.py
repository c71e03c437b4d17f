"""The per-user index cache stays in step with the store."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from remem.index.cache import IndexCache
from remem.store.sqlite import SQLiteStore
from remem.types import NewMemory


def _new(text: str) -> NewMemory:
    return NewMemory(text, None, datetime(2024, 1, 1, tzinfo=timezone.utc), None, {})


def _vecs(n: int) -> np.ndarray:
    v = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_cache_appends_only_new_rows_and_rebuilds_on_foreign_delete(db_path):
    s1, s2 = SQLiteStore(db_path), SQLiteStore(db_path)
    try:
        cache = IndexCache(s1, 4)
        assert len(cache.get("u")) == 0
        first = s1.add("u", [_new("apple pie"), _new("banana bread")], _vecs(2))
        idx = cache.get("u")
        assert idx.ids == [m.id for m in first] and idx.last_seq == 1
        assert cache.get("u") is idx  # unchanged state: same object
        more = s2.add("u", [_new("cherry tart")], _vecs(1))  # another connection
        idx2 = cache.get("u")
        assert idx2 is idx and idx.ids[-1] == more[0].id and len(idx) == 3
        s2.delete("u", [first[0].id])  # foreign delete: rebuild
        idx3 = cache.get("u")
        assert idx3.ids == [first[1].id, more[0].id] and len(idx3) == 2
        assert idx3.bm25.scores("apple").max() == 0.0
    finally:
        s1.close()
        s2.close()


def test_own_add_applied_in_place_and_foreign_writes_left_to_the_next_sync(db_path):
    s1, s2 = SQLiteStore(db_path), SQLiteStore(db_path)
    try:
        cache = IndexCache(s1, 4)
        before = cache.get("u").state  # a new user: nothing yet
        rows = s1.add("u", [_new("apple"), _new("banana")], _vecs(2))
        cache.added("u", rows, before)
        idx = cache.get("u")
        assert idx.ids == [m.id for m in rows] and idx.state == s1.user_state("u")

        def no_reads(*a, **k):  # the cache is current: a search reads no rows back
            raise AssertionError("rows were read back")

        real, s1.load = s1.load, no_reads
        more = s1.add("u", [_new("cherry")], _vecs(1))
        cache.added("u", more, idx.state)
        assert cache.get("u") is idx and idx.ids[-1] == more[0].id
        s1.load = real

        before = idx.state
        s2.add("u", [_new("date")], _vecs(1))  # another process writes meanwhile
        late = s1.add("u", [_new("elderberry")], _vecs(1))
        cache.added("u", late, before)  # not applied: the counts do not add up
        assert late[0].id not in idx.pos
        synced = cache.get("u")  # the next sync loads both rows, in order
        assert [synced.bm25.scores(w).argmax() for w in ("date", "elderberry")] == [3, 4]
        assert cache.get("u").ids[-1] == late[0].id and len(cache.get("u")) == 5
        cache.added("nobody", [], None)  # nothing to add: nothing happens
    finally:
        s1.close()
        s2.close()


def test_own_delete_applied_in_place(db_path):
    store = SQLiteStore(db_path)
    try:
        cache = IndexCache(store, 4)
        rows = store.add("u", [_new("apple"), _new("banana"), _new("cherry")], _vecs(3))
        idx = cache.get("u")
        before = idx.state
        gone = store.delete("u", [rows[1].id])
        cache.deleted("u", gone, before)
        idx2 = cache.get("u")
        assert idx2 is idx  # no rebuild
        assert rows[1].id not in idx.pos and len(idx) == 2
        assert np.isneginf(idx.dense.scores(np.ones(4, dtype=np.float32))[1])
    finally:
        store.close()


def test_lru_bound(db_path):
    store = SQLiteStore(db_path)
    try:
        cache = IndexCache(store, 4, max_users=2)
        for u in ("a", "b", "c"):
            store.add(u, [_new(f"text of {u}")], _vecs(1))
            cache.get(u)
        assert list(cache._users) == ["b", "c"]
        assert len(cache.get("a")) == 1  # evicted users reload transparently
        assert cache.nbytes() > 0
        cache.drop("a")
        assert "a" not in cache._users
    finally:
        store.close()


def test_each_position_says_whether_its_text_has_a_word(db_path):
    """``worded`` follows appends, in-place adds and rebuilds alike; a speaker's name
    does not count (it is not what the memory says)."""
    s1, s2 = SQLiteStore(db_path), SQLiteStore(db_path)
    try:
        cache = IndexCache(s1, 4)
        s1.add("u", [_new("apple pie"), _new("x")], _vecs(2))
        idx = cache.get("u")
        assert idx.worded.tolist() == [True, False]
        before = idx.state
        said = NewMemory("?", "Ana", datetime(2024, 1, 1, tzinfo=timezone.utc), None, {})
        cache.added("u", s1.add("u", [said], _vecs(1)), before)
        assert cache.get("u").worded.tolist() == [True, False, False]
        s2.add("u", [_new("banana bread")], _vecs(1))  # another connection: appended
        assert cache.get("u").worded.tolist() == [True, False, False, True]
        s2.delete("u", [cache.get("u").ids[0]])  # a foreign delete: rebuilt
        assert cache.get("u").worded.tolist() == [False, False, True]
    finally:
        s1.close()
        s2.close()


def test_each_position_knows_its_session(db_path):
    """``session`` codes follow appends, in-place adds and rebuilds: one code per
    session id of the user, -1 for a memory of none."""
    s1, s2 = SQLiteStore(db_path), SQLiteStore(db_path)
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)

    def said(text: str, session: str | None) -> NewMemory:
        return NewMemory(text, None, when, session, {})

    try:
        cache = IndexCache(s1, 4)
        s1.add("u", [said("apple pie", "a"), said("banana", None), said("cherry", "b")], _vecs(3))
        idx = cache.get("u")
        assert idx.session.tolist() == [0, -1, 1]
        before = idx.state
        cache.added("u", s1.add("u", [said("date", "a")], _vecs(1)), before)
        assert cache.get("u").session.tolist() == [0, -1, 1, 0]
        s2.add("u", [said("elder", "c")], _vecs(1))  # another connection: appended
        assert cache.get("u").session.tolist() == [0, -1, 1, 0, 2]
        s2.delete("u", [cache.get("u").ids[0]])  # a foreign delete: rebuilt
        # banana (none), cherry (b), date (a), elder (c): codes by first appearance
        assert cache.get("u").session.tolist() == [-1, 0, 1, 2]
        s1.add("v", [said("fig", "c")], _vecs(1))  # another user's "c" is its own
        assert cache.get("v").session.tolist() == [0]
    finally:
        s1.close()
        s2.close()


def test_the_turns_beside_a_memory_in_its_session(db_path):
    """``beside_in_session``: the memory said next (1) or before (-1) in the same
    session, by time, a deleted one skipped and a memory of no session passed over;
    none across a session's end or for a memory of no session."""
    store = SQLiteStore(db_path)
    when = datetime(2024, 1, 1, tzinfo=timezone.utc)
    texts = [("a1", "a"), ("a2", "a"), ("none", None), ("a3", "a"), ("b1", "b")]
    try:
        cache = IndexCache(store, 4)
        store.add("u", [NewMemory(t, None, when, s, {}) for t, s in texts], _vecs(5))
        ids = cache.get("u").ids
        idx = cache.get("u")
        assert idx.beside_in_session(ids[0], 1) == ids[1]
        assert idx.beside_in_session(ids[1], -1) == ids[0]
        assert idx.beside_in_session(ids[0], 2) == ids[3]
        assert idx.beside_in_session(ids[0], -1) is None  # the session's first
        assert idx.beside_in_session(ids[1], 1) == ids[3]  # "none" is in no session
        assert (
            idx.beside_in_session(ids[2], 1) is None and idx.beside_in_session(ids[2], -1) is None
        )
        assert idx.beside_in_session(ids[4], -1) is None  # another session before it
        assert idx.next_in_session(ids[0]) == ids[1]
        store.delete("u", [ids[1]])
        idx = cache.get("u")
        assert idx.beside_in_session(ids[0], 1) == ids[3]  # a2 gone
    finally:
        store.close()


def test_the_turn_beside_is_the_one_said_beside_not_the_one_added_beside(db_path):
    """A turn added late (an import, an update: a new position at the end) sits
    between the turns it was said between: the reader's "next turn" is read by
    time, as SYNAPSE's neighbour context is (``session_beside``)."""
    store = SQLiteStore(db_path)
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    said_at = [("Who's teaching you?", 0), ("Any good?", 2), ("Her name is Ines.", 1)]
    try:
        cache = IndexCache(store, 4)
        rows = [NewMemory(t, None, t0 + timedelta(minutes=m), "s", {}) for t, m in said_at]
        store.add("u", rows, _vecs(3))
        idx = cache.get("u")
        asks, later, reply = idx.ids
        assert idx.next_in_session(asks) == reply
        assert idx.beside_in_session(reply, 1) == later
        assert idx.beside_in_session(later, -1) == reply
    finally:
        store.close()


@pytest.mark.parametrize("score", ["corrected", "max", "both", "mean"])
def test_scoring_some_positions_agrees_with_scoring_all(tmp_path, embedder, score):
    """The approximate path (``ann_above``) scores only the positions it reached with
    ``similarity_at``; a long memory must get there the score ``similarity`` gives it
    (the same passage rule, the best-of-P correction included), or long memories rank
    differently once a history is large."""
    from remem import Memory

    section = "Section {} covers general background material, item {}, nothing in particular."
    longs = [
        " ".join(section.format(i, j) for i in range(40)) + f" The code of locker {j} is {j}{j}."
        for j in range(3)
    ]
    shorts = [f"Note {i}: the train to Porto leaves at nine from platform {i}." for i in range(12)]
    opts = {"score": score}
    with Memory(
        tmp_path / "m.db", engine="dense", embedder=embedder, llm="none", passage_options=opts
    ) as mem:
        ids = mem.add_many([*longs, *shorts], user_id="u")
        mem.delete(ids[-1], user_id="u")  # a dead position among them
        query = embedder.embed(["What is the code of the locker?"])[0]
        with mem._engine.ctx.indexes.use("u") as idx:
            assert idx.has_passages
            every = idx.similarity(query)
            some = np.array([0, 2, 5, len(ids) - 1], dtype=np.int64)
            np.testing.assert_allclose(idx.similarity_at(some, query), every[some], rtol=1e-5)


def test_long_memories_added_after_a_search_score_by_their_passages(tmp_path, embedder):
    """The passage layout (owners, passage counts) is kept between searches: a long
    memory appended after one must still be scored by its passages, as in an index
    built from scratch over the same memories."""
    from remem import Memory

    section = "Section {} covers general background material, item {}, nothing in particular."

    def long(j: int) -> str:
        return " ".join(section.format(i, j) for i in range(40)) + f" Locker {j} code: {j}{j}."

    query = embedder.embed(["What is the code of locker 4?"])[0]
    with Memory(tmp_path / "a.db", engine="dense", embedder=embedder, llm="none") as mem:
        mem.add_many([long(0), long(1), "A short note."], user_id="u")
        with mem._engine.ctx.indexes.use("u") as idx:
            idx.similarity(query)  # the layout is made here
        mem.add_many([long(4), "Another note."], user_id="u")
        with mem._engine.ctx.indexes.use("u") as idx:
            grown = idx.similarity(query)
            assert idx.passage_rows.keys() == {0, 1, 3}
    with Memory(tmp_path / "b.db", engine="dense", embedder=embedder, llm="none") as mem:
        mem.add_many([long(0), long(1), "A short note.", long(4), "Another note."], user_id="u")
        with mem._engine.ctx.indexes.use("u") as idx:
            np.testing.assert_allclose(grown, idx.similarity(query), rtol=1e-5)
    assert int(np.argmax(grown)) == 3
