"""A database written by the release before the engines owned their tables (SQLite
schema 5) opens, migrates and answers exactly as that release did (the fixture and
its expected answers: tests/fixtures/make_release_db.py)."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from remem import Memory
from remem.keys import KeyRing
from remem.store.sqlite import SCHEMA_VERSION

FIXTURES = Path(__file__).parent.parent / "fixtures"
EXPECTED = json.loads((FIXTURES / "release-0.1.0.json").read_text())
USERS = ("ana", "zoe")


@pytest.fixture()
def old_db(tmp_path) -> Path:
    path = tmp_path / "release.db"
    shutil.copy(FIXTURES / "release-0.1.0.db", path)
    return path


def _meta(path: Path) -> dict[str, str]:
    con = sqlite3.connect(path)
    try:
        return dict(con.execute("SELECT key, value FROM meta"))
    finally:
        con.close()


#: ranking stages added after that release, off: what is compared is the migrated
#: data, not the new ranking (SYNAPSE's session support, which ILSTMA's global
#: retriever inherits; hybrid's named-speaker prior; the newest-version stage is off
#: through ``time_options``)
THEN = {
    "hybrid": {"speaker_prior": 1.0},
    "synapse": {"session_support": 0.0, "gate_depth": 1},  # the gate read the top hit then
    "ilstma": {"global_retriever": "synapse-nosession"},
}
#: ... and SYNAPSE's lexical channel as it was: bm25s' words, asking words kept, the
#: speakers' names kept (the speaker prior, off, leaves them out in a history of
#: people), and no neighbour context; set on ILSTMA's global retriever too, which
#: takes no options of its own
LEXICAL_THEN = {
    "lexical_inflections": False,
    "lexical_asking": True,
    "speaker_prior": 1.0,
    "neighbour_context": 0.0,
}


def _ranking_as_then(db: str | Path, engine: str, embedder) -> Memory:
    """A Memory over ``db`` that ranks as that release did (:data:`THEN`)."""
    options = dict(THEN.get(engine, {}))
    if engine == "synapse":
        options.update(LEXICAL_THEN)
    mem = Memory(
        db,
        engine=engine,
        embedder=embedder,
        llm="none",
        time_options={"updates": False},
        engine_options=options or None,
    )
    if engine == "ilstma":
        retriever = mem._engine.retriever
        retriever.cfg = dataclasses.replace(retriever.cfg, **LEXICAL_THEN)
    return mem


@pytest.mark.parametrize("engine", sorted(EXPECTED["search"]))
def test_every_engine_searches_the_old_file_identically(old_db, embedder, engine):
    with _ranking_as_then(old_db, engine, embedder) as mem:
        for user in USERS:
            got = [
                [[h.id, h.score] for h in mem.search(q, user_id=user, k=5)]
                for q in EXPECTED["questions"]
            ]
            want = EXPECTED["search"][engine][user]
            assert [[i for i, _ in row] for row in got] == [[i for i, _ in row] for row in want]
            for g_row, w_row in zip(got, want, strict=True):
                assert [s for _, s in g_row] == pytest.approx([s for _, s in w_row], abs=1e-6)


def test_synapse_recalls_the_old_file_identically(old_db, embedder):
    with _ranking_as_then(old_db, "synapse", embedder) as mem:
        for user in USERS:
            for q, want in zip(EXPECTED["questions"], EXPECTED["recall"][user], strict=True):
                rec = mem.recall(q, user_id=user, k=5)
                assert rec.confidence == pytest.approx(want["confidence"], abs=1e-6)
                assert rec.refuse == want["refuse"]
                assert [c for c, _ in rec.concepts] == [c for c, _ in want["concepts"]]
                assert rec.explanations == want["explanations"]


def test_the_old_file_migrates_its_tables_to_their_owners(old_db, embedder):
    assert _meta(old_db)["schema_version"] == "5"
    with Memory(old_db, engine="hybrid", embedder=embedder, llm="none") as mem:
        table = mem.export_data("ana")
        got = {e["id"]: [e["recall_times"], e["last_recall"]] for e in table["entries"]}
        assert got == EXPECTED["table_meta"]
        assert {u: mem.count(u) for u in USERS} == EXPECTED["counts"]
        keys = KeyRing.of(mem)
        assert keys.verify(EXPECTED["keys"]["valid"]) == "acme"
        assert keys.verify(EXPECTED["keys"]["revoked"]) is None
        assert [k.to_dict() for k in keys.list()] == EXPECTED["keys"]["list"]
    meta = _meta(old_db)
    assert meta["schema_version"] == str(SCHEMA_VERSION) and meta["legacy_schema"] == "5"
    versions = {k[4:]: json.loads(v)["version"] for k, v in meta.items() if k.startswith("ext:")}
    # event_times: created at open, empty until a user is first read (lazy backfill);
    # v2 added the two-step times (event_anchors)
    assert versions == {
        "synapse": 2,
        "ilstma": 1,
        "keys": 1,
        "event_times": 2,
        "current": 1,
        "history": 1,
    }


def test_the_old_file_erases_completely_after_migrating(old_db, embedder):
    """Deleting a user of the old file erases the engines' rows of that user too."""
    with Memory(old_db, engine="bm25", embedder=embedder, llm="none") as mem:
        assert mem.delete_user("ana") == EXPECTED["counts"]["ana"]
    con = sqlite3.connect(old_db)
    try:
        for table in (
            "memories",
            "users",
            "syn_mentions",
            "syn_concepts",
            "syn_aliases",
            "syn_state",
            "syn_activity",
            "table_meta",
            "ilstma_notes",
            "ilstma_state",
        ):
            assert (
                con.execute(f"SELECT COUNT(*) FROM {table} WHERE user_id = 'ana'").fetchone()[0]
                == 0
            ), table
        assert con.execute("SELECT COUNT(*) FROM syn_mentions WHERE user_id = 'zoe'").fetchone()[0]
    finally:
        con.close()


