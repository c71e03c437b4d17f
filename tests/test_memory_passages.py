"""Long memories are searchable in every word: passages (``index/passages.py``) through
the public API - round trip, metadata, restart, delete, explanations, export/import."""

from __future__ import annotations

import json
import re
import sqlite3

import numpy as np
import pytest

from remem import InvalidInputError, InvalidTypeError, Memory

FILLER = " ".join(
    f"Section {i} covers general background material, item {i}, with nothing in particular."
    for i in range(60)
)
SECRET = "The secret ingredient of the soup is smoked paprika from Extremadura."
LONG = FILLER + " " + SECRET
QUESTION = "What is the secret ingredient of the soup?"
NOISE = [f"Note {i}: the train to Porto leaves at nine from platform {i}." for i in range(15)]


def _fill(mem: Memory, user: str = "u") -> str:
    long_id = mem.add(LONG, user_id=user, speaker="assistant", metadata={"kind": "answer"})
    mem.add_many(NOISE, user_id=user)
    return long_id


@pytest.mark.parametrize("engine", ["dense", "hybrid", "synapse", "ilstma"])
def test_the_end_of_a_long_memory_is_found(tmp_path, embedder, engine):
    with Memory(tmp_path / "m.db", engine=engine, embedder=embedder, llm="none") as mem:
        long_id = _fill(mem)
        hits = mem.search(QUESTION, user_id="u", k=3)
        assert long_id in [h.id for h in hits]
        hit = next(h for h in hits if h.id == long_id)
        assert hit.text == LONG and hit.metadata == {"kind": "answer"}  # the whole memory
        why = mem.recall(QUESTION, user_id="u", k=3).explanations.get(long_id, "")
        if engine != "ilstma":
            span = re.search(r"characters (\d+)-(\d+)", why)
            assert span is not None and "passage" in why, why
            start, end = int(span.group(1)), int(span.group(2))
            assert SECRET in LONG[start:end]


def test_without_passages_the_end_is_invisible(tmp_path, embedder):
    """The premise: the model truncates; with passages off, the dense channel misses."""
    opts = {"max_pieces": 0}
    with Memory(
        tmp_path / "m.db", engine="dense", embedder=embedder, llm="none", passage_options=opts
    ) as mem:
        long_id = _fill(mem)
        assert long_id not in [h.id for h in mem.search(QUESTION, user_id="u", k=3)]


def test_passages_are_stored_with_the_row_survive_a_restart_and_go_with_a_delete(
    tmp_path, embedder
):
    path = tmp_path / "m.db"
    with Memory(path, engine="dense", embedder=embedder, llm="none") as mem:
        long_id = _fill(mem)
        short_id = mem.add("A short note.", user_id="u")
    con = sqlite3.connect(path)
    rows = dict(con.execute("SELECT id, passages FROM memories"))
    vecs = dict(con.execute("SELECT id, passage_vectors FROM memories"))
    con.close()
    spans = json.loads(rows[long_id])
    assert len(spans) > 1 and rows[short_id] is None and vecs[short_id] is None
    assert len(vecs[long_id]) == len(spans) * embedder.dim * 4
    assert spans[0][0] == 0 and spans[-1][1] == len(LONG)
    with Memory(path, engine="dense", embedder=embedder, llm="none") as mem:
        assert mem.search(QUESTION, user_id="u", k=1)[0].id == long_id  # no re-embedding
        assert mem.delete(long_id, user_id="u")
        assert long_id not in [h.id for h in mem.search(QUESTION, user_id="u", k=5)]
        assert mem.stats("u")["memories"] == len(NOISE) + 1
    for suffix in ("", "-wal", "-shm"):
        f = tmp_path / f"m.db{suffix}"
        assert not f.exists() or b"Extremadura" not in f.read_bytes()


def test_a_memory_that_fits_one_window_is_embedded_as_before(tmp_path, embedder):
    with Memory(tmp_path / "m.db", engine="dense", embedder=embedder, llm="none") as mem:
        mem.add("Ana moved to Lisbon in May.", user_id="u", speaker="Ana")
        row = mem._store.load("u")[0]
    assert row.passages is None
    np.testing.assert_array_equal(
        row.embedding, embedder.embed_one("Ana: Ana moved to Lisbon in May.")
    )


def test_export_and_import_keep_passages_and_complete_old_tables(tmp_path, embedder):
    with Memory(tmp_path / "a.db", engine="dense", embedder=embedder, llm="none") as mem:
        _fill(mem)
        data = mem.export_data("u")
    long_entry = next(e for e in data["entries"] if e["text"] == LONG)
    assert len(long_entry["passages"]) == len(long_entry["passage_embeddings"]) > 1
    with Memory(tmp_path / "b.db", engine="dense", embedder=embedder, llm="none") as mem:
        ids = mem.import_data(data, user_id="v")
        assert mem.search(QUESTION, user_id="v", k=1)[0].text == LONG
        row = next(r for r in mem._store.load("v") if r.id in ids and r.text == LONG)
        assert [list(s) for s in row.passages.spans] == long_entry["passages"]
        # a table written before passages: the long memory gets them on import
        old = json.loads(json.dumps(data))
        for e in old["entries"]:
            e.pop("passages", None)
            e.pop("passage_embeddings", None)
        mem.import_data(old, user_id="w")
        assert mem.search(QUESTION, user_id="w", k=1)[0].text == LONG
        broken = json.loads(json.dumps(data))
        e = next(x for x in broken["entries"] if "passages" in x)
        e["passages"][0] = [5, 10**6]  # a span outside the text
        with pytest.raises(InvalidInputError, match="passages"):
            mem.import_data(broken, user_id="x")
        assert mem.count("x") == 0


def test_passage_options_are_checked(embedder):
    def make(options):
        return Memory(":memory:", engine="bm25", embedder=embedder, passage_options=options)

    with pytest.raises(InvalidInputError, match=r"passage_options has no options \['size'\]"):
        make({"size": 3})
    with pytest.raises(InvalidInputError, match="passage_options: max_pieces must be an int >= 0"):
        make({"max_pieces": -1})
    with pytest.raises(InvalidInputError, match="passage_options: overlap must be an int >= 0"):
        make({"overlap": "1"})
    with pytest.raises(InvalidTypeError):
        make([("max_pieces", 3)])
