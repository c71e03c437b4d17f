"""The PostgreSQL store beyond the shared contract: migrations under concurrency, several
workers on one database, pgvector on and off, erasure, errors, and whole Memory objects
on PostgreSQL. Real servers only (tests/pg.py); skipped where pgserver is missing."""

from __future__ import annotations

import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from remem import Memory, StoreError
from remem.index.cache import IndexCache
from remem.store import open_store
from remem.store.sqlite import SCHEMA_VERSION as SQLITE_SCHEMA_VERSION

pytest.importorskip("psycopg")
from pg import PLAIN_PASSWORD  # noqa: E402
from remem.store.postgres import SCHEMA_VERSION, PostgresStore  # noqa: E402
from store_rows import EXTENSION_TABLES, TABLES, EngineStore, new_memory, vectors  # noqa: E402

_new, _vecs = new_memory, vectors


@pytest.fixture
def stores(pg_url: str) -> Iterator[Callable[..., PostgresStore]]:
    """``stores(**options)``: a PostgresStore on this test's database, closed at teardown."""
    opened: list[PostgresStore] = []

    def make(url: str = pg_url, **options) -> PostgresStore:
        s = PostgresStore(url, **options)
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- schema and migrations ---------------------------------------------------------------


def test_schema_version_recorded(stores, pg_sql):
    s = stores()
    assert SCHEMA_VERSION == SQLITE_SCHEMA_VERSION == 7  # the backends move together
    assert s.schema_version() == 7
    assert pg_sql("SELECT version FROM schema_migrations ORDER BY version") == [(6,), (7,)]
    assert pg_sql("SELECT value FROM meta WHERE key = 'schema_version'") == [("7",)]

    def tables() -> set[str]:
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        return {r[0] for r in pg_sql(sql)}

    assert tables() == {"schema_migrations", *TABLES}  # a bare store: its own tables
    EngineStore(s)  # the built-in engines' tables, through the extension hook
    assert tables() == {"schema_migrations", *TABLES, *EXTENSION_TABLES}
    stores().close()  # reopening applies nothing twice
    assert pg_sql("SELECT version FROM schema_migrations ORDER BY version") == [(6,), (7,)]


