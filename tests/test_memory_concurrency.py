"""Several writers on one file, and several Memory objects that must see each other's work."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
import threading
import traceback
from pathlib import Path

import pytest

from remem import Memory

SINGLE_ADDS = 60
BATCHES = 3
BATCH_SIZE = 10


def _writer(path: str, name: str, barrier, results) -> None:
    """Child process: open its own Memory at the same moment as the other, then write."""
    try:
        from remem import Memory
        from remem.embed import create_embedder

        emb = create_embedder("minilm")
        emb.embed(["warm up"])
        barrier.wait(timeout=120)  # both open the (new) file at once
        ids = []
        with Memory(path, engine="hybrid", embedder=emb) as m:
            for i in range(SINGLE_ADDS):
                ids.append(
                    m.add(f"{name} single note {i}", user_id="shared", metadata={"w": name, "i": i})
                )
                if i % 20 == 10:
                    items = [
                        {"text": f"{name} batch {i} item {j}", "metadata": {"w": name}}
                        for j in range(BATCH_SIZE)
                    ]
                    ids += m.add_many(items, user_id="shared")
                    ids += m.add_many([f"{name} own {i}"], user_id=name)
            hits = m.search(f"{name} single note", user_id="shared", k=5)
            assert hits
        results.put((name, "ok", ids))
    except BaseException:  # report everything, including "database is locked"
        results.put((name, "error", traceback.format_exc()))


def test_two_processes_writing_at_once_lose_nothing(tmp_path: Path):
    path = str(tmp_path / "shared.db")
    ctx = mp.get_context("spawn")
    barrier = ctx.Barrier(2)
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_writer, args=(path, name, barrier, results))
        for name in ("alpha", "beta")
    ]
    for p in procs:
        p.start()
    outcomes = [results.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    errors = [o for o in outcomes if o[1] != "ok"]
    assert not errors, errors[0][2]

    ids = {name: got for name, _, got in outcomes}
    per_writer = SINGLE_ADDS + BATCHES * BATCH_SIZE + BATCHES
    assert all(len(v) == per_writer for v in ids.values())
    all_ids = ids["alpha"] + ids["beta"]
    assert len(set(all_ids)) == len(all_ids)

    con = sqlite3.connect(path)
    try:
        shared = con.execute(
            "SELECT id, seq, metadata FROM memories WHERE user_id = 'shared' ORDER BY seq"
        ).fetchall()
        assert len(shared) == 2 * (SINGLE_ADDS + BATCHES * BATCH_SIZE)
        seqs = [r[1] for r in shared]
        assert len(set(seqs)) == len(seqs)
        assert seqs == list(range(len(seqs)))  # dense and unique: no lost or doubled seq
        next_seq = con.execute("SELECT next_seq FROM users WHERE user_id = 'shared'").fetchone()
        assert next_seq == (len(seqs),)
        assert con.execute("SELECT COUNT(*) FROM memories").fetchone() == (len(all_ids),)
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()

    with Memory(path, engine="hybrid") as m:
        assert m.count("shared") == len(shared)
        assert m.count("alpha") == BATCHES and m.count("beta") == BATCHES
        stored = (
            {h.id for h in m.memories("shared")}
            | {h.id for h in m.memories("alpha")}
            | {h.id for h in m.memories("beta")}
        )
        assert stored == set(all_ids)
        # each writer's own single adds stay in its own order within the shared sequence
        for name in ("alpha", "beta"):
            mine = [
                h.metadata["i"]
                for h in m.memories("shared")
                if h.metadata.get("w") == name and "i" in h.metadata
            ]
            assert mine == list(range(SINGLE_ADDS))


def test_threads_sharing_one_memory(open_memory, db_path):
    m = open_memory(db_path, "hybrid")
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(15):
                m.add(f"thread {t} note {i}", user_id="u")
                m.search(f"thread {t}", user_id="u", k=3)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert m.count("u") == 45
    assert len({h.id for h in m.memories("u")}) == 45


@pytest.mark.parametrize("engine", ["dense", "bm25", "hybrid"])
def test_second_instance_sees_adds_and_deletes(open_memory, db_path, engine):
    a = open_memory(db_path, engine)
    b = open_memory(db_path, engine)
    first = a.add("I keep bees on the roof of the garage", user_id="u")
    assert [h.id for h in b.search("bees roof garage", user_id="u", k=5)] == [first]  # b caches

    second = a.add("The bees produced twelve jars of honey", user_id="u")
    third = a.add_many(["Honey from our bees tastes of lavender"], user_id="u")[0]
    got = {h.id for h in b.search("bees honey", user_id="u", k=5)}
    assert got == {first, second, third}
    assert b.get(second, user_id="u").text == "The bees produced twelve jars of honey"

    assert a.delete(second, user_id="u") is True
    got = [h.id for h in b.search("bees honey", user_id="u", k=5)]
    assert second not in got and set(got) == {first, third}
    assert b.delete(second, user_id="u") is False

    # b deletes, a (whose cache is warm) must see it
    a.search("bees", user_id="u", k=5)
    assert b.delete(first, user_id="u") is True
    assert [h.id for h in a.search("bees honey lavender", user_id="u", k=5)] == [third]

    # a appends while b deletes: both changes visible to both
    fourth = a.add("The bees swarmed in June", user_id="u")
    assert b.delete(third, user_id="u") is True
    for m in (a, b):
        assert [h.id for h in m.search("bees swarmed honey", user_id="u", k=5)] == [fourth]
        assert m.count("u") == 1


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_second_instance_sees_delete_user_and_recreate(open_memory, db_path, engine):
    a = open_memory(db_path, engine)
    b = open_memory(db_path, engine)
    old = a.add_many(["old apartment in Porto", "old job at the bakery"], user_id="u")
    assert len(b.search("old apartment job", user_id="u", k=5)) == 2
    a.delete_user("u")
    assert b.search("old apartment job", user_id="u", k=5) == []
    # Same number of rows again: only the epoch tells the caches apart.
    new = a.add_many(["new apartment in Faro", "new job at the library"], user_id="u")
    got = [h.id for h in b.search("apartment job", user_id="u", k=5)]
    assert set(got) == set(new) and not set(got) & set(old)
    # and the other way round, with a's cache warm
    a.search("apartment", user_id="u", k=5)
    b.delete_user("u")
    newest = b.add_many(["tiny apartment in Braga", "remote job"], user_id="u")
    assert {h.id for h in a.search("apartment job", user_id="u", k=5)} == set(newest)


def test_delete_through_own_instance_after_foreign_add(open_memory, db_path):
    a = open_memory(db_path, "bm25")
    b = open_memory(db_path, "bm25")
    x = a.add("walnut tree in the yard", user_id="u")
    a.search("walnut", user_id="u", k=5)  # a caches one row
    y = b.add("walnut cake recipe", user_id="u")  # a has not seen this yet
    assert a.delete(x, user_id="u") is True  # in-place delete must not lose b's row
    assert [h.id for h in a.search("walnut", user_id="u", k=5)] == [y]
