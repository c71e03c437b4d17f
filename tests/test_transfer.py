"""The versioned JSONL export and import (``remem.transfer``): a round trip for every
engine, SQLite -> PostgreSQL -> SQLite, streaming, isolation between users, and every
kind of bad input refused by line, with nothing half imported."""

from __future__ import annotations

import io
import json
import tracemalloc
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from remem import Memory, transfer
from remem.engines import engine_names
from remem.errors import InvalidInputError, InvalidTypeError
from remem.store.sqlite import SQLiteStore
from remem.types import NewMemory
from sample_conversation import BASE, TURNS

QUERIES = ["turquoise kayak", "who plays the bassoon?", "chess tournament", "croissants"]
#: every engine that runs without an LLM (the "-llm" variants need one)
ENGINES = [name for name in engine_names() if not name.endswith("-llm")]


def _fill(mem: Memory, user: str = "a") -> list[str]:
    """TURNS with every field set, and two updates: a history to carry."""
    ids = [
        mem.add(
            text,
            user,
            speaker=who,
            timestamp=BASE + timedelta(days=i),
            session_id=f"s{i // 5}",
            metadata={"turn": i, "tags": ["x", who.lower()]},
        )
        for i, (who, text) in enumerate(TURNS)
    ]
    mem.update(ids[2], user, text="The greenhouse cucumbers ripened after the heatwave.")
    mem.update(ids[2], user, metadata={"turn": 2, "fixed": True})
    return ids


def _fields(mem: Memory, user: str) -> list[tuple[Any, ...]]:
    return [
        (h.id, h.text, h.speaker, h.session_id, h.timestamp.isoformat(), h.metadata)
        for h in mem.memories(user)
    ]


def _histories(mem: Memory, user: str) -> dict[str, list[Any]]:
    return {h.id: mem.history(h.id, user) for h in mem.memories(user)}


def _top(mem: Memory, user: str) -> list[list[tuple[str, str]]]:
    return [[(h.id, h.text) for h in mem.search(q, user, k=5)] for q in QUERIES]


def _same(one: Memory, other: Memory, user: str = "a", other_user: str = "a") -> None:
    assert _fields(one, user) == _fields(other, other_user)
    assert _histories(one, user) == _histories(other, other_user)
    assert _top(one, user) == _top(other, other_user)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# -- round trips ----------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_round_trip_every_engine(open_memory, tmp_path, engine):
    src = open_memory(tmp_path / "src.db", engine)
    ids = _fill(src)
    path = tmp_path / "a.jsonl"
    assert src.export_jsonl("a", path) == len(TURNS)
    dst = open_memory(tmp_path / "dst.db", engine)
    assert dst.import_jsonl(path, "a") == len(TURNS)
    assert {h.id for h in dst.memories("a")} == set(ids)
    _same(src, dst)
    assert [v.version for v in dst.history(ids[2], "a")] == [1, 2, 3]


def test_sqlite_to_postgres_and_back(open_memory, tmp_path, pg_url, embedder):
    lite = open_memory(tmp_path / "one.db", "synapse")
    _fill(lite)
    there = tmp_path / "to-pg.jsonl"
    lite.export_jsonl("a", there, vectors=True)
    back = tmp_path / "from-pg.jsonl"
    # closed here, before the fixture drops its database
    with Memory(pg_url, engine="synapse", embedder=embedder, llm="none") as pg:
        assert pg.import_jsonl(there, "a") == len(TURNS)
        _same(lite, pg)
        assert pg.export_jsonl("a", back, vectors=True) == len(TURNS)
    again = open_memory(tmp_path / "two.db", "synapse")
    assert again.import_jsonl(back, "a") == len(TURNS)
    _same(lite, again)
    # the records themselves, bar the header's time: the same bytes both ways
    assert _lines(there)[1:] == _lines(back)[1:]


def test_vectors_are_used_only_from_the_same_embedder(open_memory, tmp_path, monkeypatch):
    src = open_memory(tmp_path / "src.db")
    _fill(src)
    path = tmp_path / "v.jsonl"
    src.export_jsonl("a", path, vectors=True)
    embedded: list[int] = []
    real = __import__("remem.writes", fromlist=["x"]).embed_memories

    def counting(embedder, memories, plan):
        embedded.append(len(memories))
        return real(embedder, memories, plan)

    monkeypatch.setattr("remem.writes.embed_memories", counting)
    dst = open_memory(tmp_path / "dst.db")
    dst.import_jsonl(path, "a")
    assert embedded == []  # the file's vectors, used as they are
    _same(src, dst)
    lines = _lines(path)
    lines[0]["embedder"] = "another-model/384"
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    again = open_memory(tmp_path / "again.db")
    again.import_jsonl(other, "a")
    assert sum(embedded) == len(TURNS)  # another model's vectors: embedded again
    _same(src, again)


