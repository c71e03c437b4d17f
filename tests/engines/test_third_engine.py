"""A third engine with a table of its own, added through the public hooks only
(``register_engine``, an ``Extension`` attached to the store): it works, and deleting a
memory or a user erases its rows too, in this process and in one that never imported
it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from remem import Memory
from remem.engines import register_engine
from remem.engines.base import Engine, EngineContext, Scored
from remem.errors import StoreError
from remem.store.extension import Extension
from remem.types import StoredMemory

SECRET = "pineapple-passport-4471"

DDL = (
    "CREATE TABLE IF NOT EXISTS tagger_tags (user_id TEXT NOT NULL, memory_id TEXT NOT NULL, "
    "tag TEXT NOT NULL, PRIMARY KEY (user_id, memory_id, tag))"
)
TAGS = Extension(
    name="tagger",
    migrations={"sqlite": [(1, DDL)], "postgres": [(1, DDL)]},
    user_tables=("tagger_tags",),
    memory_refs=(("tagger_tags", "memory_id"),),
)


class TaggerEngine(Engine):
    """Ranks memories by how many of the query's words they were tagged with; keeps
    the tags (every lower-cased word) in its own table."""

    name = "tagger"
    needs_query_vector = False
    tables = (TAGS,)

    def __init__(self, ctx: EngineContext, **options):
        super().__init__(ctx, **options)
        self.db = ctx.store.attach(TAGS)

    def on_add(self, user_id: str, memories: list[StoredMemory]) -> None:
        rows = [(user_id, m.id, w) for m in memories for w in set(m.text.lower().split())]
        with self.db.write(user_id) as tx:
            tx.many(
                "INSERT INTO tagger_tags (user_id, memory_id, tag) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                rows,
            )

    def search(self, user_id: str, query: str, query_vec: np.ndarray | None, k: int):
        words = sorted(set(query.lower().split()))
        if not words:
            return []
        with self.db.read() as tx:
            rows = tx.rows_in(
                "SELECT memory_id, COUNT(*) FROM tagger_tags WHERE user_id = ? AND tag {in} "
                "GROUP BY memory_id",
                (user_id,),
                words,
            )
        ranked = sorted(rows, key=lambda r: (-r[1], r[0]))[:k]
        return [Scored(m, float(n), "tags") for m, n in ranked]


register_engine("tagger", TaggerEngine)


def _tags(path: Path) -> list[tuple]:
    import sqlite3

    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT user_id, memory_id, tag FROM tagger_tags").fetchall()
    finally:
        con.close()


def _on_disk(path: Path, needle: str) -> list[str]:
    found = []
    for suffix in ("", "-wal", "-shm"):
        f = Path(f"{path}{suffix}")
        if f.exists() and needle.encode() in f.read_bytes():
            found.append(f.name)
    return found


def test_a_third_engine_keeps_its_table_and_ranks(tmp_path, embedder):
    path = tmp_path / "m.db"
    with Memory(path, engine="tagger", embedder=embedder, llm="none") as mem:
        a = mem.add("the red kayak is in the shed", user_id="u")
        mem.add("a blue bicycle by the door", user_id="u")
        mem.add("red kayak paddles", user_id="v")
        hits = mem.search("red kayak", user_id="u", k=5)
        assert [h.id for h in hits] == [a] and hits[0].score == 2.0
        rec = mem.recall("red kayak", user_id="u", k=5)  # the base class's default
        assert rec.explanations == {a: "tags"} and rec.confidence == 2.0 and not rec.refuse
        assert mem.engine_info.name == "tagger" and not mem.engine_info.abilities.gate
    assert {t for u, _, t in _tags(path) if u == "u"} >= {"red", "kayak", "bicycle"}


def test_delete_and_delete_user_erase_the_engines_rows(tmp_path, embedder):
    path = tmp_path / "m.db"
    with Memory(path, engine="tagger", embedder=embedder, llm="none") as mem:
        gone = mem.add(f"my passport number is {SECRET}", user_id="u")
        kept = mem.add("the red kayak is in the shed", user_id="u")
        mem.add(f"{SECRET} belongs to v", user_id="v")
        assert mem.delete(gone, user_id="u")
        assert {m for u, m, _ in _tags(path) if u == "u"} == {kept}
        assert mem.search(SECRET, user_id="u") == []
        assert mem.delete_user("u") == 1
        assert {u for u, _, _ in _tags(path)} == {"v"}  # the other user is untouched
        assert mem.delete_user("v") == 1
        assert _tags(path) == []
        assert _on_disk(path, SECRET) == []  # no copy left in .db, -wal or -shm


def test_a_process_without_the_engine_still_erases_its_rows(tmp_path, embedder):
    """The store recorded the engine's erasure rule when the table was attached, so
    another engine's process (which never imports this one) applies it."""
    path = tmp_path / "m.db"
    with Memory(path, engine="tagger", embedder=embedder, llm="none") as mem:
        one = mem.add(f"first {SECRET}", user_id="u")
        mem.add(f"second {SECRET}", user_id="u")
        mem.add("third", user_id="w")
    code = (
        "import sys; from remem import Memory\n"
        "with Memory(sys.argv[1], engine='hybrid', llm='none') as mem:\n"
        "    assert mem.delete(sys.argv[2], user_id='u')\n"
        "    assert mem.delete_user('w') == 1\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path), one], check=True)
    left = _tags(path)
    assert one not in {m for _, m, _ in left} and {u for u, _, _ in left} == {"u"}
    erase_u = (
        "import sys; from remem import Memory\n"
        "with Memory(sys.argv[1], engine='bm25', llm='none') as mem:\n"
        "    assert mem.delete_user('u') == 1\n"
    )
    subprocess.run([sys.executable, "-c", erase_u, str(path)], check=True)
    assert _tags(path) == []
    assert _on_disk(path, SECRET) == []


def test_extension_names_and_versions_are_checked(tmp_path, embedder):
    with pytest.raises(StoreError, match="identifier"):
        Extension(name="bad name", migrations={})
    with pytest.raises(StoreError, match="cannot claim"):
        Extension(name="x", migrations={}, user_tables=("memories",))
    path = tmp_path / "m.db"
    with Memory(path, engine="tagger", embedder=embedder, llm="none"):
        pass  # the file now holds the tagger's tables at version 1
    older = Extension(name="tagger", migrations={"sqlite": [], "postgres": []})
    with Memory(path, engine="bm25", embedder=embedder, llm="none") as mem:
        with pytest.raises(StoreError, match="newer than this code"):
            mem.attach(older)  # code that knows no version of those tables
        mem.attach(TAGS)
        assert mem.attach(TAGS) is not None  # again: the same access, nothing rerun
        with pytest.raises(StoreError, match="another extension"):
            mem.attach(older)
