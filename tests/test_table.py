"""The global memory table as one JSON file: export, import, validation, any engine."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import numpy as np
import pytest

from remem import Memory
from remem.errors import InvalidInputError, RememError
from remem.table import FORMAT
from sample_conversation import BASE, TURNS
from store_rows import ilstma_db  # noqa: E402

ENTRY_KEYS = {"index", "creation_time", "time_interval", "recall_times", "text", "embedding"}


def _add(mem: Memory, user: str = "a") -> list[str]:
    """One turn a day, two sessions, some metadata: every field has something to carry."""
    return [
        mem.add(
            text,
            user,
            speaker=who,
            timestamp=BASE + timedelta(days=i),
            session_id=f"s{i // 5}",
            metadata={"turn": i, "tags": ["x", who.lower()], "ok": i % 2 == 0},
        )
        for i, (who, text) in enumerate(TURNS)
    ]


def _read(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _write(path, data) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(data, fh)


@pytest.fixture
def exported(open_memory, tmp_path):
    """An ILSTMA memory whose user "a" has recalls behind it, and its exported table."""
    mem = open_memory(":memory:", "ilstma")
    ids = _add(mem)
    assert mem.recall("turquoise kayak Tromso harbour", "a").cache_hit is False
    assert mem.recall("Ezekiel bassoon quartet", "a").cache_hit is True  # buffered
    assert mem.recall("meteorites Antarctica museum", "a").cache_hit is False
    assert mem.recall("Ezekiel bassoon quartet", "a").cache_hit is False
    assert mem.recall("Ezekiel bassoon quartet", "a").cache_hit is True  # still buffered
    path = tmp_path / "a.json"
    assert mem.export_table("a", path) == len(TURNS)
    return mem, ids, path


# -- export ---------------------------------------------------------------------------------


def test_export_shape(exported, embedder):
    mem, ids, path = exported
    data = _read(path)
    assert data["format"] == FORMAT
    assert data["user_id"] == "a"
    assert data["embedder"] == f"{embedder.name}/{embedder.dim}"
    entries = data["entries"]
    assert [e["id"] for e in entries] == ids
    assert [e["index"] for e in entries] == list(range(len(TURNS)))
    for i, e in enumerate(entries):
        assert set(e) >= ENTRY_KEYS
        assert e["text"] == TURNS[i][1] and e["speaker"] == TURNS[i][0]
        assert e["creation_time"] == (BASE + timedelta(days=i)).isoformat()
        assert len(e["embedding"]) == embedder.dim
    by_id = {e["id"]: e for e in entries}
    # kayak 2; bassoon 1 + one recall + two hits (the last one flushed by export) = 4;
    # meteorites 2; all recalled "now" (the newest memory's day): 0 days ago
    assert {m: e["recall_times"] for m, e in by_id.items() if e["recall_times"] > 1} == {
        ids[0]: 2,
        ids[1]: 4,
        ids[9]: 2,
    }
    assert ilstma_db(mem).table_meta("a")[ids[1]][0] == 4
    assert mem.short_term("a")["deferred_writes"] == 0
    for i in (0, 1, 9):
        assert by_id[ids[i]]["time_interval"] == 0
    # never recalled: recall times 1, last "recalled" when created
    for i in range(2, 9):
        e = by_id[ids[i]]
        assert e["recall_times"] == 1
        assert e["time_interval"] == 9 - i
        assert datetime.fromisoformat(e["last_recall"]) == BASE + timedelta(days=i)


def test_export_round_trips_through_import(exported, tmp_path):
    mem, ids, path = exported
    new_ids = mem.import_table(path, "b")
    assert len(new_ids) == len(ids) and not set(new_ids) & set(ids)
    assert mem.count("b") == len(ids)
    again = tmp_path / "b.json"
    assert mem.export_table("b", again) == len(ids)
    a, b = _read(path)["entries"], _read(again)["entries"]
    assert len(a) == len(b)
    assert [e["id"] for e in b] == new_ids  # the table order is kept
    for ea, eb in zip(a, b, strict=True):
        for key in (
            "index",
            "creation_time",
            "time_interval",
            "recall_times",
            "last_recall",
            "speaker",
            "session_id",
            "metadata",
            "text",
            "embedding",
        ):
            assert ea[key] == eb[key], key
    # the stored vectors are equal bit for bit
    va = [m.embedding.tobytes() for m in mem._store.load("a", with_embeddings=True)]
    vb = [m.embedding.tobytes() for m in mem._store.load("b", with_embeddings=True)]
    assert va == vb
    # the recall metadata itself, not just its rendering
    meta_a = ilstma_db(mem).table_meta("a")
    meta_b = ilstma_db(mem).table_meta("b")
    for old, new in zip(ids, new_ids, strict=True):
        if old in meta_a:
            assert meta_b[new] == meta_a[old]
    # and the memories read back the same
    for ha, hb in zip(mem.memories("a"), mem.memories("b"), strict=True):
        assert (ha.text, ha.speaker, ha.session_id, ha.metadata, ha.timestamp) == (
            hb.text,
            hb.speaker,
            hb.session_id,
            hb.metadata,
            hb.timestamp,
        )


def test_import_orders_entries_by_index(exported, tmp_path):
    mem, _, path = exported
    data = _read(path)
    data["entries"] = data["entries"][::-1]
    shuffled = tmp_path / "shuffled.json"
    _write(shuffled, data)
    mem.import_table(shuffled, "b")
    assert [h.text for h in mem.memories("b")] == [t for _, t in TURNS]


def test_import_into_another_file_and_engine(exported, open_memory, tmp_path):
    _, ids, path = exported
    other = open_memory(tmp_path / "other.db", "hybrid")
    new_ids = other.import_table(path, "z")
    assert [h.text for h in other.memories("z")] == [t for _, t in TURNS]
    assert ilstma_db(other).table_meta("z")[new_ids[1]][0] == 4
    assert other.search("Ezekiel bassoon", "z", k=1)[0].id == new_ids[1]


# -- broken files import nothing -------------------------------------------------------------


def _broken(path, data, how: str):
    if how == "bad json":
        path.write_text('{"format": "remem.global-memory-table/1", "entries": [', "utf-8")
        return
    if how == "wrong format":
        data["format"] = "remem.global-memory-table/2"
    elif how == "not a table":
        data = ["just", "a", "list"]
    elif how == "no entries":
        del data["entries"]
    elif how == "empty text":
        data["entries"][3]["text"] = "   "
    elif how == "short embedding":
        data["entries"][5]["embedding"] = data["entries"][5]["embedding"][:-1]
    elif how == "nan embedding":
        data["entries"][5]["embedding"][0] = "NaN"
    elif how.startswith("embedding of "):  # finite as JSON, not as float32 or as a cosine
        data["entries"][5]["embedding"][0] = json.loads(how.removeprefix("embedding of "))
    elif how == "passage embedding of 1e39":
        entry = data["entries"][5]
        entry["passages"] = [[0, len(entry["text"])]]
        entry["passage_embeddings"] = [[1e39] + entry["embedding"][1:]]
    elif how == "bad recall times":
        data["entries"][4]["recall_times"] = -1
    elif how == "bad timestamp":
        data["entries"][6]["creation_time"] = "yesterday-ish"
    else:
        raise AssertionError(how)
    _write(path, data)


@pytest.mark.parametrize(
    "how",
    [
        "bad json",
        "wrong format",
        "not a table",
        "no entries",
        "empty text",
        "short embedding",
        "nan embedding",
        "embedding of 1e39",
        "embedding of -1e39",
        "embedding of 1e300",
        pytest.param("embedding of " + "9" * 400, id="embedding of a 400-digit int"),
        "embedding of 2.0",
        "embedding of true",
        "passage embedding of 1e39",
        "bad recall times",
        "bad timestamp",
    ],
)
def test_broken_file_raises_and_adds_nothing(exported, tmp_path, how):
    mem, _, path = exported
    broken = tmp_path / "broken.json"
    _broken(broken, _read(path), how)
    with pytest.raises(InvalidInputError):
        mem.import_table(broken, "b")
    assert mem.count("b") == 0
    assert "b" not in mem.users()


def test_missing_file_raises(open_memory, tmp_path):
    mem = open_memory(":memory:", "ilstma")
    with pytest.raises(InvalidInputError):
        mem.import_table(tmp_path / "nope.json", "b")


@pytest.mark.parametrize("where", ["no/such/dir/t.json", "."], ids=["missing folder", "a folder"])
def test_export_to_a_path_that_cannot_be_written_raises_and_leaves_nothing(
    open_memory, tmp_path, where
):
    mem = open_memory(":memory:", "bm25")
    mem.add("a fact", user_id="u")
    with pytest.raises(InvalidInputError, match="cannot write a memory table"):
        mem.export_table("u", tmp_path / where)
    assert list(tmp_path.iterdir()) == []  # not even the temporary file


def _without_text(exported, tmp_path):
    mem, _, path = exported
    data = _read(path)
    del data["entries"][3]["text"]
    broken = tmp_path / "no-text.json"
    _write(broken, data)
    return mem, broken


def test_entry_without_text_adds_nothing(exported, tmp_path):
    mem, broken = _without_text(exported, tmp_path)
    with pytest.raises(RememError):
        mem.import_table(broken, "b")
    assert mem.count("b") == 0


def test_entry_without_text_raises_invalid_input(exported, tmp_path):
    mem, broken = _without_text(exported, tmp_path)
    with pytest.raises(InvalidInputError):
        mem.import_table(broken, "b")


def test_file_of_another_embedder_is_embedded_again(exported, tmp_path, embedder):
    mem, _, path = exported
    data = _read(path)
    data["embedder"] = "someone-else/3"
    for e in data["entries"]:
        e["embedding"] = [0.1, 0.2, 0.3]  # the wrong size for this embedder: ignored
    foreign = tmp_path / "foreign.json"
    _write(foreign, data)
    new_ids = mem.import_table(foreign, "b")
    assert len(new_ids) == len(TURNS)
    rows = mem._store.load("b", with_embeddings=True)
    fresh = embedder.embed([f"{who}: {text}" for who, text in TURNS])
    np.testing.assert_allclose(np.stack([m.embedding for m in rows]), fresh, atol=1e-5)
    for (_, text), new in zip(TURNS, new_ids, strict=True):
        assert mem.search(text, "b", k=1)[0].id == new
    assert ilstma_db(mem).table_meta("b")[new_ids[1]][0] == 4


# -- any engine ------------------------------------------------------------------------------


def test_export_from_a_non_ilstma_engine(open_memory, tmp_path, embedder):
    mem = open_memory(":memory:", "hybrid")
    ids = _add(mem)
    mem.search("turquoise kayak", "a")
    mem.recall("Ezekiel bassoon", "a")
    path = tmp_path / "hybrid.json"
    assert mem.export_table("a", path) == len(ids)
    data = _read(path)
    assert data["format"] == FORMAT
    assert data["embedder"] == f"{embedder.name}/{embedder.dim}"
    assert [e["id"] for e in data["entries"]] == ids
    for i, e in enumerate(data["entries"]):
        assert set(e) >= ENTRY_KEYS
        assert e["recall_times"] == 1
        assert e["last_recall"] == e["creation_time"]
        assert e["time_interval"] == len(ids) - 1 - i
    assert mem.import_table(path, "b")
    assert [h.text for h in mem.memories("b")] == [t for _, t in TURNS]


def test_export_of_an_unknown_user_is_empty(open_memory, tmp_path):
    mem = open_memory(":memory:", "ilstma")
    path = tmp_path / "empty.json"
    assert mem.export_table("ghost", path) == 0
    assert _read(path)["entries"] == []
    assert mem.import_table(path, "b") == []
    assert mem.count("b") == 0


# -- skip_blank: a history with blank turns (issue 34, finding 14) --------------------------


def _with_blank_entries(exported, tmp_path):
    mem, ids, path = exported
    data = _read(path)
    data["entries"][3]["text"] = "\u200b"  # what real chat exports hold
    data["entries"][7]["text"] = " "
    blank = tmp_path / "blank.json"
    _write(blank, data)
    return mem, blank, data


def test_import_skip_blank_leaves_out_blank_entries_and_says_which(exported, tmp_path):
    mem, blank, data = _with_blank_entries(exported, tmp_path)
    with pytest.raises(InvalidInputError, match="item 3: text must not be empty"):
        mem.import_table(blank, "b")  # by default: refused, naming the entry
    assert mem.count("b") == 0
    ids = mem.import_table(blank, "b", skip_blank=True)
    assert ids.skipped == [3, 7] and len(ids) == len(TURNS) - 2
    kept = [e["text"] for i, e in enumerate(data["entries"]) if i not in (3, 7)]
    assert [h.text for h in mem.memories("b")] == kept
    again = mem.import_data(data, "c", skip_blank=True)
    assert again.skipped == [3, 7] and mem.count("c") == len(TURNS) - 2


def test_import_skip_blank_still_refuses_a_blank_entrys_other_problems(exported, tmp_path):
    mem, blank, data = _with_blank_entries(exported, tmp_path)
    data["entries"][3]["creation_time"] = "yesterday-ish"
    with pytest.raises(InvalidInputError, match="item 3: timestamp"):
        mem.import_data(data, "b", skip_blank=True)
    data["entries"][3]["creation_time"] = data["entries"][2]["creation_time"]
    data["entries"][3]["recall_times"] = -1
    with pytest.raises(InvalidInputError, match="entry 3: recall_times"):
        mem.import_data(data, "b", skip_blank=True)
    assert mem.count("b") == 0