def test_export_without_vectors_has_every_field(open_memory, tmp_path, embedder):
    mem = open_memory(tmp_path / "m.db")
    ids = _fill(mem)
    path = tmp_path / "a.jsonl"
    mem.export_jsonl("a", path)
    head, *rows = _lines(path)
    assert head["format"] == "remem-jsonl" and head["version"] == transfer.VERSION
    assert (head["user_id"], head["embedder"], head["dim"], head["vectors"]) == (
        "a",
        f"{embedder.name}/{embedder.dim}",
        embedder.dim,
        False,
    )
    assert [r["id"] for r in rows] == [i for i in ids if i != ids[2]] + [ids[2]]  # updated: last
    first = rows[0]
    assert set(first) == {
        "id", "user_id", "text", "timestamp", "session_id", "speaker", "metadata", "history"
    }  # fmt: skip
    assert first["timestamp"] == BASE.isoformat() and first["metadata"]["turn"] == 0
    assert [v["changed"] for v in rows[-1]["history"]] == [[], ["text"], ["metadata"]]


def test_import_into_a_user_with_those_ids_refuses_or_skips(open_memory, tmp_path):
    mem = open_memory(tmp_path / "m.db")
    _fill(mem)
    path = tmp_path / "a.jsonl"
    mem.export_jsonl("a", path)
    with pytest.raises(InvalidInputError, match="line 2: the user has a memory"):
        mem.import_jsonl(path, "a")
    assert mem.import_jsonl(path, "a", on_conflict="skip") == 0
    assert mem.count("a") == len(TURNS)
    with pytest.raises(InvalidInputError, match="on_conflict must be one of"):
        mem.import_jsonl(path, "a", on_conflict="replace")


# -- streaming ------------------------------------------------------------------------------


def test_export_streams_in_bounded_memory(open_memory, tmp_path):
    """20,000 memories: the export holds a page at a time, not the user."""
    db = tmp_path / "big.db"
    store = SQLiteStore(db)
    news = [
        NewMemory(f"memory number {i} about topic {i % 97}", None, BASE, None, {})
        for i in range(20_000)
    ]
    for i in range(0, len(news), 5000):
        store.add("big", news[i : i + 5000], None)
    store.close()
    mem = open_memory(db)
    pages: list[int] = []
    real = SQLiteStore.load

    def counted(self, *args, **kw):
        rows = real(self, *args, **kw)
        pages.append(len(rows))
        return rows

    path = tmp_path / "big.jsonl"
    SQLiteStore.load = counted  # type: ignore[method-assign]
    try:
        tracemalloc.start()
        assert mem.export_jsonl("big", path) == 20_000
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        SQLiteStore.load = real  # type: ignore[method-assign]
    assert max(pages) <= transfer.BATCH and len(pages) >= 20_000 // transfer.BATCH
    assert peak < path.stat().st_size / 5, (peak, path.stat().st_size)


def test_a_pipe_imports_batch_by_batch(open_memory, tmp_path, monkeypatch):
    """A source read once (a pipe) cannot be checked whole first: each batch is all
    or nothing, and the batches before a bad line stay."""
    src = open_memory(tmp_path / "src.db")
    _fill(src)
    path = tmp_path / "a.jsonl"
    src.export_jsonl("a", path)
    lines = path.read_bytes().splitlines(keepends=True)
    broken = b"".join(lines[:6]) + b"{not json\n" + b"".join(lines[6:])
    monkeypatch.setattr(transfer, "BATCH", 2)

    class Pipe(io.BytesIO):
        def seekable(self) -> bool:
            return False

    dst = open_memory(tmp_path / "dst.db")
    with pytest.raises(InvalidInputError, match="line 7: not valid JSON"):
        dst.import_jsonl(Pipe(broken), "a")
    assert dst.count("a") == 4  # two whole batches; the one with the bad line: nothing
    # the same bytes, seekable: checked whole first, nothing imported
    with pytest.raises(InvalidInputError, match="line 7"):
        dst.import_jsonl(io.BytesIO(broken), "b")
    assert dst.count("b") == 0
    assert dst.import_jsonl(Pipe(path.read_bytes()), "a", on_conflict="skip") == len(TURNS) - 4


# -- isolation ------------------------------------------------------------------------------


def test_one_users_export_never_shows_anothers(open_memory, tmp_path):
    mem = open_memory(tmp_path / "m.db")
    a_ids = _fill(mem, "a")
    mem.add("Bee's secret: the vault code is 1234.", "b")
    path = tmp_path / "a.jsonl"
    mem.export_jsonl("a", path)
    text = path.read_text(encoding="utf-8")
    assert "vault" not in text and '"b"' not in text
    assert {r["id"] for r in _lines(path)[1:]} == set(a_ids)


def test_importing_into_another_user_never_touches_the_first(open_memory, tmp_path):
    mem = open_memory(tmp_path / "m.db")
    _fill(mem, "a")
    before = (_fields(mem, "a"), _histories(mem, "a"))
    path = tmp_path / "a.jsonl"
    mem.export_jsonl("a", path)
    assert mem.import_jsonl(path, "b") == len(TURNS)
    assert (_fields(mem, "a"), _histories(mem, "a")) == before
    # the same store: "a" holds those ids, so "b" gets its own, with the same content
    assert not {h.id for h in mem.memories("b")} & {h.id for h in mem.memories("a")}
    assert [f[1:] for f in _fields(mem, "b")] == [f[1:] for f in before[0]]
    mem.delete_user("b")
    assert (_fields(mem, "a"), _histories(mem, "a")) == before