def test_workers_starting_at_once_migrate_exactly_once(pg_url, pg_sql):
    barrier = threading.Barrier(4)
    opened: list[PostgresStore] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            barrier.wait()
            opened.append(PostgresStore(pg_url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert not errors, errors
        assert len(opened) == 4 and all(s.vector for s in opened)
        assert pg_sql("SELECT version FROM schema_migrations ORDER BY version") == [(6,), (7,)]
        assert pg_sql("SELECT COUNT(*) FROM pg_extension WHERE extname = 'vector'") == [(1,)]
        opened[0].add("u", [_new("one")], None)
        assert opened[3].count("u") == 1
    finally:
        for s in opened:
            s.close()


def test_newer_schema_version_refused(stores, pg_url, pg_sql, embedder):
    stores().close()
    pg_sql("INSERT INTO schema_migrations (version) VALUES (%s)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}, newer"):
        PostgresStore(pg_url)
    with pytest.raises(StoreError, match="upgrade remem"):
        Memory(pg_url, engine="bm25", embedder=embedder, llm="none")


# -- several workers on one database -----------------------------------------------------


def test_workers_adding_to_many_users_at_once(stores):
    a, b = stores(), stores(max_size=4)
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            barrier.wait()
            s = (a, b)[i % 2]
            for n in range(8):
                s.add(f"user{n % 3}", [_new(f"{i}/{n}/{j}") for j in range(5)], _vecs(5))
                s.add("shared", [_new(f"{i}/{n}")], _vecs(1))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert [m.seq for m in b.load("shared")] == list(range(32))
    assert sum(a.count(f"user{n}") for n in range(3)) == 4 * 8 * 5
    for n in range(3):
        seqs = [m.seq for m in a.load(f"user{n}")]
        assert seqs == list(range(len(seqs))) and a.user_state(f"user{n}").next_seq == len(seqs)
    assert a.users() == ["shared", "user0", "user1", "user2"]


def test_index_cache_follows_writes_and_deletes_of_another_instance(stores):
    a, b = stores(), stores()
    cache = IndexCache(a, dim=4)
    assert len(cache.get("u")) == 0
    ids = [m.id for m in b.add("u", [_new(f"t{i}") for i in range(3)], _vecs(3))]
    idx = cache.get("u")
    assert idx.ids == ids and len(idx) == 3
    b.delete("u", [ids[1]])
    idx = cache.get("u")
    assert ids[1] not in idx.pos and len(idx) == 2
    (more,) = b.add("u", [_new("t3")], _vecs(1))
    assert cache.get("u").ids[-1] == more.id
    b.delete_user("u")
    assert len(cache.get("u")) == 0
    (fresh,) = b.add("u", [_new("after erase")], _vecs(1))
    idx = cache.get("u")
    assert idx.ids == [fresh.id] and idx.state.epoch == b.user_state("u").epoch


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_memory_on_postgres_end_to_end(engine, pg_url, open_memory, sentences, tmp_path):
    m1 = open_memory(pg_url, engine)
    assert isinstance(m1._store, PostgresStore)
    ids = m1.add_many([{"text": t, "speaker": "Ana"} for t in sentences], user_id="ana")
    hits = m1.search("What kind of dog did I adopt?", user_id="ana", k=3)
    assert any("greyhound" in h.text for h in hits)
    m2 = open_memory(pg_url, engine)  # a second worker on the same database
    assert m2.count("ana") == len(sentences) and m2.users() == ["ana"]
    hits = m2.search("What kind of dog did I adopt?", "ana", k=3)  # m2 loads its caches
    assert any("greyhound" in h.text for h in hits)
    new_id = m1.add("I moved to Porto in Portugal last week.", user_id="ana", speaker="Ana")
    assert m2.search("When did I move to Porto?", "ana", k=3)[0].id == new_id
    assert m1.delete(ids[0], "ana") is True
    assert m2.get(ids[0], "ana") is None
    assert ids[0] not in [h.id for h in m2.search("greyhound Biscuit", "ana", k=5)]
    answer = m2.answer("Where is my sister getting married?", user_id="ana")
    assert "Lisbon" in answer.text or any("Lisbon" in h.text for h in answer.evidence)
    path = tmp_path / "table.json"
    n = m1.export_table("ana", path)
    assert n == len(sentences)  # 20 - 1 deleted + 1 added
    copied = m2.import_table(path, "bob")
    assert len(copied) == n and m1.count("bob") == n
    assert [h.text for h in m1.memories("bob")] == [h.text for h in m1.memories("ana")]
    assert m2.delete_user("ana") == n
    assert m1.count("ana") == 0 and m1.search("Lisbon", "ana", k=3) == []
    assert m1.search("Lisbon", "bob", k=1)[0].text.startswith("My sister")


# -- pgvector ---------------------------------------------------------------------------


def test_vector_search_ranks_like_in_process_cosine(stores, embedder, sentences):
    s = stores()
    assert s.vector
    vecs = embedder.embed(sentences)
    ids = [m.id for m in s.add("u", [_new(t) for t in sentences], vecs)]
    s.add("other", [_new(t) for t in sentences], vecs)  # same vectors, another user
    for query in ["my dog", "wedding abroad", "health advice", "music lessons", "money"]:
        q = embedder.embed_one(query)
        cos = vecs @ q
        order = np.lexsort((np.arange(len(cos)), -cos))[:7]
        got = s.vector_search("u", q, 7)
        assert [i for i, _ in got] == [ids[p] for p in order]
        np.testing.assert_allclose([c for _, c in got], cos[order], atol=1e-5)
    assert len(s.vector_search("u", vecs[0], 100)) == len(sentences)
    assert s.vector_search("nobody", vecs[0], 3) == []


@pytest.mark.parametrize("engine", ["dense", "hybrid"])
def test_engines_rank_the_same_in_the_server_and_in_process(engine, stores, embedder, sentences):
    server, local = stores(), stores(vector="off")
    calls = []
    search = server.vector_search
    server.vector_search = lambda *a: calls.append(a) or search(*a)  # type: ignore[method-assign]
    with (
        Memory(store=server, engine=engine, embedder=embedder, llm="none") as on,
        Memory(store=local, engine=engine, embedder=embedder, llm="none") as off,
    ):
        ids = on.add_many(sentences, user_id="u")
        on.delete(ids[3], "u")
        for query in ["my dog", "family wedding", "the doctor", "garden", "exam"]:
            a = on.search(query, "u", k=5)
            b = off.search(query, "u", k=5)
            assert [h.id for h in a] == [h.id for h in b]
            np.testing.assert_allclose([h.score for h in a], [h.score for h in b], atol=1e-5)
    assert calls and local.vector_search("u", embedder.embed_one("x"), 3) is None


def test_rows_written_without_vectors_are_filled_on_search(stores, pg_sql):
    off = stores(vector="off")
    assert pg_sql("SELECT COUNT(*) FROM pg_extension WHERE extname = 'vector'") == [(0,)]
    vecs = _vecs(6)
    ids = [m.id for m in off.add("u", [_new(f"t{i}") for i in range(6)], vecs)]
    on = stores()  # installs pgvector and adds the column to a database with rows
    more = off.add("u", [_new("by the worker without pgvector")], _vecs(1, seed=3))
    assert pg_sql("SELECT COUNT(*) FROM memories WHERE vec IS NULL") == [(7,)]
    got = on.vector_search("u", vecs[2], 10)
    assert len(got) == 7 and got[0][0] == ids[2]
    assert {i for i, _ in got} == set(ids) | {more[0].id}
    assert pg_sql("SELECT COUNT(*) FROM memories WHERE vec IS NULL") == [(0,)]


def test_database_without_pgvector(stores, pg_url_plain, pg_sql, embedder, sentences):
    s = stores(pg_url_plain)
    assert s.vector is False
    assert s.vector_search("u", np.ones(4, np.float32), 3) is None
    s.add("u", [_new("still works")], _vecs(1))
    assert s.load("u")[0].text == "still works"
    assert pg_sql("SELECT COUNT(*) FROM pg_extension WHERE extname = 'vector'") == [(0,)]
    with pytest.raises(StoreError, match="pgvector is not usable") as err:
        PostgresStore(pg_url_plain, vector="pgvector")
    assert PLAIN_PASSWORD not in str(err.value)
    with Memory(pg_url_plain, engine="hybrid", embedder=embedder, llm="none") as m:
        m.add_many(sentences, user_id="v")
        assert "cello" in m.search("musical instrument", "v", k=1)[0].text
    with pytest.raises(StoreError, match="vector must be one of"):
        PostgresStore(pg_url_plain, vector="maybe")


# -- erasure -----------------------------------------------------------------------------


def _database_files(datadir: Path, pg_sql) -> bytes:
    pg_sql("CHECKPOINT")
    oid = pg_sql("SELECT oid FROM pg_database WHERE datname = current_database()")[0][0]
    return b"".join(p.read_bytes() for p in (datadir / "base" / str(oid)).iterdir())


def test_delete_user_with_full_vacuum_leaves_no_bytes_in_table_files(stores, pg_server, pg_sql):
    s = stores(vacuum_on_erase="full")
    secret = "SECRET-ZEBRA-7731 lives at 12 Hidden Lane"
    s.add("bye", [_new("filler")] * 5 + [_new(secret, metadata={"pin": "ZEBRA-PIN-4242"})], None)
    s.add("stays", [_new("other user's row")], None)
    assert secret.encode() in _database_files(pg_server.datadir, pg_sql)
    assert s.delete_user("bye") == 6
    raw = _database_files(pg_server.datadir, pg_sql)
    assert b"SECRET-ZEBRA" not in raw and b"ZEBRA-PIN" not in raw
    assert s.count("stays") == 1
    plain = stores(vacuum_on_erase=True)  # VACUUM (not FULL) runs outside a transaction
    plain.add("again", [_new("x")], None)
    assert plain.delete_user("again") == 1
    with pytest.raises(StoreError, match="vacuum_on_erase"):
        stores(vacuum_on_erase="sometimes")


def test_delete_with_full_vacuum_leaves_no_bytes_in_table_files(stores, pg_server, pg_sql):
    """Every erase vacuums when asked, not only delete_user: one memory's delete too."""
    s = EngineStore(stores(vacuum_on_erase="full"))
    secret = "SECRET-OKAPI-5521 hides the spare key"
    kept = s.add("u", [_new("filler")] * 5, None)
    (gone,) = s.add("u", [_new(secret)], None)
    s.graph_save(
        "u",
        mentions=[(gone.id, "okapi-5521", "entity"), (kept[0].id, "okapi-5521", "entity")],
        concepts=[(0, "okapi-5521", "entity", np.ones(4, dtype=np.float32))],
        aliases=[("okapi-5521", 0)],
        consolidated_seq=5,
        expect_rev=0,
    )
    assert secret.encode() in _database_files(pg_server.datadir, pg_sql)
    assert s.delete("u", [gone.id]) == [gone.id]
    raw = _database_files(pg_server.datadir, pg_sql)
    assert b"SECRET-OKAPI" not in raw
    assert s.count("u") == 5


# -- errors -------------------------------------------------------------------------------


def test_unreachable_server_fails_fast_without_the_password(embedder):
    url = f"postgresql://remem:hunter2-secret@127.0.0.1:{_free_port()}/db?connect_timeout=2"
    t0 = time.monotonic()
    with pytest.raises(StoreError) as err:
        PostgresStore(url)
    assert time.monotonic() - t0 < 5
    message = str(err.value)
    assert "cannot connect" in message and "127.0.0.1" in message
    assert "hunter2" not in message and "hunter2" not in repr(err.value)
    with pytest.raises(StoreError) as err:
        Memory(url, engine="bm25", embedder=embedder, llm="none")
    assert "hunter2" not in str(err.value)


def test_bad_role_or_database_is_a_store_error(pg_server, pg_db):
    with pytest.raises(StoreError, match='role "nobody" does not exist') as err:
        PostgresStore(pg_server.url(pg_db, "nobody", "pw-never-shown"))
    assert "pw-never-shown" not in str(err.value)
    with pytest.raises(StoreError, match="no_such_db"):
        PostgresStore(pg_server.url("no_such_db"))
    with pytest.raises(StoreError, match="invalid PostgreSQL URL") as err:
        PostgresStore("postgresql://a:pw-in-bad-url@[::1/db")
    assert "pw-in-bad-url" not in str(err.value)


def test_sql_looking_values_round_trip_literally(stores):
    s = stores()
    evil_user = "u'); DROP TABLE memories; --"
    text = "Robert'); DROP TABLE students;-- 100% %s %(x)s \\x00 $1 ::vector"
    meta = {"q": "' OR 1=1 --", "%s": "%(name)s"}
    (m,) = s.add(
        evil_user, [_new(text, speaker="O'Brien", session_id="s';--", metadata=meta)], _vecs(1)
    )
    s.add("victim", [_new("must survive")], None)
    got = s.get(evil_user, [m.id])[m.id]
    assert (got.text, got.speaker, got.session_id, got.metadata) == (text, "O'Brien", "s';--", meta)
    assert s.users() == sorted([evil_user, "victim"])
    assert s.get("victim", [m.id]) == {} and s.get("%", [m.id]) == {}
    assert s.count("%") == 0 and s.users().count("%") == 0
    assert s.delete_user("%") == 0 and s.delete_user("u%") == 0
    assert s.delete_user(evil_user) == 1
    assert s.count("victim") == 1


def test_text_postgresql_cannot_store_is_a_store_error(stores):
    s = stores()
    with pytest.raises(StoreError, match="NUL"):
        s.add("u", [_new("ok"), _new("a\x00b")], None)
    assert s.count("u") == 0 and s.user_state("u") is None  # the batch rolled back


def test_close_is_idempotent_and_a_closed_store_says_so(stores):
    s = stores()
    assert "postgresql://postgres@" in repr(s)
    s.close()
    s.close()
    with pytest.raises(StoreError, match="closed"):
        s.count("u")


def test_open_store_routes_postgres_urls(pg_url):
    for url in (pg_url, "postgres://" + pg_url.split("://", 1)[1]):
        s = open_store(url, min_size=1, max_size=2)
        try:
            assert isinstance(s, PostgresStore) and s.shared
            assert s.schema_version() == SCHEMA_VERSION
        finally:
            s.close()


def test_missing_driver_is_a_store_error_naming_the_extra(monkeypatch):
    monkeypatch.delitem(sys.modules, "remem.store.postgres", raising=False)
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StoreError, match=r"pip install 'remem\[postgres\]'"):
        open_store("postgresql://localhost/remem")


def test_memory_never_shows_the_database_password(pg_url_plain, embedder):
    from pg import PLAIN_PASSWORD
    from remem.embed import Embedder

    with Memory(pg_url_plain, engine="bm25", embedder=embedder, llm="none") as mem:
        mem.add("hello there", user_id="u")
        assert PLAIN_PASSWORD not in repr(mem) and PLAIN_PASSWORD not in mem.path
        assert mem.path.startswith("postgresql://")

    class Other(Embedder):
        name, dim = "other", embedder.dim

        def embed(self, texts):
            return embedder.embed(texts)

    with pytest.raises(StoreError, match="holds vectors") as err:
        Memory(pg_url_plain, engine="bm25", embedder=Other(), llm="none")
    assert PLAIN_PASSWORD not in str(err.value)


def test_connections_killed_by_the_server_are_replaced_not_failed(stores, pg_sql):
    # what a PostgreSQL restart or failover does to a pool: every connection dies
    store = stores()
    store.add("u", [_new("before")], _vecs(1))
    killed = pg_sql(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    assert killed[0][0] >= 1
    assert store.count("u") == 1  # no error: the dead connection was replaced
    store.add("u", [_new("after")], _vecs(1))
    assert [m.text for m in store.load("u")] == ["before", "after"]