def test_a_postgres_database_of_the_old_release_migrates_and_answers_identically(
    pg_url, embedder, old_db
):
    """The same rows in a PostgreSQL database at the old schema 5 (one script with every
    table): the current code migrates it and answers as the old release did."""
    import psycopg

    lines = (FIXTURES / "postgres-v5.sql").read_text().splitlines()
    schema = "\n".join(x for x in lines if not x.startswith("--"))
    src = sqlite3.connect(old_db)  # a copy: reading a WAL file may write beside it
    with psycopg.connect(pg_url, autocommit=True) as con:
        for statement in schema.split(";"):
            if statement.strip():
                con.execute(statement)
        con.execute(
            "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
            "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        con.execute("INSERT INTO schema_migrations (version) VALUES (5)")
        for (table,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            cur = src.execute(f"SELECT * FROM {table}")
            cols = [d[0] for d in cur.description]
            rows = cur.fetchall()
            if rows:
                marks = ", ".join(["%s"] * len(cols))
                with con.cursor() as c:
                    c.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})", rows)
    src.close()
    for engine in ("hybrid", "synapse", "ilstma"):
        with _ranking_as_then(pg_url, engine, embedder) as mem:
            for user in USERS:
                got = [
                    [h.id for h in mem.search(q, user_id=user, k=5)] for q in EXPECTED["questions"]
                ]
                want = [[i for i, _ in row] for row in EXPECTED["search"][engine][user]]
                assert got == want, (engine, user)
    with Memory(pg_url, engine="bm25", embedder=embedder, llm="none") as mem:
        assert KeyRing.of(mem).verify(EXPECTED["keys"]["valid"]) == "acme"
        assert mem.delete_user("ana") == EXPECTED["counts"]["ana"]
        assert mem.search("greyhound", user_id="ana") == []
    with psycopg.connect(pg_url, autocommit=True) as con:
        versions = [r[0] for r in con.execute("SELECT version FROM schema_migrations")]
        assert sorted(versions) == [5, *range(6, SCHEMA_VERSION + 1)]
        assert (
            con.execute("SELECT COUNT(*) FROM syn_mentions WHERE user_id = 'ana'").fetchone()[0]
            == 0
        )