# -- bad input ------------------------------------------------------------------------------


def _export(open_memory, tmp_path) -> tuple[Memory, list[dict[str, Any]]]:
    mem = open_memory(tmp_path / "m.db")
    _fill(mem)
    path = tmp_path / "a.jsonl"
    mem.export_jsonl("a", path, vectors=True)
    return mem, _lines(path)


def _spoil(lines: list[dict[str, Any]], where: int, change: Any) -> bytes:
    out = [json.dumps(x) for x in lines]
    if callable(change):
        out[where] = change(lines[where])
    else:
        out[where] = change
    return "\n".join(out).encode("utf-8") + b"\n"


def _drop(key: str):
    return lambda r: json.dumps({k: v for k, v in r.items() if k != key})


def _set(key: str, value: Any):
    return lambda r: json.dumps({**r, key: value})


@pytest.mark.parametrize(
    ("where", "change", "message"),
    [
        (3, "{not json", "line 4: not valid JSON"),
        (3, "[1, 2]", "line 4: not a JSON object"),
        (0, _set("version", 2), "line 1: written in version 2"),
        (0, _set("version", "1"), "line 1: 'version' must be"),
        (0, _set("format", "remem.global-memory-table/1"), "line 1: not a remem export"),
        (3, _drop("text"), "line 4: has no 'text'"),
        (3, _set("text", ""), "line 4: "),
        (3, _drop("id"), "line 4: id must be a str"),
        (3, _set("timestamp", "yesterday-ish"), "line 4: "),
        (3, _drop("timestamp"), "line 4: has no 'timestamp'"),
        (3, _set("metadata", [1]), "line 4: "),
        (3, _set("vector", [1e39] * 384), "line 4: 'vector' must be"),
        (3, _set("vector", [0.1] * 3), "line 4: 'vector' must be"),
        (3, _set("history", []), "line 4: 'history' must be"),
        (3, _set("history", [{"version": 2}]), "line 4: history: version 1"),
        (3, lambda r: json.dumps({**r, "history": [{**r["history"][0], "text": "other"}]}),
         "line 4: the last version of 'history' is not the memory"),
        (3, lambda r: json.dumps({**r, "history": [{**r["history"][0], "at": "never"}]}),
         "line 4: history: version 1"),
        (4, lambda r: json.dumps({**r, "id": json.loads(json.dumps(r))["id"]}), None),
    ],
)  # fmt: skip
def test_bad_lines_are_named_and_import_nothing(open_memory, tmp_path, where, change, message):
    mem, lines = _export(open_memory, tmp_path)
    body = _spoil(lines, where, change)
    if message is None:  # a control: an unchanged line imports
        assert mem.import_jsonl(io.BytesIO(body), "fresh") == len(TURNS)
        return
    with pytest.raises(InvalidInputError, match=message.replace("(", r"\(")):
        mem.import_jsonl(io.BytesIO(body), "fresh")
    assert mem.count("fresh") == 0


def test_an_id_twice_in_a_file_is_refused_naming_the_line(open_memory, tmp_path):
    mem, lines = _export(open_memory, tmp_path)
    body = _spoil(lines, 4, _set("id", lines[3]["id"]))
    with pytest.raises(InvalidInputError, match="line 5: memory id .* appears twice"):
        mem.import_jsonl(io.BytesIO(body), "fresh")
    assert mem.count("fresh") == 0


def test_empty_unreadable_and_wrong_sources(open_memory, tmp_path):
    mem = open_memory(tmp_path / "m.db")
    with pytest.raises(InvalidInputError, match="line 1: an export starts with its header"):
        mem.import_jsonl(io.BytesIO(b""), "u")
    with pytest.raises(InvalidInputError, match="line 1: not UTF-8"):
        mem.import_jsonl(io.BytesIO(b"\xff\xfe\n"), "u")
    with pytest.raises(InvalidInputError, match="cannot read an export"):
        mem.import_jsonl(tmp_path / "missing.jsonl", "u")
    with pytest.raises(InvalidTypeError, match="a path or an open file"):
        mem.import_jsonl(b"{}", "u")  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="a path or an open file"):
        mem.export_jsonl("u", 42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="cannot write an export"):
        mem.export_jsonl("u", tmp_path / "no" / "such" / "dir.jsonl")
    with pytest.raises(InvalidTypeError):
        mem.export_jsonl("u", tmp_path / "x.jsonl", vectors="yes")  # type: ignore[arg-type]
    assert not list(tmp_path.glob("no*")) and mem.count("u") == 0


def test_header_only_imports_nothing_and_unknown_fields_are_ignored(open_memory, tmp_path):
    mem, lines = _export(open_memory, tmp_path)
    assert mem.import_jsonl(io.BytesIO(_spoil(lines[:1], 0, _set("later", 1))), "fresh") == 0
    body = _spoil(lines, 3, _set("a_field_of_a_later_version", {"x": 1}))
    assert mem.import_jsonl(io.BytesIO(body), "fresh") == len(TURNS)
